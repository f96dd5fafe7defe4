#include "egress/gate.h"
#include "base/text.h"

#include "egress/holds.h"
#include "egress/secret_holds.h"
#include "egress/writes.h"

#include "base/log.h"
#include "base/thread_pool.h"
#include "browser/browser.h"
#include "browser/egress_control.h"
#include "browser/shared_tabs.h"
#include "safety/redact.h"
#include "safety/secrets.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

namespace ouro::egress {

using host::Context;

namespace {
constexpr size_t kMaxGateEvents = 1000;
constexpr size_t kMaxQueuedQuestions = 64;
constexpr size_t kMaxEarly = 100;
}  // namespace

struct GateState {
  std::shared_ptr<safety::GatePolicy> policy;
  std::mutex mutex;
  std::map<std::string, std::vector<std::function<void(bool)>>> asking;  // question key -> who waits
  std::map<std::string, std::string> refused;                           // kind key -> why
  size_t events = 0;
  // Decisions recorded while no hooks were installed (the session's start, before its run):
  // the first kMaxEarly, for deliver_early.
  std::vector<json> early;
  std::atomic<bool> closing{false};
  // The run has put its data or choices into a page (registry.h `changes_page`, or a navigation
  // to a URL the user did not give): from then on every held tab keeps to the allowed sites.
  std::atomic<bool> acted{false};
  // Whether its pages were stopped as it closed (stop_pages): tried once, its outcome kept, so that
  // the host's end does not wait on pages the session's end could not stop. Guarded by `mutex`.
  enum class Pages { Running, Stopped, StillRunning } pages = Pages::Running;
  // The secret's rule: what of a secret's origin talks only to its sites (secret_holds.h).
  std::shared_ptr<SecretHolds> secrets = std::make_shared<SecretHolds>();
  std::atomic<size_t> requests{0}, run_caused{0}, allowed{0}, asked{0}, denied{0};  // counts (GateStats)
  browser::EgressGate judge_request;  // what the browser calls for each paused request
  std::map<std::string, std::string> proposals;  // site -> what the run submitted there; guarded by `mutex`
  std::map<std::string, std::string> frame_urls;  // "tab prefix" -> a cross-origin frame's URL; guarded by `mutex`
  // Asks the run's egress proxy to judge its open connections again (watch_connections); guarded
  // by `mutex`.
  std::function<void()> recheck_connections;
  void connections_tightened() {
    std::function<void()> recheck;
    {
      std::lock_guard lock(mutex);
      recheck = recheck_connections;
    }
    if (recheck) recheck();
  }
  std::unique_ptr<ThreadPool> asker = std::make_unique<ThreadPool>(1, kMaxQueuedQuestions);
  ~GateState() {
    closing = true;
    asker.reset();  // queued questions see `closing` and answer no at once
  }
};

namespace {

void record(Context& ctx, GateState& st, json decision) {
  {
    std::lock_guard lock(st.mutex);
    if (st.events > kMaxGateEvents) return;
    if (++st.events > kMaxGateEvents) decision = {{"decision", "note"}, {"reason", "further gate decisions of this run are not recorded"}};
  }
  safety::redact_json_strings(decision);
  if (ctx.secrets()) ctx.secrets()->scrub(decision);
  auto hooks = ctx.hooks();
  if (hooks && hooks->on_gate) return hooks->on_gate(decision);
  if (decision.value("decision", "") == "deny")
    spdlog::warn("gate: refused {} {} — {}", decision.value("method", ""), decision.value("url", ""), decision.value("reason", ""));
  std::lock_guard lock(st.mutex);
  if (st.early.size() < kMaxEarly) st.early.push_back(std::move(decision));
}

json decision_json(const std::string& tab, const safety::RequestFacts& f, const safety::GateVerdict& v) {
  json d = {{"tab", tab}, {"method", f.method}, {"url", f.url.substr(0, 500)}, {"type", f.resource_type},
            {"navigation", f.top_level}, {"rule", v.rule}, {"reason", v.reason}};
  if (!f.cause.empty()) d["cause"] = f.cause;
  if (!f.body_preview.empty()) d["body"] = f.body_preview;
  return d;
}

// Site patterns ("example.com", "*.example.com", "127.0.0.1:8080") as URL patterns for
// WebSockets (which cannot be paused, only blocked).
std::vector<std::string> websocket_patterns_of(const std::vector<std::string>& site_patterns) {
  std::vector<std::string> out;
  for (const auto& pattern : site_patterns) {
    bool sub = pattern.rfind("*.", 0) == 0;
    std::string hp = sub ? pattern.substr(2) : pattern, host = hp, port = "*";
    if (auto bracket = hp.find("]:"); !hp.empty() && hp.front() == '[' && bracket != std::string::npos) {
      host = hp.substr(0, bracket + 1);  // "[2001:db8::1]:8443"
      port = hp.substr(bracket + 2);
    } else if (!hp.empty() && hp.front() == '[') {
      host = hp;
    } else if (auto colon = hp.rfind(':'); colon != std::string::npos && hp.find(':') == colon) {
      host = hp.substr(0, colon);
      port = hp.substr(colon + 1);
    } else if (hp.find(':') != std::string::npos) {
      host = "[" + hp + "]";  // IPv6
    }
    bool address = host.find_first_not_of("0123456789.") == std::string::npos || host.front() == '[';
    std::vector<std::string> hosts = {host};
    if (!address) hosts.push_back((sub ? "*." : "www.") + host);
    for (const char* scheme : {"ws", "wss"})
      for (const std::string& h : hosts) out.push_back(std::string(scheme) + "://" + h + ":" + port + "/*");
  }
  return out;
}

std::vector<std::string> websocket_patterns(const safety::GatePolicy& policy) { return websocket_patterns_of(policy.patterns()); }

// A tab bound by secrets' rules: WebSockets only where the policy and every secret binding it
// allow. A pattern is kept when the policy's patterns and every other secret's hold it too, or
// when its host and port are exact and that origin is allowed by all of them; anything else is
// left out (a socket the browser lets connect is one the gate could not refuse).
std::vector<std::string> secret_websocket_patterns(const safety::GatePolicy& policy, const std::vector<safety::SiteList>& secrets) {
  if (secrets.empty()) return websocket_patterns(policy);
  std::vector<std::vector<std::string>> others = {websocket_patterns(policy)};
  for (size_t i = 1; i < secrets.size(); ++i) others.push_back(websocket_patterns_of(secrets[i].patterns()));
  std::vector<std::string> out;
  for (const auto& p : websocket_patterns_of(secrets[0].patterns())) {
    bool everywhere = std::all_of(others.begin(), others.end(), [&](const auto& list) { return std::find(list.begin(), list.end(), p) != list.end(); });
    if (!everywhere && p.find('*') == p.size() - 1) {  // "ws://host:port/*": one origin
      auto u = safety::parse_url((p.rfind("wss:", 0) == 0 ? "https" : "http") + p.substr(p.find(':'), p.size() - 1 - p.find(':')));
      everywhere = u && policy.allowed(*u) && policy.scheme_and_address(*u).allowed &&
                   std::all_of(secrets.begin() + 1, secrets.end(), [&](const safety::SiteList& s) { return s.matches(*u); });
    }
    if (everywhere) out.push_back(p);
  }
  return out;
}

// Tabs the secret's rule bound since the last look keep their WebSockets to the secret's sites.
void limit_bound_websockets(Context& ctx, const GateState& st) {
  for (const auto& tab : st.secrets->take_newly_bound())
    ctx.browser().egress().limit_tab_websockets(tab, secret_websocket_patterns(*st.policy, st.secrets->sites_binding(tab)));
}

void update_websockets(Context& ctx, const GateState& st) {
  if (auto r = ctx.browser().egress().set_websocket_allowlist(ctx.browser_context(), websocket_patterns(*st.policy), ctx.shared_tabs() ? ctx.owner() : ""); !r)
    spdlog::warn("gate: {}", r.error().message);
}

// Asks (or answers from what was decided before) and calls done(approved) — on the asker thread,
// or at once. Never blocks the caller.
void ask(const std::shared_ptr<Context>& ctx, const std::shared_ptr<GateState>& st, const std::string& tab, const safety::RequestFacts& f,
         const safety::GateVerdict& v, std::function<void(bool)> done) {
  auto url = safety::parse_url(f.url);
  std::string host = url ? url->host : f.url.substr(0, 100);
  std::string kind = v.rule + " " + f.method + " " + host;
  std::string question = kind + " " + f.url + " " + f.body_preview;
  bool refused_before = false;
  {
    std::lock_guard lock(st->mutex);
    refused_before = st->refused.count(kind) > 0;
    if (!refused_before) {
      auto& waiters = st->asking[question];
      waiters.push_back(std::move(done));
      if (waiters.size() > 1) return;  // the same question is being asked: share its answer
    }
  }
  if (refused_before) {
    json d = decision_json(tab, f, v);
    d["decision"] = "deny";
    d["by"] = "an earlier refusal";
    record(*ctx, *st, std::move(d));
    return done(false);
  }
  std::weak_ptr<Context> weak_ctx = ctx;
  std::weak_ptr<GateState> weak_st = st;
  auto answer = [weak_ctx, weak_st, tab, f, v, kind, question] {
    auto c = weak_ctx.lock();
    auto s = weak_st.lock();
    if (!s) return;
    bool approved = false;
    std::string by;
    auto hooks = c ? c->hooks() : nullptr;
    if (!c || s->closing) {
      by = "the run ended";
    } else if (!hooks || !hooks->confirm) {
      by = "no one to ask";
    } else {
      json request = {{"action", f.top_level ? "navigate" : "request"},
                      {"reason", v.reason},
                      {"rule", v.rule},
                      {"method", f.method},
                      {"url", safety::redact_url_params(f.url.substr(0, 500))},
                      {"site", safety::parse_url(f.url).map([](const safety::Url& u) { return site_key(u); }).value_or("")},
                      {"tab", tab},
                      {"request", safety::describe_request(f)}};
      if (c->secrets()) c->secrets()->scrub(request);
      approved = hooks->confirm(request);
      by = approved ? "the user" : "the user (or no answer in time)";
    }
    // An approved navigation elsewhere adds its site (a write on an allowed site adds nothing).
    if (approved && f.top_level)
      if (auto u = safety::parse_url(f.url); u && !s->policy->allowed(*u)) {
        s->policy->allow_site_of(*u);
        if (c) update_websockets(*c, *s);
      }
    std::vector<std::function<void(bool)>> waiters;
    {
      std::lock_guard lock(s->mutex);
      if (!approved) s->refused[kind] = v.reason;
      waiters = std::move(s->asking[question]);
      s->asking.erase(question);
    }
    if (c) {
      json d = decision_json(tab, f, v);
      d["decision"] = approved ? "allow" : "deny";
      d["asked"] = by != "no one to ask" && by != "the run ended";
      d["by"] = by;
      record(*c, *s, std::move(d));
    }
    for (auto& w : waiters) w(approved);
  };
  if (!st->asker->try_post(answer)) {
    std::vector<std::function<void(bool)>> waiters;
    {
      std::lock_guard lock(st->mutex);
      waiters = std::move(st->asking[question]);
      st->asking.erase(question);
    }
    for (auto& w : waiters) w(false);  // more questions than anyone can answer: no
  }
}

// The gate's verdict, and what follows from it: allowed at once, refused at once, or asked.
void judge(const std::shared_ptr<Context>& ctx, const std::shared_ptr<GateState>& st, const RequestSource& from, const safety::RequestFacts& f,
           std::function<void(bool)> done, bool cannot_pause = false) {
  const std::string& tab = from.tab;
  safety::GateVerdict v = safety::decide(*st->policy, f);
  bool secret_refused = false;
  if (v.decision != safety::Decision::Deny)
    if (auto secret = st->secrets->judge(from, f)) {
      v = std::move(*secret);
      secret_refused = true;
    }
  limit_bound_websockets(*ctx, *st);
  if (v.decision == safety::Decision::Ask) ++st->asked;
  done = [st, done = std::move(done)](bool ok) {
    ++(ok ? st->allowed : st->denied);
    done(ok);
  };
  if (cannot_pause && v.decision != safety::Decision::Allow && f.resource_type == "WebSocket") {
    // Seen once it was created: the browser's list of allowed sites (Network.setBlockedURLs) and
    // the in-page guard decided before. One to an allowed site connected, whatever this verdict —
    // the record says it went, never "deny". One the secret's rule refuses was blocked by its
    // tab's limit (limit_bound_websockets), set when the tab was bound.
    auto u = safety::parse_url(f.url);
    if (!secret_refused && u && st->policy->allowed(*u) && st->policy->scheme_and_address(*u).allowed) {
      json d = decision_json(tab, f, v);
      d["decision"] = "sent";
      d["by"] = "policy";
      d["reason"] = v.reason + " — but a WebSocket cannot be paused, and this one, to an allowed site, had connected when it was seen";
      record(*ctx, *st, std::move(d));
      return done(true);
    }
  }
  if (cannot_pause && v.decision == safety::Decision::Ask) {
    v.decision = safety::Decision::Deny;
    v.reason += " (a WebSocket cannot wait for an answer: it was blocked)";
  }
  if (v.decision == safety::Decision::Allow) {
    if (f.run_caused && (f.top_level || f.resource_type == "Document")) {
      json d = decision_json(tab, f, v);
      d["decision"] = "allow";
      d["by"] = "policy";
      d["reason"] = "on the run's allowed sites";
      record(*ctx, *st, std::move(d));
    }
    return done(true);
  }
  if (v.decision == safety::Decision::Deny) {
    json d = decision_json(tab, f, v);
    d["decision"] = "deny";
    d["by"] = "policy";
    record(*ctx, *st, std::move(d));
    return done(false);
  }
  ask(ctx, st, tab, f, v, std::move(done));
}

}  // namespace

std::string body_preview(const std::string& body) {
  if (body.empty()) return {};
  // A JSON body is read whole (a cut one would not parse); any other is masked in its first 2000 bytes.
  size_t first = body.find_first_not_of(" \t\r\n");
  bool json_like = first != std::string::npos && (body[first] == '{' || body[first] == '[');
  std::string_view shown = json_like && body.size() <= safety::kMaxJsonBodyToRead ? std::string_view(body) : std::string_view(body).substr(0, 2000);
  return clip_head(safety::redact_request_body(shown), 200);
}

safety::RequestFacts attribute(const browser::OutgoingRequest& r) {
  safety::RequestFacts f;
  f.url = r.url;
  f.method = r.method;
  f.resource_type = r.resource_type;
  f.top_level = r.main_frame_navigation;
  f.body_preview = body_preview(r.post_data);
  f.method_override = safety::method_override(r.headers, r.url, r.post_data);
  f.form = r.navigation_reason.rfind("formSubmission", 0) == 0;
  // Who sent it is for the record and for two things only: what the run's own code sends is a
  // write whatever its method (safety/gate.h), and a write sent while an action the user approved
  // was working is not asked about twice. It never lets a request leave the allowed sites.
  if (r.tagged || (r.navigation_reason == "anchorClick" && r.activity == "execInTab" && !r.new_document)) {
    // (A link the run's code clicks, `a.click()`: Chromium gives its navigation no script stack.)
    f.run_caused = f.run_code = true;
    f.cause = "the run's code (execInTab)";
  } else if (r.from_worker && r.from_run_frame) {
    f.run_caused = f.run_code = true;
    f.cause = "a worker the run's code started";
  } else if (r.from_run_frame) {
    // The scripts of a frame the run's code made are the run's; what its document loads by itself is not.
    f.run_caused = true;
    f.run_code = r.has_stack;
    f.cause = "a frame the run's code created";
  } else if (r.from_worker) {
    f.cause = "a worker in the page";
  } else if (!r.activity.empty() && !r.new_document) {
    f.run_caused = true;
    f.cause = "the page while the run's " + r.activity + " worked";
    f.approved_action = r.activity_approved;
  } else if (r.closed_at_claim) {
    f.cause = "the page, before the run took the tab";
  } else if (r.cannot_pause) {
    if (r.resource_type == "Window") f.cause = "the page (a new window)";
    else if (r.resource_type == "WebSocket message") f.cause = "code in the page (a message on its socket)";
    else f.cause = "a WebSocket of the page";
  } else {
    f.cause = "the page's own scripts";
  }
  return f;
}

namespace {
RequestSource source_of(const browser::OutgoingRequest& r) { return {r.tab_id, r.page_url, r.script_url, r.opener_tab}; }
}  // namespace

Result<void> install_egress_gate(Context& ctx, std::shared_ptr<safety::GatePolicy> policy) {
  if (!policy) {
    ctx.set_gate(nullptr);
    return ctx.browser().egress().set_gate(ctx.browser_context(), nullptr);
  }
  auto st = std::make_shared<GateState>();
  st->policy = std::move(policy);
  ctx.set_gate(st);
  std::weak_ptr<Context> weak_ctx = ctx.weak_from_this();
  std::weak_ptr<GateState> weak_st = st;
  st->judge_request = [weak_ctx, weak_st](const browser::OutgoingRequest& r, browser::EgressAnswer answer) {
    auto c = weak_ctx.lock();
    auto s = weak_st.lock();
    if (!c || !s || s->closing) return answer(false);  // the session is ending: nothing more goes out for it
    safety::RequestFacts facts = attribute(r);
    if (r.closed_at_claim) {
      // Not judged: it was open before the run took the tab, and the page that held it is gone.
      json d = decision_json(r.tab_id, facts,
                             safety::GateVerdict{safety::Decision::Deny, "open before the run",
                                                 "a connection the page opened before the run took the tab: closed (its page was loaded again)"});
      d["decision"] = "closed";
      record(*c, *s, std::move(d));
      return answer(false);
    }
    if (!r.refused_in_page.empty()) {
      std::string rule = r.resource_type == "Window" ? "new window" : "socket message";
      json d = decision_json(r.tab_id, facts, safety::GateVerdict{safety::Decision::Deny, rule, r.refused_in_page});
      d["decision"] = "deny";
      d["by"] = "the page's guard";
      record(*c, *s, std::move(d));
      ++s->denied;
      return answer(false);
    }
    // A WebSocket cannot be paused: it is held to the allowed sites from the start.
    facts.after_acted = s->acted || r.cannot_pause;
    ++s->requests;
    if (facts.run_caused) ++s->run_caused;
    judge(c, s, source_of(r), facts, std::move(answer), r.cannot_pause);
  };
  // In a context shared with the user, only the tabs the run holds are gated (claims.h).
  if (ctx.shared_tabs()) return {};
  return ctx.browser().egress().set_gate(ctx.browser_context(), st->judge_request, websocket_patterns(*st->policy));
}

Result<void> claim_under_gate(Context& ctx, const std::string& tab_id) {
  auto st = ctx.gate();
  if (!st) return ctx.browser().shared().claim_tab(tab_id, ctx.owner());
  return ctx.browser().shared().claim_tab(tab_id, ctx.owner(), st->judge_request, websocket_patterns(*st->policy));
}

void allow_site(Context& ctx, const std::string& page_url) {
  auto st = ctx.gate();
  auto url = safety::parse_url(page_url);
  if (!st || !url || (url->scheme != "http" && url->scheme != "https")) return;
  st->policy->name_site_of(*url);
  st->policy->add_given_url(page_url);
  update_websockets(ctx, *st);
}

void mark_acted(Context& ctx, std::string_view what) {
  auto st = ctx.gate();
  if (!st || st->acted.exchange(true)) return;
  // Connections its pages opened before (to any site) would carry later requests past the rule.
  st->connections_tightened();
  // Messages on sockets are writes, and a socket cannot wait for an answer: in careful mode the
  // pages refuse them from here on (browser.h refuse_socket_messages), before the call acts.
  if (st->policy->mode() == safety::GateMode::Careful && !ctx.browser().dead())
    if (auto r = ctx.browser().egress().refuse_socket_messages(ctx.browser_context(), ctx.shared_tabs() ? ctx.owner() : ""); !r)
      spdlog::warn("gate: {}", r.error().message);
  json d = {{"decision", "note"}, {"rule", "acted"},
            {"reason", fmt::format("the run acted on its pages ({}): from now on everything its tabs send keeps to its allowed sites", what)}};
  record(ctx, *st, std::move(d));
}

bool has_acted(const Context& ctx) { return ctx.gate() && ctx.gate()->acted; }

void deliver_early(Context& ctx) {
  auto st = ctx.gate();
  auto hooks = ctx.hooks();
  if (!st || !hooks || !hooks->on_gate) return;
  std::vector<json> early;
  {
    std::lock_guard lock(st->mutex);
    early.swap(st->early);
  }
  for (const auto& d : early) hooks->on_gate(d);
}

browser::EgressGate lingering_gate(const Context& ctx) {
  auto st = ctx.gate();
  if (!st || !st->acted) return nullptr;
  std::shared_ptr<safety::GatePolicy> policy = st->policy;
  // The secret's rule stays with the tabs as long as they linger under this gate.
  std::shared_ptr<SecretHolds> secrets = st->secrets;
  return [policy, secrets](const browser::OutgoingRequest& r, browser::EgressAnswer answer) {
    safety::RequestFacts f = attribute(r);
    f.after_acted = true;
    f.approved_action = false;
    safety::GateVerdict v = safety::decide(*policy, f);
    if (v.decision != safety::Decision::Deny)
      if (auto secret = secrets->judge(source_of(r), f)) v = std::move(*secret);
    // No one is asked any more: a question is a no.
    if (v.decision != safety::Decision::Allow)
      spdlog::debug("gate (a finished run's tab): refused {} — {}", safety::describe_request(f), v.reason);
    answer(v.decision == safety::Decision::Allow);
  };
}

std::function<bool(const std::string&, uint16_t)> connection_rule(Context& ctx) {
  std::weak_ptr<Context> weak_ctx = ctx.weak_from_this();
  std::weak_ptr<GateState> weak = ctx.gate();
  auto noted = std::make_shared<std::pair<std::mutex, std::set<std::string>>>();
  return [weak, weak_ctx, noted](const std::string& host, uint16_t port) {
    auto st = weak.lock();
    if (!st || st->closing) return false;  // the run is ending: nothing more goes out for it
    if (!st->acted) return true;           // its pages hold nothing of the run's yet (safety/gate.h)
    safety::Url url{port == 443 ? "https" : "http", host, port};
    if (st->policy->allowed(url) && st->policy->scheme_and_address(url).allowed) return true;
    // A connection, not a request: WebRTC over TCP, a preconnect, a socket the page opened. The
    // event is recorded off the network thread, once per host and port.
    std::string key = host.substr(0, 200) + ":" + std::to_string(port);
    {
      std::lock_guard lock(noted->first);
      if (noted->second.size() >= 100 || !noted->second.insert(key).second) return false;
    }
    (void)st->asker->try_post([weak, weak_ctx, key] {
      auto s = weak.lock();
      auto c = weak_ctx.lock();
      if (!s || !c) return;
      record(*c, *s, {{"decision", "deny"}, {"by", "policy"}, {"rule", "outside allowed sites"}, {"type", "Connection"}, {"url", key},
                      {"reason", "a connection to " + key + " was refused: after the run has acted on its pages, its tabs connect only to its "
                                 "allowed sites (WebRTC, preconnects and every other socket included)"}});
    });
    return false;
  };
}

void watch_connections(Context& ctx, std::function<void()> recheck) {
  if (auto st = ctx.gate()) {
    std::lock_guard lock(st->mutex);
    st->recheck_connections = std::move(recheck);
  }
}

void close_gate(Context& ctx) {
  auto st = ctx.gate();
  if (!st) return;
  st->closing = true;
  st->connections_tightened();
  if (!ctx.browser().dead() && !ctx.shared_tabs()) ctx.browser().egress().refuse_paused(ctx.browser_context());
}

bool stop_pages(Context& ctx) {
  auto st = ctx.gate();
  if (!st || !st->acted || ctx.browser().dead()) return true;
  {
    std::lock_guard lock(st->mutex);
    if (st->pages != GateState::Pages::Running) return st->pages == GateState::Pages::Stopped;
  }
  // What the run put into its pages (a timer, a worker, a handler) could still send once the gate
  // is gone: their documents go first, all at once, within 10 s (a context full of popups must
  // not hold the run's end); a page that cannot be blanked has its renderer crashed. Every tab of
  // the context, ready or not: a popup opened as the gate closed runs its opener's code already.
  // Listed again after: a tab opened while the others stopped is stopped too (three rounds, then
  // whatever still appears keeps the closed gate).
  auto& tabs = ctx.browser().shared();
  std::set<std::string> done;
  bool stopped = false;
  for (int round = 0; round < 3 && !stopped; ++round) {
    std::vector<std::string> ids;
    for (auto& id : tabs.every_tab(ctx.browser_context()))
      if (!done.count(id)) ids.push_back(std::move(id));
    if (ids.empty()) {
      stopped = true;
      break;
    }
    if (!tabs.stop_pages(ids, std::chrono::seconds(10), std::chrono::seconds(5))) break;
    done.insert(ids.begin(), ids.end());
  }
  if (!stopped) spdlog::warn("gate: tabs of the finished run may still run what it left in them; they stay under a gate that refuses every request");
  std::lock_guard lock(st->mutex);
  st->pages = stopped ? GateState::Pages::Stopped : GateState::Pages::StillRunning;
  return stopped;
}

void leave_tabs(Context& ctx) {
  if (ctx.shared_tabs()) return ctx.browser().shared().release_tabs(ctx.owner(), lingering_gate(ctx));
  if (!ctx.gate()) return;
  close_gate(ctx);
  // A tab that could not be blanked keeps the gate, which now refuses everything (its state goes
  // with the run): fail closed.
  if (!stop_pages(ctx)) return;
  (void)ctx.browser().egress().set_gate(ctx.browser_context(), nullptr);
}

GateStats gate_stats(const Context& ctx) {
  GateStats out;
  if (auto st = ctx.gate()) {
    out.requests = st->requests;
    out.run_caused = st->run_caused;
    out.allowed = st->allowed;
    out.asked = st->asked;
    out.refused = st->denied;
  }
  return out;
}

std::shared_ptr<safety::GatePolicy> gate_policy(const Context& ctx) { return ctx.gate() ? ctx.gate()->policy : nullptr; }

void record_decision(Context& ctx, json decision) {
  if (auto st = ctx.gate()) record(ctx, *st, std::move(decision));
}

void note_proposal(Context& ctx, const std::string& tab, const std::string& what) {
  auto st = ctx.gate();
  if (!st) return;
  std::string site = site_of_page(ctx, tab);
  if (site.empty()) return;
  std::lock_guard lock(st->mutex);
  if (st->proposals.size() < 1000 || st->proposals.count(site)) st->proposals[site] = what.substr(0, 300);
}

std::optional<std::string> proposal_on(Context& ctx, const std::string& tab) {
  auto st = ctx.gate();
  if (!st) return std::nullopt;
  std::string site = site_of_page(ctx, tab);
  std::lock_guard lock(st->mutex);
  auto it = st->proposals.find(site);
  if (it == st->proposals.end()) return std::nullopt;
  return it->second;
}

void note_frame_url(Context& ctx, const std::string& tab, const std::string& prefix, const std::string& url) {
  auto st = ctx.gate();
  if (!st || prefix.empty() || url.empty()) return;
  std::lock_guard lock(st->mutex);
  std::string key = tab + " " + prefix;
  if (st->frame_urls.size() < 4096 || st->frame_urls.count(key)) st->frame_urls[key] = url.substr(0, 2000);
}

std::string frame_url(Context& ctx, const std::string& tab, const std::string& prefix) {
  auto st = ctx.gate();
  if (!st || prefix.empty()) return "";
  std::lock_guard lock(st->mutex);
  auto it = st->frame_urls.find(tab + " " + prefix);
  return it == st->frame_urls.end() ? "" : it->second;
}

std::optional<safety::GateMode> gate_mode(const Context& ctx) {
  if (!ctx.gate()) return std::nullopt;
  return ctx.gate()->policy->mode();
}

void restrict_to_secret_sites(Context& ctx, const std::string& tab, const safety::Url& origin, const safety::SiteList& sites) {
  if (auto st = ctx.gate()) {
    st->secrets->add(tab, origin, sites);
    limit_bound_websockets(ctx, *st);
  }
}

std::optional<std::string> secret_origin_shown(const Context& ctx, const std::string& tab, const std::string& page_url) {
  auto st = ctx.gate();
  return st ? st->secrets->shown(tab, page_url) : std::nullopt;
}

Result<void> check_navigation(Context& ctx, const std::string& function, const std::string& url, const std::string& tab) {
  auto st = ctx.gate();
  if (!st || url.empty() || url == "about:blank") return {};
  // A URL the run chose may carry its data to a page that reflects it: from here on, its pages
  // keep to the allowed sites. One the user gave carries nothing of the run's.
  if (!st->policy->given(url)) mark_acted(ctx, function + " to a URL the user did not give");
  safety::RequestFacts f;
  f.url = url;
  f.resource_type = "Document";
  f.top_level = f.run_caused = true;
  f.after_acted = st->acted;
  f.cause = "the run's " + function;
  // A tab bound by the secret's rule does not leave the secret's sites (checked before it starts,
  // so the error says how to go on).
  if (!tab.empty() && st->secrets->binds(tab))
    if (auto v = st->secrets->judge(RequestSource{tab, "", "", ""}, f)) {
      json d = decision_json(tab, f, *v);
      d["decision"] = "deny";
      d["by"] = "policy";
      record(ctx, *st, std::move(d));
      return errorf(Code::PermissionDenied, "{} was refused by the safety gate: {}. It was not opened", function, v->reason);
    }
  auto promise = std::make_shared<std::promise<bool>>();
  auto answered = promise->get_future();
  judge(ctx.shared_from_this(), st, RequestSource{}, f, [promise](bool ok) { promise->set_value(ok); });
  if (answered.get()) return {};
  std::string why;
  {
    std::lock_guard lock(st->mutex);
    auto u = safety::parse_url(url);
    for (const auto& [kind, reason] : st->refused)
      if (u && kind.find(" " + u->host) != std::string::npos) why = reason;
  }
  if (why.empty()) why = safety::decide(*st->policy, f).reason;
  return errorf(Code::PermissionDenied,
                "{} was refused by the safety gate: {}. It was not opened. Do not try another way to reach it; carry on within "
                "the allowed sites or finish with setFinal() saying what you could not do",
                function, why);
}

}  // namespace ouro::egress
