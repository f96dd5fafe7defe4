#include "actions/host.h"

#include "egress/gate.h"
#include "egress/writes.h"

#include "egress/holds.h"
#include "actions/fit.h"
#include "actions/impl.h"
#include "actions/registry.h"
#include "base/log.h"
#include "base/text.h"
#include "browser/browser.h"
#include "browser/contexts.h"
#include "browser/egress_control.h"
#include "browser/frames.h"
#include "browser/shared_tabs.h"
#include "safety/secrets.h"

#include <atomic>
#include <future>

namespace ouro::actions {

using host::Context;
using host::Limits;

namespace {
// Calls waiting for a pool thread; model code that starts more at once is told to batch.
constexpr size_t kMaxQueuedCalls = 512;

// Who a host is when its session names no owner: "session N", N counting this process's hosts.
std::string name_of_host(std::string owner) {
  static std::atomic<int> hosts{0};
  return owner.empty() ? "session " + std::to_string(++hosts) : owner;
}
}  // namespace

Host::Host(browser::Browser& browser, store::Database* db, Limits limits, std::string browser_context, std::string owner, bool shared_tabs,
           size_t threads)
    : m_ctx(std::make_shared<Context>(browser, db, limits, std::move(browser_context), name_of_host(std::move(owner)), shared_tabs)),
      m_pool(std::make_unique<ThreadPool>(threads, kMaxQueuedCalls)) {
  std::weak_ptr<Context> weak = m_ctx;
  browser.egress().set_pause_handler(m_ctx->owner(), [weak](const std::string& tab, const json& params) {
    if (auto ctx = weak.lock()) impl::on_request_paused(*ctx, tab, params);
  });
}

Host::~Host() {
  // The user's tabs it held (and those it opened) stay open, out of its gate unless it acted on
  // them; its own tabs are stopped (blanked, or crashed) before the gate goes (egress/gate.h leave_tabs).
  egress::leave_tabs(*m_ctx);
  m_ctx->browser().egress().set_pause_handler(m_ctx->owner(), nullptr);
  m_pool.reset();
}

namespace {
std::string clip_args(const json& args) { return clip_head(dump_json(args), 200); }
}  // namespace

Host::Outcome Host::run(const std::string& function, const json& given) {
  const Capability* cap = find(function);
  if (!cap || cap->where != Where::Host || !cap->impl) return {errorf(Code::NotFound, "'{}' is not a host function", function), {}};
  if (auto checked = check_args(*cap, given); !checked) return {tl::make_unexpected(checked.error()), {}};
  // The user's before_tool_call hooks may refuse the call or change its arguments (checked again).
  json args = given;
  if (auto hooks = m_ctx->hooks(); hooks && hooks->before_call) {
    auto decided = hooks->before_call(function, given);
    if (!decided) return {tl::make_unexpected(decided.error()), {}};
    if (*decided != given) {
      args = std::move(*decided);
      if (auto checked = check_args(*cap, args); !checked)
        return {errorf(Code::InvalidArgument, "{}: a before_tool_call hook changed its arguments into ones it does not take: {}", function,
                       checked.error().message),
                {}};
    }
  }
  if (auto allowed = check_permission(*cap, args); !allowed) return {tl::make_unexpected(allowed.error()), {}};
  std::string tab;
  if (!cap->params.empty() && cap->params[0].name == "tabId" && !args.empty() && args[0].is_string()) tab = args[0].get<std::string>();
  if (!tab.empty()) {
    auto where = m_ctx->browser().contexts().of_tab(tab);
    if ((where && *where != m_ctx->browser_context()) || (!m_ctx->sees_hidden_tabs() && m_ctx->browser().shared().hidden(tab))) {
      std::string mine;
      for (const auto& t : m_ctx->browser().tabs(m_ctx->browser_context())) mine += (mine.empty() ? "" : ", ") + t.id;
      return {errorf(Code::NotFound, "{}: no tab '{}' (open tabs: {})", function, tab, mine.empty() ? "none" : mine), {}};
    }
  }
  // In the user's own browser a run acts only on the tabs it holds (claims.h).
  if (!tab.empty() && m_ctx->shared_tabs() && acts_on_tab(*cap))
    if (auto held = egress::hold_tab(*m_ctx, tab, function); !held) return {tl::make_unexpected(held.error()), {}};
  // The exception boundary of every capability: a throw (a JSON type mismatch deep in an
  // implementation, a bad_alloc) is this call's error, never the process's end.
  // From the first call that puts the run's data or choices into a page, every tab the run holds
  // keeps to its allowed sites (safety/gate.h); marked before the call acts. What a tab sends
  // while an action works is the action's (a write the user approved with it is not asked again).
  // What it writes is traced to the pages it came from before it acts (egress/writes.h).
  // A call whose selector addresses a cross-origin frame ("f2e5") reads or writes that frame.
  std::string frame;
  for (size_t i = 1; i < cap->params.size() && i < args.size() && frame.empty(); ++i)
    if (cap->params[i].name == "selector" && args[i].is_string()) frame = browser::Frames::frame_of(args[i].get<std::string>());
  if (!frame.empty() && m_ctx->gate()) {
    for (size_t i = 1; i < cap->params.size() && i < args.size(); ++i)
      if (cap->params[i].name == "selector" && args[i].is_string()) egress::learn_frame_url(*m_ctx, tab, frame, args[i].get<std::string>());
  }
  if (!cap->writes.empty() && m_ctx->gate()) {
    std::vector<std::pair<std::string, std::string>> values;
    for (size_t i = 0; i < cap->params.size() && i < args.size(); ++i)
      if (std::find(cap->writes.begin(), cap->writes.end(), cap->params[i].name) != cap->writes.end())
        for (auto& text : egress::written_strings(args[i])) values.emplace_back(cap->params[i].name, std::move(text));
    if (auto traced = egress::check_write(*m_ctx, function, tab, values, frame); !traced) return {tl::make_unexpected(traced.error()), {}};
  }
  if (cap->changes_page || !cap->writes.empty()) ++m_actions;
  int activity = 0;
  if (cap->changes_page) egress::mark_acted(*m_ctx, function);
  if (!tab.empty() && m_ctx->gate() && cap->changes_page) activity = m_ctx->browser().egress().begin_activity(tab, function);
  Result<json> r = make_error(Code::Internal, "");
  try {
    r = cap->impl(*m_ctx, args);
  } catch (const std::exception& e) {
    r = errorf(Code::Internal, "{}: failed inside ouro ({}); the arguments were {}", function, e.what(), clip_args(args));
  } catch (...) {
    r = errorf(Code::Internal, "{}: failed inside ouro", function);
  }
  if (activity) m_ctx->browser().egress().end_activity(tab, activity);
  if (!tab.empty()) {
    if (!r) {
      // Added here only (capabilities call each other below this boundary): a page's own
      // exception text that says "[PAGE NAVIGATED]" does not keep the real note out.
      bool went_away = r.error().cause == Cause::PageNavigated || r.error().cause == Cause::ContextGone;
      if (auto note = m_ctx->browser().navigation_note(tab, went_away ? std::chrono::milliseconds(1500) : std::chrono::milliseconds(0)))
        r.error().message += "\n" + *note;
    } else if (cap->risk != Risk::Navigate) {
      m_ctx->browser().note_interaction(tab);
    }
  }
  if (!r) {
    // Messages name the call; prefix it where the implementation did not.
    if (r.error().message.rfind(function, 0) != 0) r.error().message = function + ": " + r.error().message;
    // Messages echo selectors, URLs and page exceptions, which can be megabytes.
    r.error().message = clip_text(r.error().message, kMaxErrorChars);
    if (m_ctx->secrets()) r.error().message = m_ctx->secrets()->scrub_text(r.error().message);
    return {std::move(r), {}};
  }
  // Nothing a secret was typed into can give its value back (a field read, an echoing page).
  if (m_ctx->secrets() && !m_ctx->secrets()->empty()) m_ctx->secrets()->scrub(*r);
  // Where the answer came from, for the values the run writes later (egress/writes.h).
  if (m_ctx->gate()) {
    if (cap->answers == Capability::Answers::OverTheRunsData) egress::note_derived(*m_ctx, *r, args);
    else if (cap->answers == Capability::Answers::TheUsersWords && r->is_string()) egress::note_user_words(*m_ctx, r->get<std::string>());
    else if (!tab.empty() && cap->answers == Capability::Answers::AsItsTab)
      egress::note_page_data(*m_ctx, tab, *r, frame);  // a read of a frame gave that frame's text
  }
  // Typed results keep their type when they are too large (actions/fit.h).
  Fitted fitted = fit_result(std::move(*r), result_shape(*cap), m_ctx->limits().result_cap);
  if (fitted.truncated) {
    std::lock_guard lock(m_notes_mutex);
    if (m_notes.size() < 20) m_notes.push_back(truncation_note(function, *fitted.truncated));
  }
  return {std::move(fitted.value), std::move(fitted.truncated)};
}

Result<void> Host::check_permission(const Capability& cap, const json& args) { return impl::permit(*m_ctx, cap, args); }

Result<void> impl::permit(Context& ctx, const Capability& cap, const json& args) {
  auto* m_ctx = &ctx;
  Permission level = cap.permission;
  if (auto o = m_ctx->permission_overrides().find(cap.name); o != m_ctx->permission_overrides().end()) level = static_cast<Permission>(o->second);
  if (level == Permission::Auto) return {};
  if (level == Permission::Deny)
    return errorf(Code::PermissionDenied, "{}: not permitted in this run (its permission is 'deny'); do without it or report back with setFinal()",
                  cap.name);
  auto hooks = m_ctx->hooks();
  if (!hooks || !hooks->confirm) return {};  // a person drives the REPL: they are the one to ask
  json request = {{"action", cap.name}, {"reason", "it needs your permission (" + cap.name + " is set to 'ask')"}, {"arguments", redact(clip_args(args))}};
  if (!hooks->confirm(request))
    return errorf(Code::PermissionDenied, "{} was denied by the user; do not retry it — find another way or report back with setFinal()", cap.name);
  return {};
}

Result<json> impl::call_capability(Context& ctx, const char* name, json args) {
  const Capability* cap = find(name);
  if (!cap || !cap->impl) return errorf(Code::Internal, "capability {} is missing", name);
  TRY(impl::permit(ctx, *cap, args));
  return cap->impl(ctx, args);
}

std::vector<std::string> Host::take_notes() {
  std::lock_guard lock(m_notes_mutex);
  return std::exchange(m_notes, {});
}

void Host::call(const std::string& function, json args, std::function<void(Result<json>)> reply) {
  auto shared_reply = std::make_shared<std::function<void(Result<json>)>>(std::move(reply));
  auto job = [this, function, args, shared_reply] {
    // The REPL waits for this reply: whatever goes wrong after the capability's own boundary
    // (the checks of its result, its fitting) is an error value, never a call left unanswered.
    auto failed = [&](const std::string& why) {
      std::string message = fmt::format("{}: failed inside ouro{}", function, why.empty() ? "" : " (" + why + ")");
      if (m_ctx->secrets()) message = m_ctx->secrets()->scrub_text(message);
      return Outcome{make_error(Code::Internal, message), std::nullopt};
    };
    Outcome o;
    try {
      o = run(function, args);
    } catch (const std::exception& e) {
      o = failed(e.what());
    } catch (...) {
      o = failed("");
    }
    // For the REPL: a cut value travels in an envelope the prelude opens, attaching the
    // truncation as a non-enumerable `.truncated`; a value that happens to hold the envelope's
    // key is wrapped too, so the prelude never mistakes page data for an envelope.
    if (o.result && (o.truncated || (o.result->is_object() && o.result->contains("$ouroCapped"))))
      o.result = json{{"$ouroCapped", o.truncated ? *o.truncated : json(nullptr)}, {"value", std::move(*o.result)}};
    (*shared_reply)(std::move(o.result));
  };
  auto too_many = [&] {
    (*shared_reply)(errorf(Code::ResourceExhausted, "{}: more than {} calls are waiting already; await some before starting more", function,
                           kMaxQueuedCalls));
  };
  // Actions on one tab run one after another in the order they were called (Promise.all of
  // clicks on a tab included); on different tabs, and reads, they run at once. Closing a
  // tab does not wait its turn: it ends what waits there.
  const Capability* cap = find(function);
  if (cap && acts_on_tab(*cap) && cap->name != "closeTab" && !cap->params.empty() && cap->params[0].name == "tabId" && !args.empty() && args[0].is_string()) {
    std::string tab = args[0].get<std::string>();
    std::lock_guard lock(m_order_mutex);
    auto& q = m_order[tab];
    if (q.jobs.size() >= kMaxQueuedCalls) return too_many();
    q.jobs.push_back(std::move(job));
    if (q.running) return;
    q.running = true;
    if (!m_pool->try_post([this, tab] { drain(tab); })) {
      q.running = false;
      q.jobs.pop_back();
      return too_many();
    }
    return;
  }
  if (!m_pool->try_post(std::move(job))) too_many();
}

void Host::drain(const std::string& tab) {
  while (true) {
    std::function<void()> next;
    {
      std::lock_guard lock(m_order_mutex);
      auto it = m_order.find(tab);
      if (it == m_order.end() || it->second.jobs.empty()) {
        if (it != m_order.end()) m_order.erase(it);
        return;
      }
      next = std::move(it->second.jobs.front());
      it->second.jobs.pop_front();
    }
    next();
  }
}

Result<json> Host::call_sync(const std::string& function, json args) {
  auto p = std::make_shared<std::promise<Result<json>>>();
  auto f = p->get_future();
  if (!m_pool->try_post([this, function, args = std::move(args), p] { p->set_value(run(function, args).result); }))
    return errorf(Code::ResourceExhausted, "{}: too many calls are waiting already", function);
  return f.get();
}

}  // namespace ouro::actions
