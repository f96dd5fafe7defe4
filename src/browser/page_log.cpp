#include "browser/page_log.h"
#include "base/text.h"

#include "browser/cdp_values.h"

#include <algorithm>
#include <cmath>

namespace ouro::browser {

namespace {

constexpr size_t kEntryOverhead = 96;  // bytes an entry costs beyond its strings

size_t footprint(const ConsoleEntry& e) { return kEntryOverhead + e.level.size() + e.text.size() + e.url.size(); }
size_t footprint(const PageError& e) { return kEntryOverhead + e.message.size() + e.stack.size() + e.url.size(); }
size_t footprint(const RequestRecord& r) {
  return kEntryOverhead + r.request_id.size() + r.url.size() + r.method.size() + r.type.size() + r.mime_type.size() + r.error.size();
}

int line_number(const json& j, std::string_view key) {
  return static_cast<int>(std::clamp<int64_t>(get_int(j, key, 0), 0, 1 << 30)) + 1;
}

std::string console_level(std::string level) {
  if (level == "warning") return "warn";
  if (level == "verbose") return "debug";
  return level;
}

}  // namespace

json ConsoleEntry::to_json() const {
  json j = {{"level", level}, {"text", text}, {"timestamp", timestamp}};
  if (!url.empty()) j["url"] = url, j["line"] = line;
  return j;
}

json PageError::to_json() const {
  json j = {{"message", message}, {"timestamp", timestamp}};
  if (!stack.empty()) j["stack"] = stack;
  if (!url.empty()) j["url"] = url, j["line"] = line, j["column"] = column;
  return j;
}

json RequestRecord::to_json() const {
  json j = {{"requestId", request_id}, {"url", url}, {"method", method}, {"status", status}, {"type", type},
            {"size", size}, {"mimeType", mime_type}, {"timestamp", timestamp}, {"finished", finished}};
  if (!error.empty()) j["error"] = error;
  return j;
}

PageLog::Outcome PageLog::on_event(std::string_view method, const json& params, double now_ms) {
  Outcome out;
  if (method == "Runtime.consoleAPICalled") on_console_api(params, now_ms, out);
  else if (method == "Log.entryAdded") on_log_entry(params, now_ms, out);
  else if (method == "Runtime.exceptionThrown") on_exception(params, now_ms);
  else if (method.rfind("Network.", 0) == 0) on_network(method, params, now_ms, out);
  else return out;
  out.handled = true;
  enforce();
  return out;
}

void PageLog::add_console(ConsoleEntry e) {
  e.level = clip_head(e.level, m_limits.word, ClipMark::Count);
  e.text = clip_head(e.text, m_limits.text, ClipMark::Count);
  e.url = clip_head(e.url, m_limits.url, ClipMark::Count);
  push_console(std::move(e));
  enforce();
}

bool PageLog::has_request(const std::string& request_id) const {
  return std::any_of(m_requests.begin(), m_requests.end(), [&](const RequestRecord& r) { return r.request_id == request_id; });
}

bool RateWindow::allow(double now_ms, size_t max) {
  if (now_ms - start >= 1000 || now_ms < start) start = now_ms, count = 0;
  return ++count <= max;
}

bool PageLog::console_allowed(double now_ms, Outcome& out) {
  if (m_limits.console_per_second == 0 || m_console_rate.allow(now_ms, m_limits.console_per_second)) return true;
  // Two seconds without a drop end a flood; the next one is reported again.
  if (!m_flooding || now_ms - m_last_drop > 2000) out.flood_started = true, m_dropped = 0;
  m_flooding = true;
  m_last_drop = now_ms;
  out.dropped = ++m_dropped;
  return false;
}

void PageLog::on_console_api(const json& p, double now_ms, Outcome& out) {
  if (!console_allowed(now_ms, out)) return;
  ConsoleEntry e;
  e.level = clip_head(console_level(get_str(p, "type", "log")), m_limits.word, ClipMark::Count);
  std::string text;
  for (const auto& a : get_array(p, "args")) {
    if (!text.empty()) text += ' ';
    text += remote_object_text(a);
  }
  e.text = clip_head(text, m_limits.text, ClipMark::Count);
  const json& frames = get_array(get_field(p, "stackTrace"), "callFrames");
  if (!frames.empty()) e.url = clip_head(get_str(frames[0], "url"), m_limits.url, ClipMark::Count), e.line = line_number(frames[0], "lineNumber");
  e.timestamp = now_ms;
  push_console(std::move(e));
}

void PageLog::on_log_entry(const json& p, double now_ms, Outcome& out) {
  if (!console_allowed(now_ms, out)) return;
  const json& en = get_field(p, "entry");
  ConsoleEntry e;
  e.level = clip_head(console_level(get_str(en, "level", "info")), m_limits.word, ClipMark::Count);
  e.text = clip_head(get_str(en, "text"), m_limits.text, ClipMark::Count);
  e.url = clip_head(get_str(en, "url"), m_limits.url, ClipMark::Count);
  e.line = line_number(en, "lineNumber");
  e.timestamp = now_ms;
  push_console(std::move(e));
}

void PageLog::on_exception(const json& p, double now_ms) {
  const json& d = get_field(p, "exceptionDetails");
  PageError e;
  std::string full = exception_text(d);
  auto nl = full.find('\n');
  e.message = clip_head(std::string_view(full).substr(0, nl), m_limits.text, ClipMark::Count);
  if (nl != std::string::npos) e.stack = clip_head(std::string_view(full).substr(nl + 1), m_limits.text, ClipMark::Count);
  e.url = clip_head(get_str(d, "url"), m_limits.url, ClipMark::Count);
  e.line = line_number(d, "lineNumber");
  e.column = line_number(d, "columnNumber");
  e.timestamp = now_ms;
  m_bytes += footprint(e);
  m_errors.push_back(std::move(e));
}

RequestRecord* PageLog::find_request(const std::string& id) {
  for (auto it = m_requests.rbegin(); it != m_requests.rend(); ++it)
    if (it->request_id == id) return &*it;
  return nullptr;
}

void PageLog::on_network(std::string_view m, const json& p, double now_ms, Outcome& out) {
  std::string rid = clip_head(get_str(p, "requestId"), m_limits.word, ClipMark::Count);
  RequestRecord* r = find_request(rid);
  if (m == "Network.requestWillBeSent") {
    if (!r || p.contains("redirectResponse")) {
      RequestRecord rec;
      rec.request_id = rid;
      rec.timestamp = now_ms;
      m_bytes += footprint(rec);
      m_requests.push_back(std::move(rec));
      r = &m_requests.back();
    }
    m_bytes -= footprint(*r);
    const json& req = get_field(p, "request");
    r->url = clip_head(get_str(req, "url"), m_limits.url, ClipMark::Count);
    r->method = clip_head(get_str(req, "method", "GET"), m_limits.word, ClipMark::Count);
    r->type = clip_head(get_str(p, "type", "Other"), m_limits.word, ClipMark::Count);
    m_bytes += footprint(*r);
    return;
  }
  if (!r) return;
  m_bytes -= footprint(*r);
  if (m == "Network.responseReceived") {
    const json& res = get_field(p, "response");
    r->status = static_cast<int>(std::clamp<int64_t>(get_int(res, "status", 0), 0, 999));
    r->mime_type = clip_head(get_str(res, "mimeType"), m_limits.word, ClipMark::Count);
    if (p.contains("type")) r->type = clip_head(get_str(p, "type", r->type), m_limits.word, ClipMark::Count);
  } else if (m == "Network.loadingFinished" || m == "Network.loadingFailed") {
    r->finished = true;
    if (m == "Network.loadingFinished") r->size = std::max<int64_t>(0, get_int(p, "encodedDataLength", 0));
    else r->error = clip_head(get_str(p, "errorText", "failed"), m_limits.word, ClipMark::Count);
    out.finished = *r;
  }
  m_bytes += footprint(*r);
}

void PageLog::push_console(ConsoleEntry e) {
  m_bytes += footprint(e);
  m_console.push_back(std::move(e));
}

void PageLog::enforce() {
  auto drop_console = [&] { m_bytes -= footprint(m_console.front()), m_console.pop_front(); };
  auto drop_error = [&] { m_bytes -= footprint(m_errors.front()), m_errors.pop_front(); };
  auto drop_request = [&] { m_bytes -= footprint(m_requests.front()), m_requests.pop_front(); };
  while (m_console.size() > m_limits.console) drop_console();
  while (m_errors.size() > m_limits.errors) drop_error();
  while (m_requests.size() > m_limits.requests) drop_request();
  while (m_bytes > m_limits.budget) {
    // The oldest entry of the three lists goes first.
    double c = m_console.empty() ? INFINITY : m_console.front().timestamp;
    double e = m_errors.empty() ? INFINITY : m_errors.front().timestamp;
    double r = m_requests.empty() ? INFINITY : m_requests.front().timestamp;
    if (std::isinf(c) && std::isinf(e) && std::isinf(r)) break;
    if (c <= e && c <= r) drop_console();
    else if (e <= r) drop_error();
    else drop_request();
  }
}

}  // namespace ouro::browser
