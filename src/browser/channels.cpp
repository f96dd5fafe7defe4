// Live channels a page holds open — WebSockets, WebTransport sessions, EventSource streams
// (CDP Network events of every tab ouro follows) — and what becomes of them when a run takes the
// tab. A channel opened before the claim was never judged, and once open nothing pauses what goes
// through it (CDP can pause requests, not a socket's messages, and has no command to close one);
// a page's own code cannot be trusted to close it either (it can replace close()). So a tab
// claimed with live channels gets a new document of its own URL under the gate, which ends every
// connection of the old one (HTML Standard, "unloading document cleanup steps": WebSockets are
// made to disappear, EventSource and WebTransport closed, RTCPeerConnection closed), and the
// gate records each channel as closed. RTCPeerConnection has no Network events: a tab whose main
// world holds any (Runtime.queryObjects over its prototype) counts as holding a channel too.
#include "base/log.h"
#include "base/text.h"
#include "browser/browser_impl.h"

namespace ouro::browser {

namespace {

constexpr size_t kChannelsKept = 2000;  // live channels followed, all tabs together

}  // namespace

bool Browser::Impl::channel_event(const cdp::Event& ev) {
  const std::string& m = ev.method;
  const json& p = ev.params;
  std::string kind, url;
  if (m == "Network.webSocketCreated") kind = "WebSocket", url = get_str(p, "url");
  else if (m == "Network.webTransportCreated") kind = "WebTransport", url = get_str(p, "url");
  else if (m == "Network.requestWillBeSent" && get_str(p, "type") == "EventSource")
    kind = "EventSource", url = get_str(get_field(p, "request"), "url");
  if (m == "Target.detachedFromTarget" && ev.session_id.empty()) {
    forget_channels(get_str(p, "sessionId"));
    return false;
  }
  std::string id = get_str(p, m == "Network.webTransportCreated" || m == "Network.webTransportClosed" ? "transportId" : "requestId");
  if (id.empty()) return false;
  std::lock_guard lock(mutex);
  if (!kind.empty()) {
    // Past the cap the session counts as holding channels it cannot list (fail closed).
    if (live_channels.size() >= kChannelsKept) channel_overflow.insert(ev.session_id);
    else live_channels[id] = LiveChannel{ev.session_id, kind, clip_head(url, 2000, ClipMark::None)};
  } else if (m == "Network.webSocketClosed" || m == "Network.webTransportClosed" || m == "Network.loadingFinished" ||
             m == "Network.loadingFailed") {
    live_channels.erase(id);
  }
  return false;
}

void Browser::Impl::forget_channels(const std::string& session_id) {
  std::lock_guard lock(mutex);
  std::erase_if(live_channels, [&](const auto& kv) { return kv.second.session == session_id; });
  channel_overflow.erase(session_id);
}

Result<void> Browser::Impl::close_channels(const std::string& tab_id, const std::function<Result<TabInfo>(const std::string& url)>& load) {
  std::string sid, url;
  EgressGate gate;
  std::vector<LiveChannel> open;
  {
    std::lock_guard lock(mutex);
    auto tab = tracker.find(tab_id);
    if (!tab || tab->closed || tab->session_id.empty()) return {};
    sid = tab->session_id;
    url = tab->url;
    if (auto g = gate_of(*tab)) gate = *g;
    for (const auto& [id, c] : live_channels)
      if (c.session == sid) open.push_back(c);
    if (channel_overflow.count(sid)) open.push_back(LiveChannel{sid, "WebSocket", "(more connections than ouro follows)"});
  }
  if (!gate) return {};
  // Peer connections: counted in the page's main world (a page that replaced the constructor
  // hides its own; see docs/guides/safety.md).
  if (auto proto = conn->call("Runtime.evaluate", {{"expression", "typeof RTCPeerConnection === 'function' && RTCPeerConnection.prototype"}}, sid, 5s);
      proto && !get_str(get_field(*proto, "result"), "objectId").empty()) {
    std::string proto_id = get_str(get_field(*proto, "result"), "objectId");
    if (auto found = conn->call("Runtime.queryObjects", {{"prototypeObjectId", proto_id}}, sid, 5s)) {
      std::string list = get_str(get_field(*found, "objects"), "objectId");
      auto n = conn->call("Runtime.callFunctionOn",
                          {{"objectId", list}, {"functionDeclaration", "function () { return this.length; }"}, {"returnByValue", true}}, sid, 5s);
      if (n && get_field(get_field(*n, "result"), "value").is_number_integer() && get_field(get_field(*n, "result"), "value").get<int>() > 0)
        open.push_back(LiveChannel{sid, "RTCPeerConnection", url});
      conn->send("Runtime.releaseObject", {{"objectId", list}}, sid, 5s, [](Result<json>) {});
    }
    conn->send("Runtime.releaseObject", {{"objectId", proto_id}}, sid, 5s, [](Result<json>) {});
  }
  if (open.empty()) return {};
  spdlog::info("egress: tab {} holds {} channel(s) opened before the run took it: its page is loaded again", tab_id, open.size());
  // The old document's channels end with it; the new one is under the gate from its first request.
  auto loaded = load(url);
  for (const auto& c : open) {
    OutgoingRequest r;
    r.tab_id = tab_id;
    r.url = c.url;
    r.resource_type = c.kind;
    r.cannot_pause = true;
    r.closed_at_claim = true;
    try {
      gate(r, [](bool) {});
    } catch (const std::exception& e) {
      spdlog::warn("egress gate failed on a closed channel: {}", e.what());
    }
  }
  forget_channels(sid);
  if (!loaded)
    return errorf(Code::Unavailable,
                  "tab {} held {} connection(s) its page opened before the run took it, and its page could not be loaded again to end "
                  "them: {}. Reload the tab, or open a tab of your own with openTab(url)",
                  tab_id, open.size(), loaded.error().message);
  return {};
}

}  // namespace ouro::browser
