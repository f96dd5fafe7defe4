// The scripted provider: replays responses from a JSON Lines file, for tests, demos and replays.
// One object per response, in order: {"text": "…", "reasoning": "…"} answers the main loop;
// objects with "sub": true answer llm_query/llm_batch sub-calls, in their own order. Text is
// streamed in small chunks like a real provider's, so everything downstream sees the same deltas.
// A tool-calling model's turn: {"tool_calls": [{"name": "click", "arguments": {"ref": "e3"}}]}
// (arguments an object, or a string as a model might send it; "text" may come with it).
// "usage", "cost_usd" and "stop_reason", when given, are reported as the model reported them; a
// sub-call's "asked" (request_digest) makes it the answer to the call that asked that.
#include "base/clock.h"
#include "llm/digest.h"
#include "llm/provider.h"

#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

namespace ouro::llm {

namespace {

class ScriptedProvider final : public Provider {
 public:
  std::string name() const override { return "script"; }

  Result<Response> complete(const Request& req, const std::function<void(const Delta&)>& on_delta, const CancelToken& cancel) override {
    json item;
    {
      std::lock_guard lock(m_mutex);
      auto& all = req.purpose == Purpose::Sub ? m_sub : m_main;
      size_t& used = req.purpose == Purpose::Sub ? m_sub_used : m_main_used;
      if (used >= all.size())
        return errorf(Code::ResourceExhausted, "the script {} has no more {} responses (it had {})", m_path,
                      req.purpose == Purpose::Sub ? "sub-call" : "main", all.size());
      // A recorded sub-call ("asked": what it was asked) answers the call that asks the same,
      // among those not answered yet; others are taken in order.
      size_t pick = used;
      if (req.purpose == Purpose::Sub && all[used].contains("asked")) {
        const std::string digest = request_digest(req);
        for (size_t k = used; k < all.size(); ++k)
          if (all[k].value("asked", "") == digest) {
            pick = k;
            break;
          }
        std::swap(all[used], all[pick]);
      }
      item = all[used++];
    }
    Response r;
    r.model = item.value("model", "scripted");
    auto stream = [&](const std::string& text, Delta::Kind kind, std::string& into) -> bool {
      for (size_t i = 0; i < text.size();) {
        if (cancel.cancelled()) return false;
        size_t n = std::min<size_t>(6, text.size() - i);
        while (i + n < text.size() && (static_cast<unsigned char>(text[i + n]) & 0xC0) == 0x80) ++n;  // whole UTF-8 characters
        std::string piece = text.substr(i, n);
        into += piece;
        on_delta(Delta{kind, piece});
        i += n;
        if (m_delay.count() > 0) std::this_thread::sleep_for(m_delay);
      }
      return true;
    };
    // {"delay_ms": N}: the response comes N ms late; with {"until_file": PATH}, or as soon as
    // that file exists (a test's go-ahead, whatever the machine's speed).
    if (item.value("delay_ms", 0) > 0) {
      const std::string until = item.value("until_file", "");
      const double end = steady_ms() + item.value("delay_ms", 0);
      std::error_code ec;
      while (steady_ms() < end && (until.empty() || !std::filesystem::exists(until, ec))) {
        if (cancel.cancelled()) return make_error(Code::Cancelled, "cancelled");
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    // {"error": "…", "kind": "context-overflow"}: a named provider failure (llm/errors.h).
    if (item.contains("error"))
      return make_error(Code::Unavailable, item.value("error", "scripted failure"),
                        item.contains("kind") && item["kind"].is_string() ? nlohmann::ordered_json{{"kind", item["kind"]}} : nullptr);
    if (!stream(item.value("reasoning", ""), Delta::Kind::Reasoning, r.reasoning) || !stream(item.value("text", ""), Delta::Kind::Text, r.text))
      return make_error(Code::Cancelled, "cancelled");
    if (item.contains("tool_calls") && item["tool_calls"].is_array()) {
      int n = 0;
      for (const auto& tc : item["tool_calls"]) {
        if (!tc.is_object()) continue;
        ToolCall call{tc.value("id", "call_" + std::to_string(++n)), tc.value("name", ""), nullptr, ""};
        const json a = tc.contains("arguments") ? tc["arguments"] : json::object();
        if (a.is_string()) {
          call.raw_arguments = a.get<std::string>();
          if (auto j = parse_json(call.raw_arguments, "tool arguments"); j && j->is_object()) call.arguments = std::move(*j);
        } else {
          call.arguments = a;
          call.raw_arguments = a.dump();
        }
        r.tool_calls.push_back(std::move(call));
      }
    }
    int64_t in = estimate_tokens(req.system);
    for (const auto& m : req.messages) in += estimate_tokens(m.content);
    r.usage = Usage{in, estimate_tokens(r.text) + estimate_tokens(r.reasoning), true};
    r.cost_usd = 0;
    r.cost_known = true;
    r.stop_reason = "end_turn";
    // A recorded exchange (`ouro eval --record`) says what the model reported: replayed as it was.
    if (const json u = item.value("usage", json()); u.is_object()) {
      r.usage.input_tokens = u.value("input_tokens", r.usage.input_tokens);
      r.usage.output_tokens = u.value("output_tokens", r.usage.output_tokens);
      r.usage.cache_read_tokens = u.value("cache_read_tokens", int64_t(0));
      r.usage.cache_write_tokens = u.value("cache_write_tokens", int64_t(0));
      r.usage.estimated = u.value("estimated", false);
    }
    if (item.contains("cost_usd") && item["cost_usd"].is_number()) {
      r.cost_usd = item["cost_usd"].get<double>();
      r.cost_known = item.value("cost_known", true);
    }
    if (item.contains("stop_reason") && item["stop_reason"].is_string()) r.stop_reason = item["stop_reason"].get<std::string>();
    return r;
  }

  // {"main": N, "sub": M}: the responses used so far.
  json position() const override {
    std::lock_guard lock(m_mutex);
    return {{"main", m_main_used}, {"sub", m_sub_used}};
  }
  void seek(const json& at) override {
    if (!at.is_object()) return;
    std::lock_guard lock(m_mutex);
    auto count = [&](const char* k, size_t most) { return at.contains(k) && at[k].is_number_unsigned() ? std::min<size_t>(at[k].get<size_t>(), most) : 0; };
    m_main_used = count("main", m_main.size());
    m_sub_used = count("sub", m_sub.size());
  }

  std::string m_path;
  std::vector<json> m_main, m_sub;
  size_t m_main_used = 0, m_sub_used = 0;
  std::chrono::microseconds m_delay{300};
  mutable std::mutex m_mutex;
};

// What a line's fields must be where the replay reads them as their type, checked when the script
// is read (a script is the user's file, or one a recording wrote); "" when the line is fine. Those
// the replay checks itself ("kind", "stop_reason", "cost_usd", what "tool_calls" holds) are taken
// only when they have their type.
std::string wrong_field(const json& line) {
  auto type_name = [](const json& v) { return std::string(v.type_name()); };
  for (const char* k : {"text", "reasoning", "model", "error", "asked", "until_file"})
    if (line.contains(k) && !line[k].is_string()) return fmt::format("\"{}\" must be a string, got a {}", k, type_name(line[k]));
  for (const char* k : {"sub", "cost_known"})
    if (line.contains(k) && !line[k].is_boolean()) return fmt::format("\"{}\" must be true or false, got a {}", k, type_name(line[k]));
  if (line.contains("delay_ms") && (!line["delay_ms"].is_number_integer() || line["delay_ms"].get<int64_t>() < 0 || line["delay_ms"].get<int64_t>() > 600000))
    return "\"delay_ms\" must be a whole number of milliseconds from 0 to 600000";
  if (line.contains("usage")) {
    const json& u = line["usage"];
    if (!u.is_object()) return fmt::format("\"usage\" must be an object, got a {}", type_name(u));
    for (const char* k : {"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"})
      if (u.contains(k) && !u[k].is_number_integer()) return fmt::format("\"usage.{}\" must be a whole number, got a {}", k, type_name(u[k]));
    if (u.contains("estimated") && !u["estimated"].is_boolean()) return "\"usage.estimated\" must be true or false";
  }
  if (line.contains("tool_calls") && line["tool_calls"].is_array()) {
    for (const auto& tc : line["tool_calls"]) {
      if (!tc.is_object()) continue;
      for (const char* k : {"id", "name"})
        if (tc.contains(k) && !tc[k].is_string()) return fmt::format("a tool call's \"{}\" must be a string, got a {}", k, type_name(tc[k]));
    }
  }
  return "";
}

}  // namespace

std::unique_ptr<Provider> make_scripted_provider(const std::string& path, Result<void>& status) {
  auto p = std::make_unique<ScriptedProvider>();
  p->m_path = path;
  std::ifstream in(path);
  if (!in) {
    status = errorf(Code::NotFound, "cannot read the script file {}", path);
    return nullptr;
  }
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto j = parse_json(line, "script line");
    if (!j || !j->is_object()) {
      status = errorf(Code::InvalidArgument, "{} line {}: each line must be a JSON object like {{\"text\": \"…\"}} ({})", path, n,
                      j ? "not an object" : j.error().message);
      return nullptr;
    }
    if (std::string wrong = wrong_field(*j); !wrong.empty()) {
      status = errorf(Code::InvalidArgument, "{} line {}: {}", path, n, wrong);
      return nullptr;
    }
    (j->value("sub", false) ? p->m_sub : p->m_main).push_back(std::move(*j));
  }
  if (p->m_main.empty()) {
    status = errorf(Code::InvalidArgument, "{} has no main responses (lines without \"sub\": true)", path);
    return nullptr;
  }
  if (const char* d = std::getenv("OURO_SCRIPT_CHUNK_DELAY_US")) p->m_delay = std::chrono::microseconds(std::atoi(d));
  status = {};
  return p;
}

}  // namespace ouro::llm
