#include "runs/resume.h"
#include "base/clock.h"

#include <boost/url/parse.hpp>

#include "actions/host.h"
#include "browser/contexts.h"
#include "egress/gate.h"
#include "host/context.h"
#include "jsrt/summary.h"
#include "safety/known_secrets.h"
#include "safety/secrets.h"
#include "session/session.h"
#include "store/run_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

namespace ouro::runs {

namespace {

// "https://example.com:8443" for an http(s) URL (RFC 6454's serialization, the DOMStorage
// securityOrigin); "" for anything else.
std::string origin_of(const std::string& url) {
  auto u = boost::urls::parse_uri(url);
  if (!u || (u->scheme() != "http" && u->scheme() != "https") || !u->has_authority() || u->encoded_host().empty()) return "";
  std::string out = std::string(u->scheme()) + "://" + std::string(u->encoded_host_and_port());
  return out;
}

// Past these an origin's localStorage is not kept: restoring it is a DevTools call an item.
constexpr size_t kStoragePerOrigin = 1 << 20, kStorageInAll = 4 << 20, kStorageItems = 2000;

}  // namespace

namespace {

Result<agent::RunState> fold_events(store::Database& db, const std::string& run_id, const std::string& initial_task, int64_t& last_seq,
                                    int until_checkpoint = -1) {
  agent::RunState state;
  state.task = initial_task;
  constexpr int kPage = 2000;
  for (int64_t after = 0;;) {
    auto page = TRY(db.events(run_id, after, kPage));
    for (const auto& e : page) {
      after = last_seq = e.seq;
      json data = parse_json(e.data).value_or(json::object());
      if (!data.is_object()) data = json::object();  // a damaged row reads as one without data
      agent::apply_event(state, e.type, data);
      if (until_checkpoint >= 0 && e.type == "checkpoint")
        if (auto it = data.find("iteration"); it != data.end() && it->is_number_integer() && it->get<int64_t>() == until_checkpoint) return state;
    }
    if (page.size() < static_cast<size_t>(kPage)) break;
  }
  return state;
}

}  // namespace

Result<agent::RunState> rebuild_state(store::Database& db, const std::string& run_id, const std::string& initial_task,
                                      int until_checkpoint) {
  int64_t last = 0;
  return fold_events(db, run_id, initial_task, last, until_checkpoint);
}

Result<ResumePoint> load_resume_point(store::Database& db, const std::string& run_id, const std::vector<State>& states) {
  auto row = TRY(db.get_run(run_id));
  if (!row) return errorf(Code::NotFound, "no run '{}'", run_id.substr(0, 60));
  if (std::find(states.begin(), states.end(), row->state) == states.end())
    return errorf(Code::FailedPrecondition,
                  "run {} is {}: only an interrupted run (one whose ouro stopped while it worked) can be resumed{}", run_id, name(row->state),
                  in_progress(row->state) ? "" : "; send a message to continue a finished one");
  ResumePoint p;
  p.row = *row;
  agent::RunState folded = TRY(fold_events(db, run_id, row->task, p.last_seq));
  if (auto saved = TRY(store::load_run_checkpoint(db, run_id))) {
    p.state = agent::RunState::from_json(parse_json(saved->state).value_or(json::object()));
    p.env = saved->env;
    p.cookies = parse_json(saved->cookies).value_or(json::array());
    p.storage = parse_json(saved->storage).value_or(json::object());
    p.provenance = parse_json(saved->provenance).value_or(json::object());
    p.from_checkpoint = true;
  } else {
    // Cut short before its first checkpoint: the turn starts over, from the events' state.
    p.state = std::move(folded);
    while (!p.state.history.empty() && p.state.history.back().number > p.state.last_iteration) p.state.history.pop_back();
    if (auto env = TRY(db.checkpoint(run_id))) p.env = *env;
  }
  if (p.state.ended)
    return errorf(Code::FailedPrecondition, "run {} had finished its turn when ouro stopped; send a message to continue it", run_id);
  return p;
}

Result<std::string> restore_browser(session::Session& session, const ResumePoint& point, const std::string& reason) {
  const std::string why = reason.empty() ? "ouro stopped while this run worked and has started again" : reason;
  if (auto policy = egress::gate_policy(session.host().context())) policy->provenance().restore(point.provenance);
  std::string note = fmt::format(
      "{}. Iterations 1–{} are done (their history is above); iteration {} "
      "was cut short and starts over now. env is as it was after iteration {}.",
      why, point.state.last_iteration, point.state.last_iteration + 1, point.state.last_iteration);
  if (!point.from_checkpoint) note = why + "; the turn starts over.";
  // What a restart cannot bring back (functions, class instances): named, with stand-ins in place.
  if (auto env = parse_json(point.env, "the checkpoint's env"); env)
    if (auto lost = jsrt::lost_values(*env); !lost.empty())
      note += " Not restorable (stand-ins are in their place; define them again): " + jsrt::describe_lost(lost) + ".";
  // A run that worked before it stopped had acted on its pages (their cookies and storage, which
  // come back now, hold what it put there): it goes on held to its allowed sites from the start.
  if (point.state.last_iteration > 0) egress::mark_acted(session.host().context(), "resumed after it had worked");
  const std::string& context = session.context();
  if (!context.empty() && point.cookies.is_array() && !point.cookies.empty()) {
    auto set = session.browser().contexts().set_cookies(context, point.cookies, std::chrono::seconds(10));
    if (!set) note += " The site logins (cookies) could not be restored: " + set.error().message + ".";
    else if (*set > 0) note += fmt::format(" The session's {} cookies are restored.", *set);
  }
  // The tabs, the active one first (open_urls makes the first active).
  std::vector<std::pair<std::string, std::string>> tabs;  // old id, url
  for (const auto& t : point.state.tabs) {
    std::string url = get_str(t, "url");
    if (url.empty() || url == "about:blank") continue;
    tabs.emplace_back(get_str(t, "id"), url);
  }
  std::stable_partition(tabs.begin(), tabs.end(), [&](const auto& t) { return t.first == point.state.active_tab; });
  if (tabs.empty()) return note;
  std::vector<std::string> urls;
  for (const auto& t : tabs) urls.push_back(t.second);
  auto before = session.tabs();
  if (auto opened = session.open_urls(urls); !opened) return note + " Its tabs could not be reopened: " + opened.error().message + ".";
  auto after = session.tabs();
  // The new tabs, in the order they were opened (the first may be the context's first tab).
  std::vector<std::string> fresh;
  std::string active = session.active_tab();
  if (!active.empty()) fresh.push_back(active);
  for (const auto& t : after) {
    bool old = std::any_of(before.begin(), before.end(), [&](const auto& b) { return b.id == t.id; });
    if (!old && t.id != active) fresh.push_back(t.id);
  }
  std::string moved;
  for (size_t i = 0; i < tabs.size() && i < fresh.size(); ++i)
    if (tabs[i].first != fresh[i]) moved += fmt::format("{}{} is now {}", moved.empty() ? "" : ", ", tabs[i].first, fresh[i]);
  // localStorage: put back through the page's own origin, then the page loaded again so it
  // starts with it (as it did before the stop).
  if (!context.empty() && point.storage.is_object() && !point.storage.empty()) {
    size_t restored = 0;
    auto& browser = session.browser();
    std::set<std::string> done;  // each origin once: its first tab carries it
    for (const auto& t : session.tabs()) {
      std::string origin = origin_of(t.url);
      auto saved = point.storage.find(origin);
      if (origin.empty() || saved == point.storage.end() || !saved->is_array() || saved->empty() || !done.insert(origin).second) continue;
      json id = {{"securityOrigin", origin}, {"isLocalStorage", true}};
      bool ok = static_cast<bool>(browser.send(t.id, "DOMStorage.enable", json::object(), std::chrono::seconds(5)));
      for (const auto& item : *saved) {
        if (!ok) break;
        if (!item.is_array() || item.size() != 2 || !item[0].is_string() || !item[1].is_string()) continue;
        ok = static_cast<bool>(browser.send(t.id, "DOMStorage.setDOMStorageItem", {{"storageId", id}, {"key", item[0]}, {"value", item[1]}},
                                            std::chrono::seconds(5)));
      }
      if (ok) ok = static_cast<bool>(browser.navigate(t.id, t.url));
      if (!ok) note += " The localStorage of " + origin + " could not be put back.";
      else ++restored;
    }
    if (restored > 0) note += fmt::format(" The localStorage of {} site{} is restored.", restored, restored == 1 ? "" : "s");
  }
  note += fmt::format(" Its {} tab{} reopened at the URLs of the checkpoint (pages reloaded: forms are empty again)", tabs.size(),
                      tabs.size() == 1 ? " is" : "s are");
  note += moved.empty() ? "." : "; tab ids changed: " + moved + " — use the new ids (env may hold the old ones).";
  return note;
}

Result<void> store_checkpoint(store::Database& db, session::Session& session, const std::string& run_id, int iteration,
                              const std::string& state, const std::string& env) {
  store::RunCheckpoint c;
  c.iteration = iteration;
  c.state = state;
  c.env = env;
  // A context of the run's own: its cookies go with the checkpoint (the user's own context keeps
  // its cookies in the profile).
  if (!session.context().empty()) {
    if (auto got = session.browser().contexts().cookies(session.context(), std::chrono::seconds(5)); got && got->is_array()) c.cookies = dump_json(*got);
  }
  // …and its open pages' localStorage, read through DevTools (no page script runs for it).
  if (!session.context().empty()) {
    json storage = json::object();
    size_t total = 0;
    for (const auto& t : session.tabs()) {
      std::string origin = origin_of(t.url);
      if (origin.empty() || storage.contains(origin)) continue;
      json id = {{"securityOrigin", origin}, {"isLocalStorage", true}};
      if (!session.browser().send(t.id, "DOMStorage.enable", json::object(), std::chrono::seconds(3))) continue;
      auto items = session.browser().send(t.id, "DOMStorage.getDOMStorageItems", {{"storageId", id}}, std::chrono::seconds(3));
      if (!items || !items->contains("entries") || !(*items)["entries"].is_array() || (*items)["entries"].empty()) continue;
      size_t bytes = dump_json((*items)["entries"]).size();
      if ((*items)["entries"].size() > kStorageItems || bytes > kStoragePerOrigin || total + bytes > kStorageInAll) continue;
      total += bytes;
      storage[origin] = (*items)["entries"];
    }
    c.storage = dump_json(storage);
  }
  // Where its values came from: a resumed run still knows a page's words from the user's. The
  // text noted was masked for the run's secrets already; the pages' URLs were not (a form sent
  // by GET carries what was typed): masked here, as everything stored is.
  if (auto policy = egress::gate_policy(session.host().context())) {
    json record = policy->provenance().to_json();
    const auto& ctx = session.host().context();
    if (ctx.secrets() && !ctx.secrets()->empty()) ctx.secrets()->scrub(record);
    if (ctx.known_secrets()) ctx.known_secrets()->scrub(record);
    c.provenance = dump_json(record);
  }
  // A browser that went while these were read gave nothing, not "no cookies, no storage": the
  // previous checkpoint stays, and the run goes on (or fails over) from there.
  if (auto gone = session.browser().dead())
    return errorf(Code::Unavailable, "checkpoint {} not saved: the browser went while its cookies and storage were read ({})", iteration,
                  gone->message);
  c.saved_at = wall_ms();
  return store::save_run_checkpoint(db, run_id, c);
}

}  // namespace ouro::runs
