// The bridge to ouro's Chrome extension: the link (requests, replies, notifications over one
// WebSocket) and a CDP transport over it. The protocol is docs/design/extension-bridge.md; the
// DevTools side is the Target domain (chromedevtools.github.io/devtools-protocol/tot/Target/),
// whose attach and detach events this transport makes for the tabs the extension carries.
#include "cdp/bridge.h"

#include "base/log.h"
#include "cdp/gate.h"
#include "net/io.h"
#include "net/timer.h"

#include <boost/asio/post.hpp>

#include <set>

namespace ouro::cdp {

namespace asio = boost::asio;
using Millis = std::chrono::milliseconds;

namespace {

// The extension's error codes (docs/design/extension-bridge.md, "Errors") as ouro's.
Code code_of(const std::string& bridge_code) {
  if (bridge_code == "NotInGroup" || bridge_code == "Forbidden") return Code::PermissionDenied;
  if (bridge_code == "NotAttached" || bridge_code == "TabGone" || bridge_code == "Detached") return Code::NotFound;
  if (bridge_code == "Busy") return Code::ResourceExhausted;
  if (bridge_code == "BadRequest" || bridge_code == "TooLarge") return Code::InvalidArgument;
  if (bridge_code == "UnknownMethod") return Code::Unimplemented;
  if (bridge_code == "AlreadyAttached" || bridge_code == "AttachFailed" || bridge_code == "CdpError") return Code::FailedPrecondition;
  return Code::Internal;
}

}  // namespace

// --- the link -------------------------------------------------------------------------------------

struct BridgeLink::Impl : std::enable_shared_from_this<BridgeLink::Impl> {
  net::IoThread* io = nullptr;
  Send send;
  json hello;

  struct Pending {
    std::string method;
    Reply done;
    std::unique_ptr<net::Timer> timer;
  };
  // The network thread owns `pending`; the mutex guards what other threads read.
  std::map<int64_t, Pending> pending;
  int64_t next_id = 1;
  mutable std::mutex mutex;
  bool closed = false;
  std::optional<Error> close_error;
  size_t in_flight = 0;
  std::map<int, std::pair<Listener, CloseListener>> listeners;
  int next_listener = 1;
  // Held while listeners run, so unlisten waits for one in progress on another thread; recursive,
  // so a listener may unlisten itself.
  std::recursive_mutex call_mutex;

  void finish(int64_t id, Result<json> r) {
    auto it = pending.find(id);
    if (it == pending.end()) return;
    Pending p = std::move(it->second);
    pending.erase(it);
    {
      std::lock_guard lock(mutex);
      in_flight = pending.size();
    }
    if (p.timer) p.timer->cancel();
    try {
      p.done(std::move(r));
    } catch (const std::exception& e) {
      spdlog::error("bridge: the reply to {} was dropped: {}", p.method, redact(std::string_view(e.what()).substr(0, 300)));
    }
  }

  // Network thread.
  void start(std::string method, json params, Millis timeout, Reply done) {
    auto fail = [&](Code c, std::string why) { done(tl::make_unexpected(Error{c, method + ": " + why, nullptr})); };
    if (closed) return fail(Code::Unavailable, close_error ? close_error->message : "the extension disconnected");
    if (pending.size() >= kMaxInFlight)
      return fail(Code::ResourceExhausted, fmt::format("more than {} requests to the extension are in flight", kMaxInFlight));
    int64_t id = next_id++;
    std::string text = dump_json(json{{"id", id}, {"method", method}, {"params", std::move(params)}});
    if (text.size() > kMaxMessageBytes) return fail(Code::InvalidArgument, fmt::format("the request is over {} bytes", kMaxMessageBytes));
    Pending p{method, std::move(done), std::make_unique<net::Timer>(io->context())};
    p.timer->expires_after(timeout);
    std::weak_ptr<Impl> weak = weak_from_this();
    p.timer->async_wait([weak, id, timeout, method](boost::system::error_code ec) {
      if (ec) return;
      if (auto self = weak.lock())
        self->finish(id, tl::make_unexpected(Error{Code::DeadlineExceeded,
                                                   fmt::format("{}: the extension did not answer within {} ms", method, timeout.count()), nullptr}));
    });
    pending.emplace(id, std::move(p));
    {
      std::lock_guard lock(mutex);
      in_flight = pending.size();
    }
    if (!send(std::move(text)))
      finish(id, tl::make_unexpected(Error{Code::Unavailable, method + ": the bridge socket is closing or too far behind", nullptr}));
  }

  void notify(const std::string& method, const json& params) {
    std::lock_guard call(call_mutex);
    std::vector<Listener> to_call;
    {
      std::lock_guard lock(mutex);
      for (auto& [id, l] : listeners) to_call.push_back(l.first);
    }
    for (auto& l : to_call) {
      try {
        l(method, params);
      } catch (const std::exception& e) {
        spdlog::error("bridge: a listener failed on {}: {}", method.substr(0, 60), redact(std::string_view(e.what()).substr(0, 300)));
      }
    }
  }
};

std::shared_ptr<BridgeLink> BridgeLink::create(net::IoThread& io, Send send, json hello) {
  std::shared_ptr<BridgeLink> link(new BridgeLink());
  link->m = std::make_shared<Impl>();
  link->m->io = &io;
  link->m->send = std::move(send);
  link->m->hello = std::move(hello);
  return link;
}

BridgeLink::~BridgeLink() {
  // Whatever still waits hears that the link is gone (on the network thread, as always).
  auto impl = m;
  auto fail_all = [impl] {
    if (impl->closed) return;
    {
      std::lock_guard lock(impl->mutex);
      impl->closed = true;
    }
    while (!impl->pending.empty())
      impl->finish(impl->pending.begin()->first, tl::make_unexpected(Error{Code::Unavailable, "the extension disconnected: ouro let go of the bridge", nullptr}));
  };
  if (impl->io->on_thread()) fail_all();
  else impl->io->post(std::move(fail_all));
}

void BridgeLink::request(std::string method, json params, Millis timeout, Reply done) {
  auto impl = m;
  impl->io->post([impl, method = std::move(method), params = std::move(params), timeout, done = std::move(done)]() mutable {
    impl->start(std::move(method), std::move(params), timeout, std::move(done));
  });
}

void BridgeLink::on_message(const std::string& text) {
  auto parsed = parse_json(text, "a bridge message");
  if (!parsed || !parsed->is_object()) {
    spdlog::warn("bridge: dropped a message that is not a JSON object ({} bytes)", text.size());
    return;
  }
  const json& msg = *parsed;
  if (auto id = msg.find("id"); id != msg.end()) {
    if (!id->is_number_integer()) return;
    int64_t n = id->get<int64_t>();
    if (auto err = msg.find("error"); err != msg.end()) {
      std::string code = get_str(*err, "code", "Internal");
      std::string message = get_str(*err, "message", "the extension gave no reason");
      json details = json{{"bridgeCode", code}};
      if (err->contains("cdpCode")) details["cdpCode"] = get_int(*err, "cdpCode", -32000);
      m->finish(n, tl::make_unexpected(Error{code_of(code), message, std::move(details)}));
      return;
    }
    m->finish(n, msg.contains("result") ? msg["result"] : json::object());
    return;
  }
  std::string method = get_str(msg, "method");
  if (method == "ping") {
    (void)m->send(R"({"method":"pong"})");
    return;
  }
  if (method.empty() || method == "pong" || method == "hello") return;
  m->notify(method, get_field(msg, "params"));
}

void BridgeLink::on_closed(const std::string& why) {
  if (m->closed) return;
  Error error{Code::Unavailable, "the extension disconnected: " + why, nullptr};
  {
    std::lock_guard lock(m->mutex);
    m->closed = true;
    m->close_error = error;
  }
  while (!m->pending.empty()) {
    const auto& [id, p] = *m->pending.begin();
    m->finish(id, tl::make_unexpected(Error{Code::Unavailable, p.method + " failed: " + error.message, nullptr}));
  }
  std::lock_guard call(m->call_mutex);
  std::vector<CloseListener> to_call;
  {
    std::lock_guard lock(m->mutex);
    for (auto& [id, l] : m->listeners) to_call.push_back(l.second);
  }
  for (auto& l : to_call)
    if (l) l(error);
}

int BridgeLink::listen(Listener on_notice, CloseListener on_close) {
  std::lock_guard lock(m->mutex);
  int id = m->next_listener++;
  if (m->closed) {
    if (on_close) m->io->post([on_close, e = *m->close_error] { on_close(e); });
    return id;
  }
  m->listeners[id] = {std::move(on_notice), std::move(on_close)};
  return id;
}

void BridgeLink::unlisten(int id) {
  std::lock_guard call(m->call_mutex);
  std::lock_guard lock(m->mutex);
  m->listeners.erase(id);
}

bool BridgeLink::closed() const {
  std::lock_guard lock(m->mutex);
  return m->closed;
}

json BridgeLink::hello() const { return m->hello; }

size_t BridgeLink::in_flight() const {
  std::lock_guard lock(m->mutex);
  return m->in_flight;
}

// --- the transport ---------------------------------------------------------------------------------

namespace {

constexpr std::string_view kContext = "extension";  // the browserContextId the tabs report

class BridgeTransport final : public Transport {
 public:
  BridgeTransport(net::IoThread& io, std::shared_ptr<BridgeLink> link, BridgeTarget target)
      : m_state(std::make_shared<State>(io, std::move(link), std::move(target))) {}
  ~BridgeTransport() override { close(); }

  void start(OnMessage on_message, OnClose on_close) override {
    m_state->gate.open(std::move(on_message), std::move(on_close));
    std::weak_ptr<State> weak = m_state;
    m_state->io.post([weak] {
      if (auto s = weak.lock()) s->listen();
    });
  }

  void send(std::string message) override {
    std::weak_ptr<State> weak = m_state;
    m_state->io.post([weak, message = std::move(message)] {
      if (auto s = weak.lock()) s->command(message);
    });
  }

  void close() override {
    m_state->gate.close();
    auto s = m_state;
    s->io.post([s] { s->shut(); });
  }

 private:
  struct Tab {
    int64_t tab_id = 0;
    std::string session, target_id, url, title, opener;
  };

  // Network thread only, except `gate`.
  struct State : std::enable_shared_from_this<State> {
    State(net::IoThread& i, std::shared_ptr<BridgeLink> l, BridgeTarget t) : io(i), link(std::move(l)), target(std::move(t)) {}
    net::IoThread& io;
    std::shared_ptr<BridgeLink> link;
    BridgeTarget target;
    Gate gate;
    int listener = 0;
    bool shut_down = false;
    std::map<int64_t, Tab> tabs;                  // attached by this transport, by Chrome's tabId
    std::map<std::string, int64_t> sessions;     // our tab sessions and Chrome's child sessions → tabId
    std::set<int64_t> attaching;                  // tabAdded being attached

    void deliver(const json& msg) { gate.message(dump_json(msg)); }

    void reply(const json& id, Result<json> r) {
      if (r) return deliver(json{{"id", id}, {"result", std::move(*r)}});
      const Error& e = r.error();
      json error = {{"code", -32000}, {"message", e.message}};
      if (e.details.is_object() && e.details.contains("cdpCode")) error["code"] = e.details["cdpCode"];
      else error["ouroCode"] = std::string(code_name(e.code));
      deliver(json{{"id", id}, {"error", std::move(error)}});
    }

    void listen() {
      std::weak_ptr<State> weak = weak_from_this();
      listener = link->listen(
          [weak](const std::string& method, const json& params) {
            if (auto s = weak.lock()) s->notice(method, params);
          },
          [weak](const Error& e) {
            if (auto s = weak.lock()) s->gate.fail(e);
          });
    }

    void shut() {
      if (shut_down) return;
      shut_down = true;
      link->unlisten(listener);
      // The conversation is over here: the extension detaches its tabs and forgets its group
      // (tabs and group stay, the user's).
      if (!link->closed()) link->request("release", {{"conversation", target.conversation}}, Millis(5000), [](Result<json>) {});
    }

    json target_info(const Tab& t) const {
      json info = {{"targetId", t.target_id}, {"type", "page"}, {"title", t.title}, {"url", t.url}, {"attached", true},
                   {"browserContextId", kContext}, {"canAccessOpener", false}};
      if (!t.opener.empty()) info["openerId"] = t.opener;
      return info;
    }

    // A tab the extension attached (openTab's or attach's reply): known from now on and
    // announced as the browser announces an attached target.
    const Tab& adopt(int64_t tab_id, const json& r, std::string opener = {}) {
      Tab& t = tabs[tab_id];
      t.tab_id = tab_id;
      t.session = fmt::format("bridge-{}", tab_id);
      std::string tid = get_str(r, "targetId");
      t.target_id = tid.empty() ? fmt::format("tab-{}", tab_id) : tid;
      t.url = get_str(r, "url", "about:blank");
      t.title = get_str(r, "title");
      t.opener = std::move(opener);
      sessions[t.session] = tab_id;
      deliver(json{{"method", "Target.attachedToTarget"},
                   {"params", {{"sessionId", t.session}, {"targetInfo", target_info(t)}, {"waitingForDebugger", false}}}});
      return t;
    }

    void forget(int64_t tab_id, const std::string& reason) {
      auto it = tabs.find(tab_id);
      if (it == tabs.end()) return;
      Tab t = std::move(it->second);
      tabs.erase(it);
      std::erase_if(sessions, [&](const auto& kv) { return kv.second == tab_id; });
      spdlog::info("bridge: tab {} of conversation {} let go ({})", tab_id, target.conversation, reason);
      deliver(json{{"method", "Target.detachedFromTarget"}, {"params", {{"sessionId", t.session}, {"targetId", t.target_id}}}});
    }

    void attach(int64_t tab_id, std::string opener, std::function<void(Result<json>)> then) {
      std::weak_ptr<State> weak = weak_from_this();
      link->request("attach", {{"conversation", target.conversation}, {"tabId", tab_id}}, target.request_timeout,
                    [weak, tab_id, opener = std::move(opener), then = std::move(then)](Result<json> r) {
                      auto s = weak.lock();
                      if (!s) return;
                      if (!r) return then(tl::make_unexpected(r.error()));
                      const Tab& t = s->tabs.count(tab_id) ? s->tabs[tab_id] : s->adopt(tab_id, *r, opener);
                      then(json{{"sessionId", t.session}});
                    });
    }

    // What the extension tells (docs/design/extension-bridge.md, "Notifications").
    void notice(const std::string& method, const json& p) {
      int64_t tab_id = get_int(p, "tabId", -1);
      if (method == "cdpEvent") {
        if (!tabs.count(tab_id)) return;  // another conversation's tab, or one let go
        std::string child = get_str(p, "sessionId");
        std::string cdp_method = get_str(p, "cdpMethod");
        const json& params = get_field(p, "cdpParams");
        // Flat sessions (Chrome 125+): a child target's session id addresses it from now on.
        if (cdp_method == "Target.attachedToTarget") sessions[get_str(params, "sessionId")] = tab_id;
        if (cdp_method == "Target.detachedFromTarget") sessions.erase(get_str(params, "sessionId"));
        deliver(json{{"method", cdp_method}, {"params", params.is_object() ? params : json::object()},
                     {"sessionId", child.empty() ? tabs[tab_id].session : child}});
      } else if (method == "detached") {
        forget(tab_id, "detached: " + get_str(p, "reason", "unknown"));
      } else if (method == "tabRemoved") {
        forget(tab_id, get_str(p, "reason", "left the group"));
      } else if (method == "tabAdded") {
        // The user shared a tab into this conversation's group (or a grouped tab opened it).
        if (get_str(p, "conversation") != target.conversation || tabs.count(tab_id) || attaching.count(tab_id)) return;
        attaching.insert(tab_id);
        std::string opener;
        if (auto o = tabs.find(get_int(p, "openerTabId", -1)); o != tabs.end() && get_str(p, "by") == "opener") opener = o->second.target_id;
        std::weak_ptr<State> weak = weak_from_this();
        attach(tab_id, opener, [weak, tab_id](Result<json> r) {
          auto s = weak.lock();
          if (!s) return;
          s->attaching.erase(tab_id);
          if (!r) spdlog::warn("bridge: cannot attach the tab shared into conversation {}: {}", s->target.conversation, r.error().message);
        });
      }
    }

    // A CDP command from the Connection.
    void command(const std::string& text) {
      if (shut_down) return;
      auto parsed = parse_json(text, "a CDP command");
      if (!parsed || !parsed->is_object()) return;
      const json& msg = *parsed;
      json id = get_field(msg, "id");
      std::string method = get_str(msg, "method");
      json params = msg.contains("params") && msg["params"].is_object() ? msg["params"] : json::object();
      std::string sid = get_str(msg, "sessionId");
      if (sid.empty()) return browser_command(id, method, std::move(params));
      auto it = sessions.find(sid);
      if (it == sessions.end() || !tabs.count(it->second))
        return deliver(json{{"id", id}, {"error", {{"code", -32001}, {"message", "Session with given id not found."}}}});
      json request = {{"tabId", it->second}, {"cdpMethod", method}, {"cdpParams", std::move(params)}};
      if (sid != tabs[it->second].session) request["sessionId"] = sid;
      forward(id, std::move(request));
    }

    void forward(const json& id, json request) {
      std::weak_ptr<State> weak = weak_from_this();
      link->request("cdp", std::move(request), target.request_timeout, [weak, id](Result<json> r) {
        if (auto s = weak.lock()) s->reply(id, std::move(r));
      });
    }

    // The browser's own session: what a Browser sends there, answered for one tab group.
    void browser_command(const json& id, const std::string& method, json params) {
      std::weak_ptr<State> weak = weak_from_this();
      auto unavailable = [&](const std::string& why) {
        reply(id, tl::make_unexpected(Error{Code::Unimplemented, method + " " + why, nullptr}));
      };
      if (method == "Target.setDiscoverTargets" || method == "Target.setAutoAttach" || method == "Target.disposeBrowserContext") {
        // Discovery is the extension's tabAdded/tabRemoved for this group; tabs are attached as
        // they come, and there are no contexts of ours to dispose.
        return reply(id, json::object());
      }
      if (method == "Browser.close") return reply(id, json::object());  // never the user's browser
      if (method == "Browser.getVersion")
        return reply(id, json{{"product", get_str(get_field(link->hello(), "browser"), "brand", "Chrome")},
                              {"userAgent", get_str(get_field(link->hello(), "browser"), "userAgent")}, {"protocolVersion", "1.3"}});
      if (method == "Target.getTargets") {
        // The group's tabs (shared before the run), not yet attached; none opens nothing.
        link->request("listTabs", json::object(), target.request_timeout, [weak, id](Result<json> r) {
          auto s = weak.lock();
          if (!s) return;
          if (!r) return s->reply(id, tl::make_unexpected(r.error()));
          const json* mine = nullptr;
          const json* unclaimed = nullptr;
          for (const auto& g : get_array(*r, "groups")) {
            if (get_str(g, "conversation") == s->target.conversation) mine = &g;
            if (get_field(g, "conversation").is_null() && !unclaimed) unclaimed = &g;
          }
          if (!mine && unclaimed) {
            // The person shared tabs (Share this tab) before any conversation had a group: that
            // group becomes this one's, renamed after the task.
            json claim = {{"conversation", s->target.conversation}, {"groupId", get_int(*unclaimed, "groupId", -1)},
                          {"title", s->target.title.substr(0, 60)}};
            json group = *unclaimed;
            s->link->request("setGroup", std::move(claim), s->target.request_timeout, [weak, id, group](Result<json> claimed) {
              if (auto s = weak.lock()) s->reply(id, claimed ? Result<json>(s->targets_of(group)) : Result<json>(tl::make_unexpected(claimed.error())));
            });
            return;
          }
          s->reply(id, mine ? s->targets_of(*mine) : json{{"targetInfos", json::array()}});
        });
        return;
      }
      if (method == "Target.attachToTarget") {
        int64_t tab = tab_of_target(get_str(params, "targetId"));
        if (tab < 0) return unavailable("through the extension reaches only the tabs of the conversation's group (and their frames through auto-attach)");
        attach(tab, "", [weak, id](Result<json> r) {
          if (auto s = weak.lock()) s->reply(id, std::move(r));
        });
        return;
      }
      if (method == "Target.createTarget") {
        if (!get_str(params, "browserContextId").empty())
          return unavailable("in another browser context: a clean context (separate cookies) cannot exist through the extension; runs there use the user's profile");
        json open = {{"conversation", target.conversation}, {"title", target.title.substr(0, 60)}};
        link->request("openTab", std::move(open), target.request_timeout, [weak, id](Result<json> r) {
          auto s = weak.lock();
          if (!s) return;
          if (!r) return s->reply(id, tl::make_unexpected(r.error()));
          int64_t tab = get_int(*r, "tabId", -1);
          const Tab& t = s->adopt(tab, *r);
          s->reply(id, json{{"targetId", t.target_id}});
        });
        return;
      }
      if (method == "Target.closeTarget" || method == "Target.activateTarget") {
        int64_t tab = tab_of_target(get_str(params, "targetId"));
        if (tab < 0 || !tabs.count(tab)) return reply(id, tl::make_unexpected(Error{Code::NotFound, method + ": no such tab in this conversation's group", nullptr}));
        // The run's active tab is ouro's to know, not the window's: in the person's Chrome the tab
        // they are on stays in front (docs/guides/side-panel.md), so nothing is brought forward.
        if (method == "Target.activateTarget") return reply(id, json::object());
        link->request("closeTab", {{"tabId", tab}}, target.request_timeout, [weak, id, tab](Result<json> r) {
          auto s = weak.lock();
          if (!s) return;
          if (!r) return s->reply(id, tl::make_unexpected(r.error()));
          s->forget(tab, "closed by ouro");
          s->reply(id, json{{"success", true}});
        });
        return;
      }
      if (method == "Target.detachFromTarget") {
        std::string sid = get_str(params, "sessionId");
        auto it = sessions.find(sid);
        if (it == sessions.end()) return reply(id, json::object());
        int64_t tab = it->second;
        if (tabs.count(tab) && tabs[tab].session == sid) {
          link->request("detach", {{"tabId", tab}}, target.request_timeout, [weak, id, tab](Result<json> r) {
            auto s = weak.lock();
            if (!s) return;
            s->forget(tab, "detached by ouro");
            s->reply(id, std::move(r));
          });
          return;
        }
        // A child session (a worker, a frame): detached by its tab, which auto-attached it.
        return forward(id, json{{"tabId", tab}, {"cdpMethod", "Target.detachFromTarget"}, {"cdpParams", {{"sessionId", sid}}}});
      }
      if (method == "Target.createBrowserContext")
        return unavailable("is not available: a clean context (separate cookies) cannot exist through the extension; runs there work in the user's profile (\"mine\")");
      if (method == "Browser.setDownloadBehavior") {
        // Asking for the browser's own behaviour is what the extension gives anyway.
        if (get_str(params, "behavior") == "default") return reply(id, json::object());
        return unavailable("is not available: downloads go where the user's Chrome puts them");
      }
      unavailable("is not carried by the extension bridge (only the shared tabs' sessions are)");
    }

    // Target.getTargets' answer for a group of listTabs.
    json targets_of(const json& group) const {
      json infos = json::array();
      for (const auto& t : get_array(group, "tabs")) {
        int64_t tab = get_int(t, "tabId", -1);
        infos.push_back({{"targetId", fmt::format("tab-{}", tab)}, {"type", "page"}, {"title", get_str(t, "title")},
                         {"url", get_str(t, "url")}, {"attached", tabs.count(tab) > 0}, {"browserContextId", kContext}});
      }
      return json{{"targetInfos", infos}};
    }

    // Chrome's targetId of a known tab, or our "tab-N" of one the group lists; -1 for others.
    int64_t tab_of_target(const std::string& target_id) const {
      for (const auto& [tab, t] : tabs)
        if (t.target_id == target_id) return tab;
      if (target_id.rfind("tab-", 0) == 0) {
        try {
          return std::stoll(target_id.substr(4));
        } catch (const std::exception&) {
          return -1;
        }
      }
      return -1;
    }
  };

  std::shared_ptr<State> m_state;
};

}  // namespace

namespace {
std::mutex g_offered_mutex;
std::map<std::string, std::unique_ptr<Transport>> g_offered;
int g_next_offer = 1;
}  // namespace

std::string offer_transport(std::unique_ptr<Transport> transport) {
  std::lock_guard lock(g_offered_mutex);
  std::string url = fmt::format("ouro-transport:{}", g_next_offer++);
  g_offered[url] = std::move(transport);
  return url;
}

std::unique_ptr<Transport> take_transport(const std::string& url) {
  std::lock_guard lock(g_offered_mutex);
  auto it = g_offered.find(url);
  if (it == g_offered.end()) return nullptr;
  auto t = std::move(it->second);
  g_offered.erase(it);
  return t;
}

std::unique_ptr<Transport> make_bridge_transport(net::IoThread& io, std::shared_ptr<BridgeLink> link, BridgeTarget target) {
  return std::make_unique<BridgeTransport>(io, std::move(link), std::move(target));
}

}  // namespace ouro::cdp
