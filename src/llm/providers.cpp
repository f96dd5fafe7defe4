// Anthropic Messages API and OpenAI-compatible Chat Completions, streaming.
#include "llm/provider.h"
#include "llm/errors.h"
#include "llm/streaming.h"

#include "base/ascii.h"
#include "base/log.h"

#include <boost/url/parse.hpp>

namespace ouro::llm {

json Usage::to_json() const {
  return {{"input_tokens", input_tokens}, {"output_tokens", output_tokens}, {"estimated", estimated},
          {"cache_read_tokens", cache_read_tokens}, {"cache_write_tokens", cache_write_tokens}};
}

void Usage::add(const Usage& u) {
  input_tokens += u.input_tokens;
  output_tokens += u.output_tokens;
  cache_read_tokens += u.cache_read_tokens;
  cache_write_tokens += u.cache_write_tokens;
  estimated = estimated || u.estimated;
}

namespace {

constexpr size_t kMaxToolCalls = 16;
constexpr size_t kMaxToolArguments = 256 * 1024;

// The joined argument text → JSON; an empty text is {} (a call without arguments).
void finish_tool_call(ToolCall& t) {
  if (!t.arguments.is_null()) return;
  if (t.raw_arguments.find_first_not_of(" \t\r\n") == std::string::npos) {
    t.arguments = json::object();
    return;
  }
  if (auto j = parse_json(t.raw_arguments, "tool arguments"); j && j->is_object()) t.arguments = std::move(*j);
}

void finish(Response& r, const Request& req) {
  for (auto& t : r.tool_calls) finish_tool_call(t);
  // Calls with no name (a server that sent only pieces) are not calls.
  std::erase_if(r.tool_calls, [](const ToolCall& t) { return t.name.empty(); });
  if (r.model.empty()) r.model = req.model;
  if (r.usage.input_tokens == 0 && r.usage.output_tokens == 0) {
    int64_t in = estimate_tokens(req.system);
    for (const auto& m : req.messages) in += estimate_tokens(m.content);
    r.usage = Usage{in, estimate_tokens(r.text) + estimate_tokens(r.reasoning), true};
  }
  if (auto c = cost_of(r.model, r.usage)) {
    r.cost_usd = *c;
    r.cost_known = true;
  }
}

// Anthropic Messages API streaming (docs.anthropic.com, "Streaming Messages"): event/data pairs
// message_start, content_block_start/delta/stop (text_delta, thinking_delta), message_delta
// (stop_reason, usage), message_stop, ping, error.
class AnthropicDecoder final : public StreamDecoder {
 public:
  void reset() override { m_done = false; m_tool = -1; }
  bool complete() const override { return m_done; }
  Result<void> on_event(const SseEvent& ev, Response& out, const std::function<void(const Delta&)>& on_delta) override {
    if (ev.event == "ping") return {};
    if (ev.event == "message_start") out.tool_calls.clear();  // a retried stream starts over
    auto j = parse_json(ev.data, "Anthropic stream event");
    if (!j) {
      out.warnings.push_back("skipped a malformed stream chunk: " + ev.data.substr(0, 80));
      spdlog::warn("llm: {}", out.warnings.back());
      return {};
    }
    std::string type = j->value("type", ev.event);
    if (type == "message_start") {
      const json& m = (*j)["message"];
      out.model = m.value("model", out.model);
      if (m.contains("usage") && m["usage"].is_object()) {
        // input_tokens counts only what was neither read from nor written to the cache.
        const json& u = m["usage"];
        auto n = [&](const char* k) { return u.contains(k) && u[k].is_number_integer() ? u[k].get<int64_t>() : int64_t(0); };
        out.usage.cache_read_tokens = n("cache_read_input_tokens");
        out.usage.cache_write_tokens = n("cache_creation_input_tokens");
        out.usage.input_tokens = n("input_tokens") + out.usage.cache_read_tokens + out.usage.cache_write_tokens;
      }
    } else if (type == "content_block_start") {
      const json& b = j->contains("content_block") && (*j)["content_block"].is_object() ? (*j)["content_block"] : json::object();
      if (b.value("type", "") == "tool_use") {
        m_tool = static_cast<int>(out.tool_calls.size());
        out.tool_calls.push_back(ToolCall{b.value("id", ""), b.value("name", ""), nullptr, ""});
      }
    } else if (type == "content_block_stop") {
      if (m_tool >= 0 && m_tool < static_cast<int>(out.tool_calls.size())) finish_tool_call(out.tool_calls[static_cast<size_t>(m_tool)]);
      m_tool = -1;
    } else if (type == "content_block_delta") {
      const json& d = (*j)["delta"];
      std::string dt = d.value("type", "");
      if (dt == "input_json_delta" && m_tool >= 0 && m_tool < static_cast<int>(out.tool_calls.size())) {
        auto& raw = out.tool_calls[static_cast<size_t>(m_tool)].raw_arguments;
        if (raw.size() < kMaxToolArguments) raw += d.value("partial_json", "");
      } else if (dt == "text_delta") {
        std::string t = d.value("text", "");
        out.text += t;
        on_delta(Delta{Delta::Kind::Text, t});
      } else if (dt == "thinking_delta") {
        std::string t = d.value("thinking", "");
        out.reasoning += t;
        on_delta(Delta{Delta::Kind::Reasoning, t});
      }
    } else if (type == "message_delta") {
      if (j->contains("delta")) out.stop_reason = (*j)["delta"].value("stop_reason", out.stop_reason);
      if (j->contains("usage")) out.usage.output_tokens = (*j)["usage"].value("output_tokens", out.usage.output_tokens);
    } else if (type == "message_stop") {
      for (auto& t : out.tool_calls)
        if (t.arguments.is_null()) finish_tool_call(t);
      m_done = true;
    } else if (type == "error") {
      const json e = j->value("error", json::object());
      std::string et = e.value("type", "error"), msg = e.value("message", "unknown error");
      Code c = et == "overloaded_error" || et == "api_error" ? Code::Unavailable
               : et == "rate_limit_error"                    ? Code::ResourceExhausted
                                                              : Code::InvalidArgument;
      // The stream's error type, named where it is read, so retries decide by kind (llm/errors.h).
      json kind = et == "overloaded_error" ? json{{"kind", error_kind::kOverloaded}} : json();
      return make_error(c, "the provider reported " + et + ": " + msg, std::move(kind));
    }
    return {};
  }

 private:
  bool m_done = false;
  int m_tool = -1;  // the tool_use block being streamed
};

// OpenAI Chat Completions streaming: "data: {json}" lines, "data: [DONE]" at the end; deltas in
// choices[0].delta.content and, for reasoning models (DeepSeek, kimi-k2-thinking via NVIDIA,
// OpenRouter), delta.reasoning_content or delta.reasoning; usage in the last chunk.
class OpenAIDecoder final : public StreamDecoder {
 public:
  void reset() override { m_done = false; }
  bool complete() const override { return m_done; }
  Result<void> on_event(const SseEvent& ev, Response& out, const std::function<void(const Delta&)>& on_delta) override {
    if (ev.data == "[DONE]") {
      for (auto& t : out.tool_calls) finish_tool_call(t);
      m_done = true;
      return {};
    }
    auto j = parse_json(ev.data, "OpenAI stream chunk");
    if (!j || !j->is_object()) {
      out.warnings.push_back("skipped a malformed stream chunk: " + ev.data.substr(0, 80));
      spdlog::warn("llm: {}", out.warnings.back());
      return {};
    }
    if (j->contains("error")) {
      const json& e = (*j)["error"];
      std::string msg = e.is_object() ? e.value("message", "unknown error") : e.dump();
      return make_error(Code::Unavailable, "the provider reported an error mid-stream: " + msg);
    }
    out.model = j->value("model", out.model);
    if (j->contains("choices") && (*j)["choices"].is_array() && !(*j)["choices"].empty()) {
      const json& c = (*j)["choices"][0];
      if (c.contains("delta") && c["delta"].is_object()) {
        const json& d = c["delta"];
        for (const char* key : {"reasoning_content", "reasoning"})
          if (d.contains(key) && d[key].is_string() && !d[key].get<std::string>().empty()) {
            std::string t = d[key];
            out.reasoning += t;
            on_delta(Delta{Delta::Kind::Reasoning, t});
            break;
          }
        if (d.contains("content") && d["content"].is_string()) {
          std::string t = d["content"];
          out.text += t;
          if (!t.empty()) on_delta(Delta{Delta::Kind::Text, t});
        }
        // tool_calls arrive in pieces by index: the first has id and name, the rest more arguments.
        if (d.contains("tool_calls") && d["tool_calls"].is_array())
          for (const auto& tc : d["tool_calls"]) {
            if (!tc.is_object()) continue;
            size_t index = tc.contains("index") && tc["index"].is_number_unsigned() ? tc["index"].get<size_t>() : out.tool_calls.size();
            if (index >= kMaxToolCalls) continue;
            if (index >= out.tool_calls.size()) out.tool_calls.resize(index + 1);
            auto& call = out.tool_calls[index];
            if (tc.contains("id") && tc["id"].is_string()) call.id = tc["id"];
            if (tc.contains("function") && tc["function"].is_object()) {
              const json& f = tc["function"];
              if (f.contains("name") && f["name"].is_string()) call.name += f["name"].get<std::string>();
              if (f.contains("arguments") && f["arguments"].is_string() && call.raw_arguments.size() < kMaxToolArguments)
                call.raw_arguments += f["arguments"].get<std::string>();
              else if (f.contains("arguments") && f["arguments"].is_object())
                call.raw_arguments = f["arguments"].dump();  // some servers send the object whole
            }
          }
      }
      if (c.contains("finish_reason") && c["finish_reason"].is_string()) out.stop_reason = c["finish_reason"];
    }
    if (j->contains("usage") && (*j)["usage"].is_object()) {
      const json& u = (*j)["usage"];
      out.usage.input_tokens = u.value("prompt_tokens", out.usage.input_tokens);
      out.usage.output_tokens = u.value("completion_tokens", out.usage.output_tokens);
      // Automatic prefix caching: OpenAI's prompt_tokens_details.cached_tokens, DeepSeek's
      // prompt_cache_hit_tokens.
      if (u.contains("prompt_tokens_details") && u["prompt_tokens_details"].is_object())
        out.usage.cache_read_tokens = u["prompt_tokens_details"].value("cached_tokens", out.usage.cache_read_tokens);
      if (u.contains("prompt_cache_hit_tokens") && u["prompt_cache_hit_tokens"].is_number_integer())
        out.usage.cache_read_tokens = u["prompt_cache_hit_tokens"].get<int64_t>();
    }
    return {};
  }

 private:
  bool m_done = false;
};

std::string trim_slash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

// What the HTTP providers share: build the request, stream it with retries, finish the usage
// and cost. Each provider says only how its request looks and how its stream decodes.
class HttpProvider : public Provider {
 public:
  explicit HttpProvider(ProviderSpec spec) : m_spec(std::move(spec)) {}
  Result<Response> complete(const Request& req, const std::function<void(const Delta&)>& on_delta, const CancelToken& cancel) override {
    auto decoder = make_decoder();
    auto r = TRY(stream_with_retries(http_call(req), *decoder, m_spec.limits, cancel, on_delta));
    finish(r, req);
    return r;
  }

 protected:
  virtual HttpCall http_call(const Request& req) const = 0;
  virtual std::unique_ptr<StreamDecoder> make_decoder() const = 0;
  ProviderSpec m_spec;
};

class AnthropicProvider final : public HttpProvider {
 public:
  using HttpProvider::HttpProvider;
  std::string name() const override { return "anthropic"; }

 private:
  HttpCall http_call(const Request& req) const override {
    json body = request_body("anthropic", req);
    return HttpCall{trim_slash(m_spec.base_url.empty() ? "https://api.anthropic.com" : m_spec.base_url) + "/v1/messages",
                    {"content-type: application/json", "accept: text/event-stream", "anthropic-version: 2023-06-01", "x-api-key: " + m_spec.api_key},
                    dump_json(body), "set ANTHROPIC_API_KEY (or OURO_API_KEY, or api_key in the config file) to a valid key"};
  }
  std::unique_ptr<StreamDecoder> make_decoder() const override { return std::make_unique<AnthropicDecoder>(); }
};

class OpenAIProvider final : public HttpProvider {
 public:
  using HttpProvider::HttpProvider;
  std::string name() const override { return "openai"; }

 private:
  HttpCall http_call(const Request& req) const override {
    json body = request_body("openai", req);
    std::vector<std::string> headers = {"content-type: application/json", "accept: text/event-stream"};
    if (!m_spec.api_key.empty()) headers.push_back("authorization: Bearer " + m_spec.api_key);
    return HttpCall{trim_slash(m_spec.base_url.empty() ? "https://api.openai.com/v1" : m_spec.base_url) + "/chat/completions", headers,
                    dump_json(body), "set OPENAI_API_KEY (or OURO_API_KEY, or api_key in the config file) to a valid key for this base URL"};
  }
  std::unique_ptr<StreamDecoder> make_decoder() const override { return std::make_unique<OpenAIDecoder>(); }
};

}  // namespace

std::unique_ptr<Provider> make_scripted_provider(const std::string& path, Result<void>& status);

namespace {

// A server on this machine, which needs no key (Ollama, LM Studio, llama.cpp): its host (RFC 3986
// §3.2.2) is in 127/8, [::1] or [::ffff:127.x.y.z], or the name localhost in any case, with or
// without its final dot. A URL that only mentions such a host elsewhere (its path, query or user
// part) is not one.
bool is_local_base_url(const std::string& url) {
  auto u = boost::urls::parse_uri(url);
  if (!u || !u->has_authority()) return false;
  if (u->host_type() == boost::urls::host_type::ipv4) return u->host_ipv4_address().to_bytes()[0] == 127;
  if (u->host_type() == boost::urls::host_type::ipv6) {
    const auto v6 = u->host_ipv6_address();
    return v6.is_loopback() || (v6.is_v4_mapped() && v6.to_bytes()[12] == 127);
  }
  if (u->host_type() != boost::urls::host_type::name) return false;
  std::string host = u->host();
  if (host.ends_with('.')) host.pop_back();
  return equals_nocase(host, "localhost");
}

}  // namespace

Result<void> check_key(const ProviderSpec& spec) {
  if (!spec.api_key.empty()) return {};
  if (spec.kind == "anthropic")
    return make_error(Code::Unauthenticated, "no Anthropic API key: set ANTHROPIC_API_KEY=sk-ant-… (or OURO_API_KEY, or api_key in ~/.config/ouroboros/config.json)");
  if (spec.kind == "openai" && !is_local_base_url(spec.base_url))
    return make_error(Code::Unauthenticated, "no API key for the OpenAI-compatible server: set OURO_API_KEY=… (or the provider's own variable, such "
                                             "as OPENAI_API_KEY for openai, or api_key in ~/.config/ouroboros/config.json); a server on this "
                                             "machine (Ollama, LM Studio, llama.cpp) needs none");
  return {};
}

Result<std::unique_ptr<Provider>> make_provider(const ProviderSpec& spec) {
  if (spec.kind == "anthropic" || spec.kind == "openai") TRY(check_key(spec));
  if (spec.kind == "anthropic") return std::unique_ptr<Provider>(std::make_unique<AnthropicProvider>(spec));
  if (spec.kind == "openai") return std::unique_ptr<Provider>(std::make_unique<OpenAIProvider>(spec));
  if (spec.kind == "script") {
    Result<void> status;
    auto p = make_scripted_provider(spec.script_path, status);
    if (!status) return tl::make_unexpected(status.error());
    return p;
  }
  return errorf(Code::InvalidArgument, "unknown provider '{}': use anthropic, openai (with --base-url for compatible servers) or script:FILE", spec.kind);
}

std::optional<double> cost_of(const std::string& model, const Usage& usage) {
  auto f = model_family(model, "");
  if (!f.prices) return std::nullopt;
  const Prices& p = *f.prices;
  int64_t plain = std::max<int64_t>(0, usage.input_tokens - usage.cache_read_tokens - usage.cache_write_tokens);
  return (static_cast<double>(plain) * p.input + static_cast<double>(usage.cache_write_tokens) * p.cache_write +
          static_cast<double>(usage.cache_read_tokens) * p.cache_read + static_cast<double>(usage.output_tokens) * p.output) /
         1e6;
}

std::optional<double> cost_without_cache(const std::string& model, const Usage& usage) {
  Usage plain = usage;
  plain.cache_read_tokens = plain.cache_write_tokens = 0;
  return cost_of(model, plain);
}

int64_t estimate_tokens(std::string_view text) { return static_cast<int64_t>((text.size() + 3) / 4); }

}  // namespace ouro::llm
