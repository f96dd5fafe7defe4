#include "runs/hook_points.h"

#include "base/text.h"

namespace ouro::runs {

Result<json> ask_hooks(hooks::Pipeline& hooks, hooks::Point point, const std::string& run_id, const json& data, const RecordEvent& record,
                       const std::string& what) {
  hooks::Decision d = hooks.decide(point, run_id, data);
  if (!d.decided()) return d.data;
  json event = {{"point", hooks::point_name(point)}, {"decision", d.kind_name()}, {"hooks", d.answers}};
  if (!what.empty()) event["what"] = clip_text(what, 200);
  if (!d.by.empty()) event["by"] = d.by;
  if (!d.reason.empty()) event["reason"] = d.reason;
  if (record) record("hook", event);
  if (d.kind == hooks::Decision::Kind::Deny)
    return errorf(Code::PermissionDenied, "refused by the user's {} hook {}: {}", hooks::point_name(point), d.by, d.reason);
  return d.data;
}

Result<json> decide_tool_call(hooks::Pipeline& hooks, const std::string& run_id, const RecordEvent& record, const std::string& function,
                              const json& args) {
  if (!hooks.has(hooks::Point::BeforeToolCall)) return args;
  auto data = ask_hooks(hooks, hooks::Point::BeforeToolCall, run_id, {{"name", function}, {"args", args}}, record, function);
  if (!data) return errorf(Code::PermissionDenied, "{}: {}", function, data.error().message);
  const json& changed = get_field(*data, "args");
  if (!changed.is_array())
    return errorf(Code::InvalidArgument, "{}: a before_tool_call hook answered modify without data.args as an array of the call's arguments", function);
  return changed;
}

namespace {

class HookedProvider final : public llm::Provider {
 public:
  HookedProvider(std::unique_ptr<llm::Provider> inner, std::shared_ptr<hooks::Pipeline> hooks, std::string run_id, RecordEvent record)
      : m_inner(std::move(inner)), m_hooks(std::move(hooks)), m_run(std::move(run_id)), m_record(std::move(record)) {}

  Result<llm::Response> complete(const llm::Request& request, const std::function<void(const llm::Delta&)>& on_delta,
                                 const llm::CancelToken& cancel) override {
    const char* purpose = request.purpose == llm::Purpose::Main ? "main" : "sub";
    llm::Request sent = request;
    if (m_hooks->has(hooks::Point::BeforeOutbound)) {
      json messages = json::array();
      for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
      json data = {{"purpose", purpose}, {"model", request.model}, {"system", request.system}, {"messages", messages}};
      auto decided = ask_hooks(*m_hooks, hooks::Point::BeforeOutbound, m_run, data, m_record, std::string(purpose) + " request");
      if (!decided) return errorf(Code::PermissionDenied, "the request to the model was {}", decided.error().message);
      TRY(apply_outbound(*decided, sent));
    }
    auto response = TRY(m_inner->complete(sent, on_delta, cancel));
    if (m_hooks->has(hooks::Point::TransformResponse)) {
      json data = {{"purpose", purpose}, {"model", response.model}, {"text", response.text}};
      auto decided = ask_hooks(*m_hooks, hooks::Point::TransformResponse, m_run, data, m_record, std::string(purpose) + " reply");
      if (!decided) return errorf(Code::PermissionDenied, "the model's reply was {}", decided.error().message);
      const json& text = get_field(*decided, "text");
      if (!text.is_string()) return make_error(Code::InvalidArgument, "a transform_response hook answered modify without data.text as a string");
      response.text = text.get<std::string>();
    }
    return response;
  }

  std::string name() const override { return m_inner->name(); }
  json position() const override { return m_inner->position(); }
  void seek(const json& position) override { m_inner->seek(position); }

 private:
  // A modify's system and messages' content over the request; the images and cache blocks of a
  // message stay where its content did not change.
  static Result<void> apply_outbound(const json& data, llm::Request& request) {
    if (const json& system = get_field(data, "system"); system.is_string()) request.system = system.get<std::string>();
    const json& messages = get_field(data, "messages");
    if (messages.is_null()) return {};
    if (!messages.is_array() || messages.size() != request.messages.size())
      return make_error(Code::InvalidArgument, "a before_outbound hook answered modify with data.messages that are not the request's messages "
                                               "(change their content; keep their number and order)");
    for (size_t i = 0; i < messages.size(); ++i) {
      const json& content = get_field(messages[i], "content");
      if (!content.is_string()) return make_error(Code::InvalidArgument, "a before_outbound hook answered modify with a message whose content is not a string");
      llm::Message& m = request.messages[i];
      if (content.get<std::string>() == m.content) continue;
      m.content = content.get<std::string>();
      m.cache_blocks.clear();  // the stable prefix the blocks marked may have changed
    }
    return {};
  }

  std::unique_ptr<llm::Provider> m_inner;
  std::shared_ptr<hooks::Pipeline> m_hooks;
  std::string m_run;
  RecordEvent m_record;
};

}  // namespace

std::unique_ptr<llm::Provider> hooked_provider(std::unique_ptr<llm::Provider> inner, std::shared_ptr<hooks::Pipeline> hooks, std::string run_id,
                                               RecordEvent record) {
  if (!hooks || (!hooks->has(hooks::Point::BeforeOutbound) && !hooks->has(hooks::Point::TransformResponse))) return inner;
  return std::make_unique<HookedProvider>(std::move(inner), std::move(hooks), std::move(run_id), std::move(record));
}

}  // namespace ouro::runs
