// Session, storage, network and console introspection (docs/reference/api.md).
#include "actions/impl.h"
#include "base/steady_clock.h"
#include "base/base64.h"
#include "browser/browser.h"
#include "browser/contexts.h"
#include "browser/egress_control.h"
#include "browser/records.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace ouro::actions::impl {

namespace {

bool is_tab_id(const json& v) { return v.is_string() && v.get<std::string>().size() > 1 && v.get<std::string>()[0] == 't'; }

// HttpOnly cookies are the session's keys, which pages themselves cannot read: their values stay
// out of the model's reach unless the user says otherwise (--reveal-httponly-cookies).
json cookie_json(const json& c, bool reveal_http_only) {
  bool hidden = c.value("httpOnly", false) && !reveal_http_only;
  return {{"name", c.value("name", "")},       {"value", hidden ? json("[REDACTED: HttpOnly]") : json(c.value("value", ""))},       {"domain", c.value("domain", "")},
          {"path", c.value("path", "/")},      {"expires", c.value("expires", -1.0)}, {"httpOnly", c.value("httpOnly", false)},
          {"secure", c.value("secure", false)}, {"sameSite", c.value("sameSite", "")}, {"session", c.value("session", false)}};
}

bool domain_matches(const std::string& domain, const std::string& want) {
  std::string d = domain[0] == '.' ? domain.substr(1) : domain, w = want[0] == '.' ? want.substr(1) : want;
  return d == w || (d.size() > w.size() && d.compare(d.size() - w.size(), w.size(), w) == 0 && d[d.size() - w.size() - 1] == '.');
}

// "*" matches any run of characters; a pattern without "*" matches as a substring. Iterative
// (std::regex would recurse once per character of a long data: URL).
bool url_matches(const std::string& url, const std::string& pattern) {
  if (pattern.empty() || pattern == "*") return true;
  if (pattern.find('*') == std::string::npos) return url.find(pattern) != std::string::npos;
  size_t u = 0, p = 0, star = std::string::npos, mark = 0;
  while (u < url.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = u;
    } else if (p < pattern.size() && pattern[p] == url[u]) {
      ++p;
      ++u;
    } else if (star != std::string::npos) {
      p = star + 1;
      u = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

json capped(const std::string& text, size_t cap) {
  if (text.size() <= cap) return json(text);
  return json{{"__truncated", true}, {"originalLength", text.size()}, {"data", text.substr(0, cap)},
              {"hint", "Result truncated. Parse the part you need inside the page with execInTab instead."}};
}

}  // namespace

Result<json> get_cookies(Context& ctx, const json& args) {
  json filter = args.size() > 1 ? args[1] : (args.size() == 1 && args[0].is_object() ? args[0] : json());
  json raw;
  if (!args.empty() && is_tab_id(args[0])) {
    auto info = TRY(ctx.browser().tab_info(args[0].get<std::string>()));
    raw = TRY(ctx.browser().send(info.id, "Network.getCookies", {{"urls", json::array({info.url})}}, ctx.limits().exec_timeout))["cookies"];
  } else {
    raw = TRY(ctx.browser().contexts().cookies(ctx.browser_context(), ctx.limits().exec_timeout));
  }
  json out = json::array();
  for (const auto& c : raw) {
    if (filter.is_object()) {
      if (filter.contains("name") && filter["name"] != c.value("name", "")) continue;
      if (filter.contains("domain") && filter["domain"].is_string() && !domain_matches(c.value("domain", ""), filter["domain"])) continue;
      if (filter.contains("path") && filter["path"] != c.value("path", "")) continue;
    }
    out.push_back(cookie_json(c, ctx.limits().reveal_http_only_cookies));
  }
  return out;
}

Result<json> set_cookie(Context& ctx, const json& args) {
  json c = args.empty() ? json() : args[0];
  if (!c.is_object() || !c.contains("name") || !c.contains("value"))
    return make_error(Code::InvalidArgument, "setCookie(cookie): cookie needs at least {name, value} and a url or domain");
  json param = {{"name", c["name"]}, {"value", c["value"].is_string() ? c["value"].get<std::string>() : c["value"].dump()}};
  for (const char* k : {"url", "domain", "path", "secure", "httpOnly", "sameSite", "expires"})
    if (c.contains(k)) param[k] = c[k];
  if (!param.contains("url") && !param.contains("domain")) {
    std::string active = ctx.browser().active_tab(ctx.browser_context());
    auto info = ctx.browser().tab_info(active);
    if (!info || info->url.rfind("http", 0) != 0)
      return make_error(Code::InvalidArgument, "setCookie(cookie): give the cookie a url or domain (the active tab has no web page)");
    param["url"] = info->url;
  }
  TRY(ctx.browser().contexts().set_cookies(ctx.browser_context(), json::array({param}), ctx.limits().exec_timeout));
  return json(true);
}

Result<json> get_local_storage(Context& ctx, const json& args) {
  json key = args.size() > 1 ? args[1] : json();
  return ctx.browser().call(arg_string(args, 0), "storage", json::array({"local", key}), "", ctx.limits().exec_timeout);
}

Result<json> get_session_storage(Context& ctx, const json& args) {
  json key = args.size() > 1 ? args[1] : json();
  return ctx.browser().call(arg_string(args, 0), "storage", json::array({"session", key}), "", ctx.limits().exec_timeout);
}

Result<json> clear_storage(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0), type = args.size() > 1 && args[1].is_string() ? args[1].get<std::string>() : "all";
  if (type != "all" && type != "local" && type != "session" && type != "cookies")
    return errorf(Code::InvalidArgument, "clearStorage(tabId, type): type must be local, session, cookies or all (got '{}')", type);
  json cleared = json::array();
  if (type != "cookies") {
    TRY(ctx.browser().call(tab, "clear", json::array({type}), "", ctx.limits().exec_timeout));
    if (type == "all") cleared = {"local", "session"};
    else cleared.push_back(type);
  }
  if (type == "cookies" || type == "all") {
    auto info = TRY(ctx.browser().tab_info(tab));
    auto cookies = TRY(ctx.browser().send(tab, "Network.getCookies", {{"urls", json::array({info.url})}}, ctx.limits().exec_timeout));
    for (const auto& c : cookies["cookies"])
      TRY(ctx.browser().send(tab, "Network.deleteCookies", {{"name", c["name"]}, {"domain", c["domain"]}, {"path", c["path"]}}, ctx.limits().exec_timeout));
    cleared.push_back("cookies");
  }
  return json{{"cleared", cleared}};
}

Result<json> get_recent_requests(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0);
  TRY(ctx.browser().tab_info(tab));
  json f = args.size() > 1 && args[1].is_object() ? args[1] : json::object();
  std::string type = f.value("type", "");
  size_t limit = f.contains("limit") && f["limit"].is_number() ? f["limit"].get<size_t>() : 100;
  json out = json::array();
  for (const auto& r : ctx.browser().records().requests(tab)) {
    if (type.empty() ? (r.type != "XHR" && r.type != "Fetch") : (type != "all" && r.type != type)) continue;
    if (f.contains("url") && f["url"].is_string() && !url_matches(r.url, f["url"])) continue;
    if (f.contains("method") && f["method"] != r.method) continue;
    if (f.contains("status") && f["status"].is_number() && f["status"].get<int>() != r.status) continue;
    out.push_back(r.to_json());
  }
  if (out.size() > limit) out.erase(out.begin(), out.begin() + static_cast<long>(out.size() - limit));
  return out;
}

Result<json> get_response_body(Context& ctx, const json& args) {
  std::string id = arg_string(args, 0);
  std::string tab = TRY(ctx.browser().records().tab_of_request(id));
  // The body exists once the response has finished loading.
  auto deadline = SteadyClock::now() + ctx.limits().exec_timeout;
  while (SteadyClock::now() < deadline) {
    bool finished = true;
    for (const auto& rec : ctx.browser().records().requests(tab))
      if (rec.request_id == id) finished = rec.finished;
    if (finished) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto r = ctx.browser().send(tab, "Network.getResponseBody", {{"requestId", id}}, ctx.limits().exec_timeout);
  if (!r)
    return errorf(Code::NotFound,
                  "getResponseBody('{}'): the browser kept no body for this response ({}). It keeps none for responses marked "
                  "Cache-Control: no-store that the page did not read, and drops old ones; read the data in the page with execInTab instead",
                  id, r.error().message);
  std::string body = r->value("body", "");
  if (!r->value("base64Encoded", false)) return capped(body, ctx.limits().result_cap);
  std::string mime;
  for (const auto& rec : ctx.browser().records().requests(tab))
    if (rec.request_id == id) mime = rec.mime_type;
  bool textual = mime.rfind("text/", 0) == 0 || mime.find("json") != std::string::npos || mime.find("xml") != std::string::npos ||
                 mime.find("javascript") != std::string::npos;
  if (textual) return capped(base64_decode(body), ctx.limits().result_cap);
  return json{{"base64Encoded", true}, {"mimeType", mime}, {"body", capped(body, ctx.limits().result_cap)}};
}

namespace {

std::string next_handler_id() {
  static std::atomic<int> next{1};
  return "i" + std::to_string(next++);
}

// The browser pauses requests matching any pattern that has a modifying handler on the tab.
Result<void> update_fetch_patterns(Context& ctx, const std::string& tab) {
  json patterns = json::array();
  for (const auto& pattern : ctx.intercepts().modifying_patterns(tab))
    patterns.push_back({{"urlPattern", pattern.find('*') == std::string::npos ? "*" + pattern + "*" : pattern}, {"requestStage", "Request"}});
  return ctx.browser().egress().set_intercept_patterns(tab, std::move(patterns), ctx.owner(), ctx.limits().exec_timeout);
}

json header_list(const json& headers) {
  json out = json::array();
  if (headers.is_object())
    for (auto it = headers.begin(); it != headers.end(); ++it)
      out.push_back({{"name", it.key()}, {"value", it->is_string() ? it->get<std::string>() : it->dump()}});
  return out;
}

}  // namespace

void on_request_paused(Context& ctx, const std::string& tab, const json& params) {
  std::string request_id = params.value("requestId", "");
  const json& req = params.contains("request") ? params["request"] : json::object();
  std::string url = req.value("url", "");
  // A handler that wants it, when the session can deliver it one; else the request goes on.
  std::string handler =
      ctx.can_emit() ? ctx.intercepts().pause(tab, request_id, [&](const std::string& pattern) { return url_matches(url, pattern); }) : "";
  if (handler.empty()) {
    ctx.browser().send_async(tab, "Fetch.continueRequest", {{"requestId", request_id}});
    return;
  }
  json headers = req.value("headers", json::object());
  for (auto it = headers.begin(); it != headers.end(); ++it) {
    std::string name = it.key();
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    if (name == "cookie" || name == "authorization") *it = "[REDACTED]";
  }
  json data = {{"url", url}, {"method", req.value("method", "GET")}, {"headers", headers},
               {"type", params.value("resourceType", "Other")}, {"pauseId", request_id}};
  if (req.contains("postData")) data["postData"] = req["postData"];
  ctx.emit_event(handler, data);
  // Without an answer in time (no code is running to call the handler), the request goes on.
  std::weak_ptr<Context> weak = ctx.weak_from_this();
  ctx.browser().after(ctx.limits().intercept_decision, [weak, tab, request_id] {
    auto c = weak.lock();
    if (!c) return;  // the session ended; its context's tabs went with it
    if (!c->intercepts().take_paused(request_id)) return;
    c->browser().send_async(tab, "Fetch.continueRequest", {{"requestId", request_id}});
  });
}

Result<json> resolve_intercept(Context& ctx, const json& args) {
  std::string id = arg_string(args, 0);
  json d = args.size() > 1 ? args[1] : json();
  auto paused = ctx.intercepts().take_paused(id);
  if (!paused) return json(false);  // already let through after the decision timeout
  const std::string tab = *paused;
  if (d.is_object() && (d.value("block", false) || d.value("abort", false))) {
    TRY(ctx.browser().send(tab, "Fetch.failRequest", {{"requestId", id}, {"errorReason", "BlockedByClient"}}, ctx.limits().exec_timeout));
  } else if (d.is_object() && d.contains("respond") && d["respond"].is_object()) {
    const json& r = d["respond"];
    std::string body = r.contains("body") ? (r["body"].is_string() ? r["body"].get<std::string>() : r["body"].dump()) : "";
    TRY(ctx.browser().send(tab, "Fetch.fulfillRequest",
                         {{"requestId", id}, {"responseCode", r.value("status", 200)}, {"responseHeaders", header_list(r.value("headers", json::object()))},
                          {"body", base64_encode(body)}},
                         ctx.limits().exec_timeout));
  } else {
    json p = {{"requestId", id}};
    if (d.is_object()) {
      if (d.contains("url")) p["url"] = d["url"];
      if (d.contains("method")) p["method"] = d["method"];
      if (d.contains("headers")) p["headers"] = header_list(d["headers"]);
      if (d.contains("postData")) p["postData"] = base64_encode(d["postData"].is_string() ? d["postData"].get<std::string>() : d["postData"].dump());
    }
    TRY(ctx.browser().send(tab, "Fetch.continueRequest", p, ctx.limits().exec_timeout));
  }
  return json(true);
}

Result<json> intercept_requests(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0), pattern = arg_string(args, 1);
  TRY(ctx.browser().tab_info(tab));
  if (args.size() < 3 || args[2].is_null()) {
    auto removed = ctx.intercepts().remove(tab, pattern);
    for (int id : removed.observers) ctx.browser().records().remove_request_observer(id);
    if (removed.modifying) TRY(update_fetch_patterns(ctx, tab));
    return json(nullptr);
  }
  std::string handler = next_handler_id();
  if (ctx.limits().allow_request_modification) {
    ctx.intercepts().add_modifier(tab, pattern, handler);
    TRY(update_fetch_patterns(ctx, tab));
    return json(handler);
  }
  std::weak_ptr<const Context> weak = ctx.weak_from_this();
  int id = ctx.browser().records().add_request_observer(tab, [weak, pattern, handler](const std::string&, const browser::RequestRecord& r) {
    if (auto c = weak.lock(); c && url_matches(r.url, pattern)) c->emit_event(handler, r.to_json());
  });
  ctx.intercepts().add_observer(tab, pattern, id);
  return json(handler);
}

Result<json> get_console_log(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0);
  TRY(ctx.browser().tab_info(tab));
  json f = args.size() > 1 && args[1].is_object() ? args[1] : json::object();
  size_t limit = f.contains("limit") && f["limit"].is_number() ? f["limit"].get<size_t>() : 200;
  // The newest `limit` matches, oldest first; only those are converted (a flooded log holds a
  // thousand entries, and a caller polling with a small limit should not pay for them all).
  auto entries = ctx.browser().records().console(tab);
  std::vector<const browser::ConsoleEntry*> picked;
  for (auto it = entries.rbegin(); it != entries.rend() && picked.size() < limit; ++it) {
    if (f.contains("level") && f["level"].is_string() && f["level"] != it->level) continue;
    if (f.contains("contains") && f["contains"].is_string() && it->text.find(f["contains"].get<std::string>()) == std::string::npos) continue;
    picked.push_back(&*it);
  }
  json out = json::array();
  for (auto it = picked.rbegin(); it != picked.rend(); ++it) out.push_back((*it)->to_json());
  return out;
}

Result<json> get_errors(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0);
  TRY(ctx.browser().tab_info(tab));
  json out = json::array();
  for (const auto& e : ctx.browser().records().errors(tab)) out.push_back(e.to_json());
  return out;
}

}  // namespace ouro::actions::impl
