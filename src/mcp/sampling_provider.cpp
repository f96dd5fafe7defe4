#include "mcp/sampling_provider.h"

#include "base/text.h"

#include <fmt/format.h>

namespace ouro::mcp {

bool offers_sampling(const json& client_capabilities) {
  return client_capabilities.is_object() && client_capabilities.contains("sampling") && client_capabilities["sampling"].is_object();
}

Result<json> sampling_params(const llm::Request& request, int default_max_tokens) {
  if (!request.tools.empty())
    return make_error(Code::Unimplemented,
                      "the MCP client's model cannot take native function calls over sampling; use the REPL agent (the default) for browser_task");
  json messages = json::array();
  for (const auto& m : request.messages) {
    const std::string role = m.role == "assistant" ? "assistant" : "user";
    for (const auto& image : m.images)
      messages.push_back({{"role", role}, {"content", {{"type", "image"}, {"data", image.data}, {"mimeType", image.media_type}}}});
    if (!m.content.empty() || m.images.empty()) messages.push_back({{"role", role}, {"content", {{"type", "text"}, {"text", m.content}}}});
  }
  json params = {{"messages", std::move(messages)},
                 {"maxTokens", request.params.max_tokens.value_or(default_max_tokens)},
                 {"includeContext", "none"}};
  if (!request.system.empty()) params["systemPrompt"] = request.system;
  if (request.params.temperature) params["temperature"] = *request.params.temperature;
  const bool sub = request.purpose == llm::Purpose::Sub;
  json prefs = {{"intelligencePriority", sub ? 0.3 : 0.8}, {"speedPriority", sub ? 0.8 : 0.4}, {"costPriority", sub ? 0.7 : 0.3}};
  if (!request.model.empty()) prefs["hints"] = json::array({{{"name", request.model}}});
  params["modelPreferences"] = std::move(prefs);
  return params;
}

Result<llm::Response> sampling_response(const json& result, size_t max_text_bytes) {
  if (!result.is_object()) return errorf(Code::InvalidArgument, "the client's sampling answer is not an object but {}", result.type_name());
  const json& content = get_field(result, "content");
  std::vector<json> blocks;
  if (content.is_object()) blocks.push_back(content);
  else if (content.is_array())
    for (const auto& b : content) blocks.push_back(b);
  std::string text;
  std::string other;
  for (const auto& b : blocks) {
    if (get_str(b, "type") == "text" && get_field(b, "text").is_string()) text += b["text"].get<std::string>();
    else if (other.empty()) other = clip_text(get_str(b, "type", b.type_name()), 40);
  }
  if (text.empty() && !other.empty())
    return errorf(Code::InvalidArgument, "the client's model answered with {} content; browser_task needs text", other);
  if (blocks.empty()) return make_error(Code::InvalidArgument, "the client's sampling answer has no content");
  llm::Response r;
  if (text.size() > max_text_bytes) {
    r.warnings.push_back(fmt::format("the client's answer was {} bytes; cut at {}", text.size(), max_text_bytes));
    text.resize(utf8_boundary(text, max_text_bytes));
  }
  r.text = std::move(text);
  r.model = clip_text(get_str(result, "model", "mcp-client"), 200);
  const std::string stop = get_str(result, "stopReason");
  r.stop_reason = stop == "endTurn" ? "end_turn" : stop == "maxTokens" ? "max_tokens" : stop == "stopSequence" ? "stop_sequence" : clip_text(stop, 60);
  return r;
}

Result<llm::Response> SamplingProvider::complete(const llm::Request& request, const std::function<void(const llm::Delta&)>& on_delta,
                                                 const llm::CancelToken& cancel) {
  if (cancel.cancelled()) return make_error(Code::Cancelled, "cancelled");
  auto params = sampling_params(request, m_options.default_max_tokens);
  if (!params) return tl::make_unexpected(params.error());
  auto answer = m_ctx.request("sampling/createMessage", *params, m_options.timeout, [&cancel] { return cancel.cancelled(); });
  if (!answer) return tl::make_unexpected(answer.error());
  auto r = sampling_response(*answer, m_options.max_text_bytes);
  if (!r) return r;
  if (!r->text.empty()) on_delta(llm::Delta{llm::Delta::Kind::Text, r->text});
  int64_t in = llm::estimate_tokens(request.system);
  for (const auto& m : request.messages) in += llm::estimate_tokens(m.content);
  r->usage = llm::Usage{in, llm::estimate_tokens(r->text), true};
  r->cost_known = false;  // the client's model, at the client's price
  return r;
}

}  // namespace ouro::mcp
