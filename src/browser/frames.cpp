// Cross-origin frames: the page engine runs in the top document's isolated world and
// enters same-origin frames itself; a cross-origin frame's document is closed to it. Each such
// frame gets a prefix ("f2") and a helpers world of its own: in the tab's session when the frame
// shares the tab's renderer (same site), in the frame's own CDP session when it runs out of
// process (site isolation) — the session of the egress gate's auto-attach where there is one, else
// one attached here on demand (Target.attachToTarget, flattened). The engine there issues refs with
// the prefix, and a selector that begins with one is evaluated there; coordinates from there are
// moved into the tab's viewport by the frames' offsets.
#include "browser/browser_impl.h"
#include "browser/cdp_values.h"
#include "base/log.h"

#include <algorithm>
#include <cctype>

namespace ouro::browser {

namespace {

constexpr const char* kFrameWorld = "__ouro_frame";
constexpr size_t kFramesPerTab = 32;
constexpr int kMaxDepth = 8;

int prefix_number(const std::string& prefix) { return prefix.size() > 1 ? std::atoi(prefix.c_str() + 1) : 0; }

std::string gone_message(const std::string& frame, const std::string& tab, const std::string& why) {
  return fmt::format("frame {} of tab {} is gone ({}): it navigated or was removed. Take a new snapshot() for its current refs", frame, tab,
                     why);
}

}  // namespace

std::string Frames::frame_of(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  if (i >= s.size() || s[i] != 'f') return "";
  size_t j = i + 1;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
  if (j == i + 1 || j - i > 7 || j >= s.size() || s[j] != 'e') return "";
  size_t k = j + 1;
  while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
  if (k == j + 1) return "";
  if (k < s.size() && !std::isspace(static_cast<unsigned char>(s[k])) && s[k] != '>') return "";
  return std::string(s.substr(i, j - i));
}

// The root session's attach events of frames we attach ourselves: the tracker would detach them
// (it follows pages only). Closed tabs' frames are forgotten.
bool Browser::Impl::frame_event(const cdp::Event& ev) {
  if (!ev.session_id.empty()) return false;
  if (ev.method == "Target.attachedToTarget") {
    std::lock_guard lock(mutex);
    return frame_attaching.count(get_str(get_field(ev.params, "targetInfo"), "targetId")) > 0;
  }
  if (ev.method == "Target.detachedFromTarget") {
    std::lock_guard lock(mutex);
    if (auto tab = tracker.by_session(get_str(ev.params, "sessionId"))) {
      frame_worlds.erase(tab->id);
      frame_seq.erase(tab->id);
    }
  }
  return false;
}

Result<std::string> Frames::enter(const std::string& tab_id, const std::string& parent, const std::string& owner_ref, Millis timeout) {
  auto* impl = m_impl.get();
  auto [obj, parent_sid] = TRY(m_browser.call_object(tab_id, "resolve", json::array({owner_ref}), parent, timeout));
  std::string object = get_str(obj, "objectId");
  if (object.empty()) return errorf(Code::NotFound, "the frame element {} is gone from tab {}; take a new snapshot()", owner_ref, tab_id);
  auto node = impl->conn->call("DOM.describeNode", {{"objectId", object}}, parent_sid, timeout);
  impl->conn->send("Runtime.releaseObject", {{"objectId", object}}, parent_sid, 5s, [](Result<json>) {});
  if (!node) return errorf(node.error().code, "cannot look into frame element {} of tab {}: {}", owner_ref, tab_id, node.error().message);
  std::string frame_id = get_str(get_field(*node, "node"), "frameId");
  if (frame_id.empty()) return errorf(Code::InvalidArgument, "{} on tab {} is not a frame with a document (an <iframe> or <frame>)", owner_ref, tab_id);

  std::string session;
  {
    std::lock_guard lock(impl->mutex);
    TRY(impl->find_tab(tab_id));
    for (auto& [prefix, fw] : impl->frame_worlds[tab_id])
      if (fw.frame_id == frame_id) {
        fw.parent = parent;
        fw.owner_ref = owner_ref;
        fw.used = ++impl->frame_clock;
        return prefix;
      }
    for (const auto& [sid, child] : impl->children)
      if (child.tab == tab_id && child.target == frame_id) session = sid;
    if (session.empty()) impl->frame_attaching.insert(frame_id);
  }
  if (session.empty()) {
    // Out of process: its own target (whose id is the frame's). In process: no such target, and
    // the frame is reached through the session its element lives in.
    auto attached = impl->conn->call("Target.attachToTarget", {{"targetId", frame_id}, {"flatten", true}}, "", timeout);
    std::lock_guard lock(impl->mutex);
    impl->frame_attaching.erase(frame_id);
    if (attached && !get_str(*attached, "sessionId").empty()) {
      session = get_str(*attached, "sessionId");
      impl->children[session] = Impl::Child{tab_id, "iframe", frame_id};
    } else {
      session = parent_sid;
    }
  }
  std::lock_guard lock(impl->mutex);
  TRY(impl->find_tab(tab_id));
  auto& worlds = impl->frame_worlds[tab_id];
  if (worlds.size() >= kFramesPerTab) {
    auto oldest = std::min_element(worlds.begin(), worlds.end(), [](auto& a, auto& b) { return a.second.used < b.second.used; });
    worlds.erase(oldest);
  }
  std::string prefix = "f" + std::to_string(++impl->frame_seq[tab_id]);
  worlds[prefix] = Impl::FrameWorld{frame_id, parent, owner_ref, session, 0, ++impl->frame_clock};
  return prefix;
}

std::vector<std::string> Frames::entered(const std::string& tab_id) const {
  std::lock_guard lock(m_impl->mutex);
  std::vector<std::string> out;
  if (auto it = m_impl->frame_worlds.find(tab_id); it != m_impl->frame_worlds.end())
    for (const auto& kv : it->second) out.push_back(kv.first);
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return prefix_number(a) < prefix_number(b); });
  return out;
}

Result<std::pair<json, std::string>> Browser::Impl::eval_in_frame(const std::string& tab_id, const std::string& frame,
                                                                  std::string_view function, const json& args, Millis timeout, bool by_value) {
  auto deadline = Clock::now() + timeout;
  for (int attempt = 0;; ++attempt) {
    FrameWorld fw;
    {
      std::lock_guard lock(mutex);
      auto tab = find_tab(tab_id);
      if (!tab) {
        frame_worlds.erase(tab_id);
        return tl::make_unexpected(tab.error());
      }
      auto& worlds = frame_worlds[tab_id];
      auto it = worlds.find(frame);
      if (it == worlds.end())
        return errorf(Code::NotFound,
                      "tab {} has no frame {}: refs with a frame prefix come from snapshot() or find(), which enter cross-origin frames; "
                      "take a new snapshot()",
                      tab_id, frame);
      it->second.used = ++frame_clock;
      fw = it->second;
    }
    auto left = [&] { return std::max(Millis(200), std::chrono::duration_cast<Millis>(deadline - Clock::now())); };
    auto forget = [&](const std::string& why) -> tl::unexpected<Error> {
      std::lock_guard lock(mutex);
      if (auto t = frame_worlds.find(tab_id); t != frame_worlds.end()) t->second.erase(frame);
      return tl::make_unexpected(Error{Code::NotFound, gone_message(frame, tab_id, why), nullptr, Cause::ContextGone});
    };
    if (!fw.ctx) {
      auto world = conn->call("Page.createIsolatedWorld", {{"frameId", fw.frame_id}, {"worldName", kFrameWorld}}, fw.session, left());
      if (!world) return forget(world.error().message);
      fw.ctx = static_cast<int>(get_int(*world, "executionContextId", 0));
      // The engine, then the prefix of the refs it issues here.
      auto installed = conn->call("Runtime.evaluate", {{"expression", page_helpers_source()}, {"contextId", fw.ctx}, {"returnByValue", true}},
                                  fw.session, left());
      if (installed && !installed->contains("exceptionDetails"))
        installed = conn->call("Runtime.callFunctionOn", page_call_params("usePrefix", json::array({frame}), fw.ctx, true), fw.session, left());
      if (!installed) return forget(installed.error().message);
      if (installed->contains("exceptionDetails"))
        return errorf(Code::Internal, "cannot install the page helpers in frame {} of tab {}: {}", frame, tab_id,
                      exception_text(get_field(*installed, "exceptionDetails")));
      std::lock_guard lock(mutex);
      if (auto t = frame_worlds.find(tab_id); t != frame_worlds.end())
        if (auto w = t->second.find(frame); w != t->second.end()) w->second.ctx = fw.ctx;
    }
    auto r = conn->call("Runtime.callFunctionOn", page_call_params(function, args, fw.ctx, by_value), fw.session, left());
    bool retry = false;
    if (!r) {
      if (r.error().cause == Cause::TargetGone) return forget(r.error().message);
      retry = r.error().cause == Cause::ContextGone;
      if (!retry) return tl::make_unexpected(r.error());
    } else if (r->contains("exceptionDetails")) {
      std::string text = exception_text(get_field(*r, "exceptionDetails"));
      // The page's exception text: the script was cut off by its document going away.
      retry = text.find("context was destroyed") != std::string::npos;
      if (!retry) return make_error(Code::InvalidArgument, text.substr(0, text.find("\n    at ")));
    }
    if (retry) {
      // The frame's document changed: a new world for the new document, once.
      if (attempt > 0 || Clock::now() >= deadline) return forget("its document changed while the call ran");
      std::lock_guard lock(mutex);
      if (auto t = frame_worlds.find(tab_id); t != frame_worlds.end())
        if (auto w = t->second.find(frame); w != t->second.end()) w->second.ctx = 0;
      continue;
    }
    const json& res = get_field(*r, "result");
    if (!by_value) return std::pair<json, std::string>{res, fw.session};
    return std::pair<json, std::string>{res.contains("value") ? res["value"] : json(nullptr), fw.session};
  }
}

Result<std::pair<std::string, std::string>> Browser::Impl::frame_owner(const std::string& tab_id, const std::string& frame) {
  std::lock_guard lock(mutex);
  if (auto t = frame_worlds.find(tab_id); t != frame_worlds.end())
    if (auto it = t->second.find(frame); it != t->second.end()) return std::pair<std::string, std::string>{it->second.parent, it->second.owner_ref};
  return errorf(Code::NotFound, "tab {} has no frame {}; take a new snapshot()", tab_id, frame);
}

Result<std::pair<double, double>> Frames::offset(const std::string& tab_id, const std::string& frame, Millis timeout, bool scroll) {
  double x = 0, y = 0;
  std::string f = frame;
  for (int depth = 0; !f.empty(); ++depth) {
    if (depth >= kMaxDepth) return errorf(Code::InvalidArgument, "frame {} of tab {} is nested too deep", frame, tab_id);
    auto [parent, owner] = TRY(m_impl->frame_owner(tab_id, f));
    auto box = TRY(m_browser.call(tab_id, "frameBox", json::array({owner, scroll}), parent, timeout));
    x += box.value("x", 0.0);
    y += box.value("y", 0.0);
    f = parent;
  }
  return std::pair<double, double>{x, y};
}

Result<void> Frames::settle(const std::string& tab_id, const std::string& frame, Millis timeout) {
  std::string f = frame;
  for (int depth = 0; depth < kMaxDepth; ++depth) {
    TRY(m_browser.call(tab_id, "afterFrames", json::array(), f, timeout));
    if (f.empty()) break;
    f = TRY(m_impl->frame_owner(tab_id, f)).first;
  }
  return {};
}

Result<std::vector<std::string>> Frames::path(const std::string& tab_id, const std::string& frame) {
  std::vector<std::string> path;
  std::string f = frame;
  for (int depth = 0; !f.empty() && depth < kMaxDepth; ++depth) {
    auto [parent, owner] = TRY(m_impl->frame_owner(tab_id, f));
    auto list = TRY(m_browser.call(tab_id, "details", json::array({json::array({owner})}), parent, 10s));
    json d = list.is_array() && !list.empty() ? list[0] : json::object();
    if (d.contains("error")) return errorf(Code::NotFound, "frame {} of tab {}: {}", f, tab_id, get_str(d, "error"));
    std::vector<std::string> here;
    for (const auto& p : get_array(d, "framePath"))
      if (p.is_string()) here.push_back(p.get<std::string>());
    here.push_back(get_str(d, "selector"));
    path.insert(path.begin(), here.begin(), here.end());
    f = parent;
  }
  return path;
}

}  // namespace ouro::browser
