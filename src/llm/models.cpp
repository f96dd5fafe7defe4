// The model table and the request bodies built from it. Sources: Anthropic's Messages API
// reference (max_tokens, system, temperature, top_p, thinking {type, budget_tokens ≥ 1024 and
// < max_tokens, no temperature/top_p with it}, cache_control) and model pages; OpenAI's Chat
// Completions reference (max_completion_tokens for reasoning models, which refuse temperature and
// top_p; reasoning_effort; stream_options.include_usage) and pricing page; DeepSeek's and
// Moonshot's (kimi-k2-thinking: temperature 1, top_p 0.9, 16,384 tokens) API docs.
// Prices are the published list prices per million tokens (cache write 1.25× input at Anthropic,
// no surcharge at OpenAI-style automatic caching).
#include "llm/models.h"
#include "llm/provider.h"

#include <algorithm>
#include <cmath>

namespace ouro::llm {

namespace {

ModelFamily family(std::string prefix, std::string wire, int context, int default_out, int max_out) {
  ModelFamily f;
  f.prefix = std::move(prefix);
  f.wire = std::move(wire);
  f.context_window = context;
  f.default_output = default_out;
  f.max_output = max_out;
  return f;
}

// Claude: 4,096 tokens and temperature 0 by default; extended thinking where the model
// has it, off unless asked (--thinking BUDGET).
ModelFamily claude(std::string prefix, int max_out, bool thinking, bool vision, Prices p) {
  ModelFamily f = family(std::move(prefix), "anthropic", 200000, 4096, max_out);
  f.default_temperature = 0;
  f.reasoning = thinking ? Reasoning::AnthropicThinking : Reasoning::None;
  f.vision = vision;
  f.tools = true;
  f.prices = p;
  return f;
}

ModelFamily openai_chat(std::string prefix, int context, int max_out, bool vision, Prices p) {
  ModelFamily f = family(std::move(prefix), "openai", context, 4096, max_out);
  f.default_temperature = 0;
  f.vision = vision;
  f.tools = true;
  f.prices = p;
  return f;
}

// OpenAI reasoning models: their reasoning tokens count against the output budget, so it is larger.
ModelFamily openai_reasoning(std::string prefix, int context, int max_out, bool vision, Prices p) {
  ModelFamily f = family(std::move(prefix), "openai", context, 16384, max_out);
  f.temperature = f.top_p = false;
  f.reasoning = Reasoning::OpenAIEffort;
  f.vision = vision;
  f.tools = true;
  f.prices = p;
  return f;
}

std::vector<ModelFamily> build_table() {
  std::vector<ModelFamily> t;
  // Anthropic (cache write 1.25×, cache read 0.1× input).
  t.push_back(claude("claude-opus-4", 32000, true, true, {15, 75, 18.75, 1.5}));
  t.push_back(claude("claude-sonnet-4", 64000, true, true, {3, 15, 3.75, 0.3}));
  t.push_back(claude("claude-3-7-sonnet", 64000, true, true, {3, 15, 3.75, 0.3}));
  t.push_back(claude("claude-3-5-sonnet", 8192, false, true, {3, 15, 3.75, 0.3}));
  t.push_back(claude("claude-haiku-4-5", 64000, true, true, {1, 5, 1.25, 0.1}));
  t.push_back(claude("claude-3-5-haiku", 8192, false, false, {0.8, 4, 1, 0.08}));
  // OpenAI.
  t.push_back(openai_chat("gpt-4.1", 1047576, 32768, true, {2, 8, 2, 0.5}));
  t.push_back(openai_chat("gpt-4.1-mini", 1047576, 32768, true, {0.4, 1.6, 0.4, 0.1}));
  t.push_back(openai_chat("gpt-4.1-nano", 1047576, 32768, true, {0.1, 0.4, 0.1, 0.025}));
  t.push_back(openai_chat("gpt-4o", 128000, 16384, true, {2.5, 10, 2.5, 1.25}));
  t.push_back(openai_chat("gpt-4o-mini", 128000, 16384, true, {0.15, 0.6, 0.15, 0.075}));
  t.push_back(openai_reasoning("o1", 200000, 100000, true, {15, 60, 15, 7.5}));
  t.push_back(openai_reasoning("o3", 200000, 100000, true, {2, 8, 2, 0.5}));
  t.push_back(openai_reasoning("o3-mini", 200000, 100000, false, {1.1, 4.4, 1.1, 0.55}));
  t.push_back(openai_reasoning("o4-mini", 200000, 100000, true, {1.1, 4.4, 1.1, 0.275}));
  t.push_back(openai_reasoning("gpt-5", 400000, 128000, true, {1.25, 10, 1.25, 0.125}));
  t.push_back(openai_reasoning("gpt-5-mini", 400000, 128000, true, {0.25, 2, 0.25, 0.025}));
  t.push_back(openai_reasoning("gpt-5-nano", 400000, 128000, true, {0.05, 0.4, 0.05, 0.005}));
  // DeepSeek: the reasoner thinks always, streams reasoning_content, ignores temperature/top_p.
  t.push_back(openai_chat("deepseek-chat", 128000, 8192, false, {0.27, 1.1, 0.27, 0.07}));
  {
    ModelFamily f = family("deepseek-reasoner", "openai", 128000, 16384, 65536);
    f.temperature = f.top_p = false;
    f.reasoning = Reasoning::ReasoningContent;
    f.prices = Prices{0.55, 2.19, 0.55, 0.14};
    t.push_back(f);
  }
  // Moonshot kimi-k2 (NVIDIA, OpenRouter, Moonshot): the thinking one at temperature 1, top_p 0.9.
  t.push_back(openai_chat("kimi-k2", 131072, 16384, false, {0.6, 2.5, 0.6, 0.15}));
  {
    ModelFamily f = family("kimi-k2-thinking", "openai", 262144, 16384, 65536);
    f.default_temperature = 1;
    f.default_top_p = 0.9;
    f.reasoning = Reasoning::ReasoningContent;
    f.tools = true;
    f.prices = Prices{0.6, 2.5, 0.6, 0.15};
    t.push_back(f);
  }
  // Open-weight models served by Groq, Together, Ollama, vLLM …: prices depend on the host.
  for (const char* v : {"llava", "qwen2.5-vl", "qwen2-vl", "llama-3.2-11b-vision", "llama-3.2-90b-vision", "gemma-3"}) {
    ModelFamily f = openai_chat(v, 131072, 8192, true, {});
    f.prices.reset();
    t.push_back(f);
  }
  {
    ModelFamily f = openai_chat("llama-3", 131072, 8192, false, {});
    f.prices.reset();
    t.push_back(f);
  }
  {
    ModelFamily f = family("scripted", "script", 1000000, 4096, 1000000);
    f.prices = Prices{};
    t.push_back(f);
  }
  return t;
}

// Safe defaults for a model the table does not know: 4,096 tokens (small local models
// refuse more), temperature 0, no reasoning parameters, no price.
ModelFamily unknown_on(std::string_view wire) {
  ModelFamily f = family("", std::string(wire), 32768, 4096, 4096);
  f.default_temperature = 0;
  return f;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

json prices_json(const std::optional<Prices>& p) {
  if (!p) return nullptr;
  return {{"input", p->input}, {"output", p->output}, {"cache_write", p->cache_write}, {"cache_read", p->cache_read}};
}

const char* reasoning_name(Reasoning r) {
  switch (r) {
    case Reasoning::AnthropicThinking: return "anthropic-thinking";
    case Reasoning::OpenAIEffort: return "openai-effort";
    case Reasoning::ReasoningContent: return "reasoning-content";
    default: return "none";
  }
}

}  // namespace

const std::vector<ModelFamily>& model_families() {
  static const std::vector<ModelFamily> table = build_table();
  return table;
}

ModelFamily model_family(std::string_view model, std::string_view wire) {
  // "anthropic/claude-sonnet-4", "moonshotai/kimi-k2-thinking": the vendor part does not count;
  // "claude-sonnet-4.5" on OpenRouter reads as claude-sonnet-4-5.
  std::string id = lower(model);
  if (auto slash = id.rfind('/'); slash != std::string::npos) id = id.substr(slash + 1);
  std::replace(id.begin(), id.end(), '.', '-');
  const ModelFamily* best = nullptr;
  for (const auto& f : model_families()) {
    std::string p = f.prefix;
    std::replace(p.begin(), p.end(), '.', '-');
    if (id.rfind(p, 0) == 0 && (!best || f.prefix.size() > best->prefix.size())) best = &f;
  }
  if (!best) return unknown_on(wire);
  if (best->wire == wire || best->wire == "script" || wire.empty()) return *best;
  // A family served over another wire (Claude through an OpenAI-compatible router): its sizes and
  // prices hold, its wire-specific parameters do not.
  ModelFamily crossed = *best;
  crossed.wire = std::string(wire);
  crossed.reasoning = Reasoning::None;
  crossed.temperature = crossed.top_p = true;
  crossed.default_top_p.reset();
  if (!crossed.default_temperature) crossed.default_temperature = 0;
  return crossed;
}

json ModelFamily::to_json() const {
  json j = {{"prefix", prefix}, {"wire", wire}, {"context_window", context_window}, {"default_output", default_output},
            {"max_output", max_output}, {"temperature", temperature}, {"top_p", top_p}, {"reasoning", reasoning_name(reasoning)},
            {"vision", vision}, {"tools", tools}, {"prices", prices_json(prices)}};
  if (default_temperature) j["default_temperature"] = *default_temperature;
  if (default_top_p) j["default_top_p"] = *default_top_p;
  return j;
}

json ModelParams::to_json() const {
  json j = json::object();
  if (max_tokens) j["max_tokens"] = *max_tokens;
  if (temperature) j["temperature"] = *temperature;
  if (thinking) j["thinking"] = *thinking == 0 ? json("off") : json(*thinking);
  return j;
}

Result<int> parse_thinking(const std::string& text) {
  std::string t = lower(text);
  if (t == "off" || t == "0" || t == "none") return 0;
  char* end = nullptr;
  long v = std::strtol(t.c_str(), &end, 10);
  if (t.empty() || *end != '\0' || v < 1024 || v > 200000)
    return errorf(Code::InvalidArgument, "thinking must be a token budget from 1024 to 200000, or 'off'; got '{}'", text.substr(0, 40));
  return static_cast<int>(v);
}

Result<ModelParams> parse_model_params(const json& j, const std::string& where) {
  ModelParams p;
  if (!j.is_object()) return p;
  if (auto it = j.find("max_tokens"); it != j.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > 1000000)
      return errorf(Code::InvalidArgument, "{}.max_tokens must be a whole number from 1 to 1000000, got {}", where, it->dump().substr(0, 40));
    p.max_tokens = static_cast<int>(it->get<int64_t>());
  }
  if (auto it = j.find("temperature"); it != j.end() && !it->is_null()) {
    if (!it->is_number() || it->get<double>() < 0 || it->get<double>() > 2 || std::isnan(it->get<double>()))
      return errorf(Code::InvalidArgument, "{}.temperature must be a number from 0 to 2, got {}", where, it->dump().substr(0, 40));
    p.temperature = it->get<double>();
  }
  if (auto it = j.find("thinking"); it != j.end() && !it->is_null()) {
    if (it->is_string()) {
      p.thinking = TRY(parse_thinking(it->get<std::string>()));
    } else if (it->is_number_integer()) {
      p.thinking = TRY(parse_thinking(std::to_string(it->get<int64_t>())));
    } else if (it->is_boolean() && !it->get<bool>()) {
      p.thinking = 0;
    } else {
      return errorf(Code::InvalidArgument, "{}.thinking must be a token budget (1024 to 200000) or 'off', got {}", where, it->dump().substr(0, 40));
    }
  }
  return p;
}

json request_body(std::string_view wire, const Request& req) {
  const ModelFamily f = model_family(req.model, wire);
  const ModelParams& o = req.params;
  int out = std::clamp(o.max_tokens.value_or(f.default_output), 1, std::max(1, f.max_output));
  if (wire == "anthropic") {
    json body = {{"model", req.model}, {"stream", true}};
    int thinking = f.reasoning == Reasoning::AnthropicThinking ? o.thinking.value_or(f.default_thinking) : 0;
    if (thinking > 0) {
      // The budget is part of max_tokens and must stay under it, with room for the answer.
      out = std::min(f.max_output, std::max(out, thinking + f.default_output));
      thinking = std::clamp(thinking, 1024, std::max(1024, out - 1024));
      body["thinking"] = {{"type", "enabled"}, {"budget_tokens", thinking}};
    } else {
      if (f.temperature) body["temperature"] = o.temperature.value_or(f.default_temperature.value_or(0));
      if (f.top_p && f.default_top_p) body["top_p"] = *f.default_top_p;
    }
    body["max_tokens"] = out;
    // The system prompt is the stable prefix of every call: a cache breakpoint after it.
    if (!req.system.empty())
      body["system"] = json::array({{{"type", "text"}, {"text", req.system}, {"cache_control", {{"type", "ephemeral"}}}}});
    json messages = json::array();
    for (const auto& m : req.messages) {
      if (m.images.empty() && !m.cache_blocks.empty()) {
        json content = json::array();
        size_t at = 0;
        for (size_t end : m.cache_blocks) {
          end = std::min(end, m.content.size());
          if (end <= at) continue;
          content.push_back({{"type", "text"}, {"text", m.content.substr(at, end - at)}});
          at = end;
        }
        if (!content.empty()) content.back()["cache_control"] = {{"type", "ephemeral"}};
        if (at < m.content.size()) content.push_back({{"type", "text"}, {"text", m.content.substr(at)}});
        messages.push_back({{"role", m.role}, {"content", std::move(content)}});
        continue;
      }
      if (m.images.empty()) {
        messages.push_back({{"role", m.role}, {"content", m.content}});
        continue;
      }
      // Images first, then the text about them (the Messages API's advice).
      json content = json::array();
      for (const auto& im : m.images)
        content.push_back({{"type", "image"}, {"source", {{"type", "base64"}, {"media_type", im.media_type}, {"data", im.data}}}});
      content.push_back({{"type", "text"}, {"text", m.content}});
      messages.push_back({{"role", m.role}, {"content", std::move(content)}});
    }
    body["messages"] = std::move(messages);
    if (!req.tools.empty()) {
      json tools = json::array();
      for (const auto& t : req.tools) tools.push_back({{"name", t.name}, {"description", t.description}, {"input_schema", t.parameters}});
      body["tools"] = std::move(tools);
      // With extended thinking only "auto" is allowed; a text answer is then read as JSON.
      body["tool_choice"] = {{"type", body.contains("thinking") ? "auto" : "any"}};
    }
    return body;
  }
  json body = {{"model", req.model}, {"stream", true}, {"stream_options", {{"include_usage", true}}}};
  if (f.reasoning == Reasoning::OpenAIEffort) {
    body["max_completion_tokens"] = out;
    if (o.thinking) body["reasoning_effort"] = *o.thinking == 0 ? "low" : *o.thinking <= 8192 ? "low" : *o.thinking <= 32768 ? "medium" : "high";
  } else {
    body["max_tokens"] = out;
  }
  if (f.temperature) body["temperature"] = o.temperature.value_or(f.default_temperature.value_or(0));
  if (f.top_p && f.default_top_p) body["top_p"] = *f.default_top_p;
  json messages = json::array();
  if (!req.system.empty()) messages.push_back({{"role", "system"}, {"content", req.system}});
  for (const auto& m : req.messages) {
    if (m.images.empty()) {
      messages.push_back({{"role", m.role}, {"content", m.content}});
      continue;
    }
    json content = json::array({{{"type", "text"}, {"text", m.content}}});
    for (const auto& im : m.images)
      content.push_back({{"type", "image_url"}, {"image_url", {{"url", "data:" + im.media_type + ";base64," + im.data}}}});
    messages.push_back({{"role", m.role}, {"content", std::move(content)}});
  }
  body["messages"] = std::move(messages);
  if (!req.tools.empty()) {
    json tools = json::array();
    for (const auto& t : req.tools)
      tools.push_back({{"type", "function"}, {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}}}});
    body["tools"] = std::move(tools);
    // "auto", not "required": every compatible server takes it; a text answer is read as JSON.
    body["tool_choice"] = "auto";
  }
  return body;
}

Result<Image> image_from_data_url(std::string_view url) {
  static constexpr std::string_view kTypes[] = {"image/png", "image/jpeg", "image/gif", "image/webp"};
  auto comma = url.find(',');
  if (url.rfind("data:", 0) != 0 || comma == std::string_view::npos)
    return errorf(Code::InvalidArgument, "an image must be a data URL (data:image/png;base64,…, as screenshot() returns), got '{}'",
                  std::string(url.substr(0, 40)));
  std::string_view head = url.substr(5, comma - 5);
  auto semi = head.find(';');
  std::string type = lower(head.substr(0, semi));
  if (semi == std::string_view::npos || head.substr(semi + 1) != "base64")
    return errorf(Code::InvalidArgument, "an image data URL must be base64 (data:{};base64,…)", type.empty() ? "image/png" : type);
  if (std::find(std::begin(kTypes), std::end(kTypes), type) == std::end(kTypes))
    return errorf(Code::InvalidArgument, "image type '{}' is not one the providers take: image/png, image/jpeg, image/gif or image/webp", type);
  std::string_view data = url.substr(comma + 1);
  if (data.empty() || data.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != std::string_view::npos)
    return make_error(Code::InvalidArgument, "the image's base64 data is empty or has characters base64 does not use");
  return Image{type, std::string(data)};
}

}  // namespace ouro::llm
