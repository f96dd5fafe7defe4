// Running JavaScript in a tab: the page engine's named functions in their isolated world (call), and
// model-written code in the page's main world with its result serialised and capped (eval_page).
#include "browser/browser_impl.h"
#include "browser/cdp_values.h"
#include "base/log.h"

#include <algorithm>
#include <atomic>

namespace ouro::browser {

namespace {

// The one piece of code a page call sends, the same for every call: it hands the function's name
// and its arguments (values) to the engine's table (page/calls.js).
constexpr std::string_view kDispatch =
    "function (name, args) {\n"
    "  if (typeof __ouroCall !== 'function') throw new Error(\"ouro's page engine is not in this document (the page may block it)\");\n"
    "  return __ouroCall(name, args);\n"
    "}";

// The tab a call went to is gone: a kind the caller can decide on.
Error target_gone(Error e) {
  if (e.code == Code::NotFound && e.cause == Cause::None) e.cause = Cause::TargetGone;
  return e;
}

}  // namespace

json page_call_params(std::string_view function, const json& args, int context, bool by_value) {
  return {{"functionDeclaration", kDispatch},
          {"executionContextId", context},
          {"arguments", json::array({json{{"value", function}}, json{{"value", args.is_array() ? args : json::array({args})}}})},
          {"returnByValue", by_value},
          {"awaitPromise", true}};
}

Result<json> Browser::call(const std::string& tab_id, std::string_view function, json args, const std::string& frame, Millis timeout) {
  auto r = frame.empty() ? m_impl->eval_in_helpers(tab_id, function, args, timeout, true)
                         : m_impl->eval_in_frame(tab_id, frame, function, args, timeout, true);
  if (!r) return tl::make_unexpected(target_gone(std::move(r.error())));
  return std::move(r->first);
}

Result<std::pair<json, std::string>> Browser::call_object(const std::string& tab_id, std::string_view function, json args, const std::string& frame,
                                                          Millis timeout) {
  auto r = frame.empty() ? m_impl->eval_in_helpers(tab_id, function, args, timeout, false)
                         : m_impl->eval_in_frame(tab_id, frame, function, args, timeout, false);
  if (!r) return tl::make_unexpected(target_gone(std::move(r.error())));
  return r;
}

Result<std::pair<json, std::string>> Browser::Impl::eval_in_helpers(const std::string& tab_id, std::string_view function, const json& args,
                                                                    Millis timeout, bool by_value) {
  Browser::Impl* m_impl = this;  // the body reads as Browser's
  auto deadline = Clock::now() + timeout;
  bool created = false;
  while (true) {
    std::string sid, frame;
    int ctx = 0;
    {
      std::unique_lock lock(m_impl->mutex);
      auto tab = TRY(m_impl->find_tab(tab_id));
      // The world appears with each new document; give it a moment before creating it ourselves.
      m_impl->wait_until(lock, std::min(deadline, Clock::now() + 200ms), [&] { return tab->closed || tab->isolated_ctx != 0; });
      if (tab->closed) return errorf(Code::NotFound, "tab {} was closed", tab_id);
      sid = tab->session_id;
      frame = tab->target_id;
      ctx = tab->isolated_ctx;
    }
    if (!ctx && !created) {
      created = true;
      auto w = m_impl->conn->call("Page.createIsolatedWorld", {{"frameId", frame}, {"worldName", kHelpersWorld}}, sid, 5s);
      if (w) {
        ctx = static_cast<int>(get_int(*w, "executionContextId", 0));
        auto installed = m_impl->conn->call("Runtime.evaluate", {{"expression", page_helpers_source()}, {"contextId", ctx}}, sid, 5s);
        // The world is kept either way: a helper call into it then fails with the page's own error.
        if (!installed) spdlog::debug("cdp: installing the page helpers in tab {} failed: {}", tab_id, installed.error().message);
        std::lock_guard lock(m_impl->mutex);
        auto tab = TRY(m_impl->find_tab(tab_id));
        if (!tab->isolated_ctx) tab->isolated_ctx = ctx;
      }
    }
    if (!ctx) {
      if (Clock::now() >= deadline)
        return errorf(Code::DeadlineExceeded, "tab {} has no document to run in (is it still loading?)", tab_id);
      continue;
    }
    auto left = std::max(Millis(100), std::chrono::duration_cast<Millis>(deadline - Clock::now()));
    auto r = m_impl->conn->call("Runtime.callFunctionOn", page_call_params(function, args, ctx, by_value), sid, left);
    if (!r) {
      if (r.error().cause == Cause::ContextGone && Clock::now() < deadline) {
        std::lock_guard lock(m_impl->mutex);
        if (auto tab = m_impl->find_tab(tab_id); tab && (*tab)->isolated_ctx == ctx) (*tab)->isolated_ctx = 0;
        continue;
      }
      return tl::make_unexpected(r.error());
    }
    if (r->contains("exceptionDetails")) {
      std::string text = exception_text(get_field(*r, "exceptionDetails"));
      // The page's exception says its document went away under the script (v8's text).
      bool destroyed = text.find("Execution context was destroyed") != std::string::npos;
      if (destroyed && Clock::now() < deadline) continue;
      auto nl = text.find("\n    at ");
      return tl::make_unexpected(Error{Code::InvalidArgument, text.substr(0, nl), nullptr, destroyed ? Cause::ContextGone : Cause::None});
    }
    const json& res = get_field(*r, "result");
    if (!by_value) return std::pair<json, std::string>{res, sid};
    return std::pair<json, std::string>{res.contains("value") ? res["value"] : json(nullptr), sid};
  }
}

Result<json> Browser::eval_page(const std::string& tab_id, const std::string& code, Millis timeout, size_t cap) {
  std::string sid;
  {
    std::lock_guard lock(m_impl->mutex);
    sid = TRY(m_impl->find_tab(tab_id))->session_id;
  }
  // Tagged, so the egress gate knows the requests this code sends (egress.h); the tag comes last,
  // after any sourceURL the code names itself.
  static std::atomic<uint64_t> next_script{1};
  std::string tag = "\n//# sourceURL=" + std::string(kExecTag) + tab_id + "/" + std::to_string(next_script++);
  auto run = [&](const std::string& expression, bool repl) {
    json params = {{"expression", expression + tag}, {"awaitPromise", true}, {"returnByValue", false}, {"userGesture", true},
                   {"timeout", timeout.count()}, {"replMode", repl}, {"objectGroup", "ouro-exec"}};
    return m_impl->conn->call("Runtime.evaluate", std::move(params), sid, timeout + 500ms);
  };
  auto exception_of = [](const json& reply) { return exception_text(get_field(reply, "exceptionDetails")); };
  // Statements or an expression, completion value returned, top-level await allowed (REPL mode,
  // inside a block so declarations do not leak into the page); a body with `return` falls back
  // to an async function.
  auto started = Clock::now();
  auto r = run("{\n" + code + "\n}", true);
  if (r && r->contains("exceptionDetails")) {
    std::string text = exception_of(*r);
    if (text.rfind("SyntaxError", 0) == 0) {
      auto fn = run("(async () => {\n" + code + "\n})()", false);
      if (fn && (!fn->contains("exceptionDetails") || exception_of(*fn).rfind("SyntaxError", 0) != 0)) r = std::move(fn);
    }
  }
  if (!r) {
    // Runtime.evaluate's own timeout terminates the script and answers "Internal error".
    if (r.error().code == Code::DeadlineExceeded || Clock::now() - started >= timeout * 9 / 10)
      return errorf(Code::DeadlineExceeded, "execInTab on {} was stopped after {} ms (the page's code did not finish)", tab_id, timeout.count());
    if (r.error().cause == Cause::PageNavigated)
      return tl::make_unexpected(Error{Code::Aborted, fmt::format("execInTab on {}: the page navigated away while the code was running", tab_id),
                                       nullptr, Cause::PageNavigated});
    return tl::make_unexpected(r.error());
  }
  if (r->contains("exceptionDetails")) {
    std::string text = exception_of(*r);
    std::string msg = text.substr(0, text.find("\n    at "));
    if (msg.find("Execution was terminated") != std::string::npos || msg.find("terminated") != std::string::npos)
      return errorf(Code::DeadlineExceeded, "execInTab on {} was stopped after {} ms", tab_id, timeout.count());
    return make_error(Code::InvalidArgument, msg);
  }
  // REPL mode awaits the script's own completion, not a promise that is its value: await that too.
  for (int hops = 0; hops < 4; ++hops) {
    const json& result = get_field(*r, "result");
    if (get_str(result, "subtype") != "promise" || !result.contains("objectId")) break;
    auto left = std::max(Millis(100), timeout - std::chrono::duration_cast<Millis>(Clock::now() - started));
    auto awaited = m_impl->conn->call("Runtime.awaitPromise", {{"promiseObjectId", get_field(result, "objectId")}, {"returnByValue", false}}, sid, left);
    if (!awaited) {
      if (awaited.error().code == Code::DeadlineExceeded)
        return errorf(Code::DeadlineExceeded, "execInTab on {}: the promise did not settle within {} ms", tab_id, timeout.count());
      return tl::make_unexpected(awaited.error());
    }
    if (awaited->contains("exceptionDetails")) {
      std::string text = exception_of(*awaited);
      return make_error(Code::InvalidArgument, text.substr(0, text.find("\n    at ")));
    }
    r = std::move(awaited);
  }
  const json& obj = get_field(*r, "result");
  if (get_str(obj, "type") == "undefined") return json(json::value_t::discarded);
  if (!obj.contains("objectId")) {
    if (obj.contains("unserializableValue")) return json(get_field(obj, "unserializableValue"));
    json v = get_field(obj, "value");
    if (v.is_string() && v.get_ref<const std::string&>().size() > cap) {
      const std::string& s = v.get_ref<const std::string&>();
      return json{{"__truncated", true}, {"originalLength", s.size()}, {"data", s.substr(0, cap)},
                  {"hint", "Result truncated. Use a more specific selector to narrow results."}};
    }
    return v;
  }
  std::string object_id = get_str(obj, "objectId");
  auto ser = m_impl->conn->call("Runtime.callFunctionOn",
                                {{"functionDeclaration", std::string(embedded::serialize_js)},
                                 {"objectId", object_id},
                                 {"arguments", json::array({json{{"value", cap}}})},
                                 {"returnByValue", true}},
                                sid, timeout);
  m_impl->conn->send("Runtime.releaseObjectGroup", {{"objectGroup", "ouro-exec"}}, sid, 5s, [](Result<json>) {});
  if (!ser) return tl::make_unexpected(ser.error());
  if (ser->contains("exceptionDetails")) return make_error(Code::Internal, "cannot serialise the result: " + exception_of(*ser));
  auto parsed = TRY(parse_json(get_str(get_field(*ser, "result"), "value", "null"), "execInTab result"));
  if (!parsed.is_object() || parsed.contains("undefined")) return json(json::value_t::discarded);
  return get_field(parsed, "value");
}

}  // namespace ouro::browser
