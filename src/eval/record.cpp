#include "eval/record.h"

#include "base/log.h"
#include "llm/digest.h"

#include <fstream>
#include <mutex>

namespace ouro::eval {

namespace {

class RecordingProvider final : public llm::Provider {
 public:
  RecordingProvider(std::unique_ptr<llm::Provider> inner, std::string path) : m_inner(std::move(inner)), m_path(std::move(path)) {}

  Result<llm::Response> complete(const llm::Request& req, const std::function<void(const llm::Delta&)>& on_delta,
                                 const llm::CancelToken& cancel) override {
    auto r = m_inner->complete(req, on_delta, cancel);
    json line = json::object();
    // A sub-call is kept with what it asked, so that a replay answers each of several calls made
    // at once (llm_batch) with its own answer, whatever order they finish or start in.
    if (req.purpose == llm::Purpose::Sub) line["sub"] = true, line["asked"] = llm::request_digest(req);
    if (!r) {
      // A cancel is ouro's, not the model's: a replay must not fail where the run was stopped.
      if (r.error().code == Code::Cancelled) return r;
      line["error"] = redact(r.error().message);
      if (r.error().details.is_object() && r.error().details.contains("kind")) line["kind"] = r.error().details["kind"];
    } else {
      line["text"] = r->text;
      if (!r->reasoning.empty()) line["reasoning"] = r->reasoning;
      if (!r->model.empty()) line["model"] = r->model;
      if (!r->tool_calls.empty()) {
        json calls = json::array();
        // The text the model sent, as it was; a call without any (a provider gives {} then) as
        // its parsed arguments, so that the replay has the same call.
        for (const auto& c : r->tool_calls)
          calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.raw_arguments.empty() ? dump_json(c.arguments) : c.raw_arguments}});
        line["tool_calls"] = std::move(calls);
      }
      line["usage"] = {{"input_tokens", r->usage.input_tokens},
                       {"output_tokens", r->usage.output_tokens},
                       {"cache_read_tokens", r->usage.cache_read_tokens},
                       {"cache_write_tokens", r->usage.cache_write_tokens},
                       {"estimated", r->usage.estimated}};
      line["cost_usd"] = r->cost_usd;
      line["cost_known"] = r->cost_known;
      if (!r->stop_reason.empty()) line["stop_reason"] = r->stop_reason;
    }
    std::lock_guard lock(m_mutex);
    std::ofstream out(m_path, std::ios::app);
    out << dump_json(line) << "\n";
    if (!out && !m_warned) {
      m_warned = true;
      spdlog::warn("cannot write the model's exchanges to {}", m_path);
    }
    return r;
  }

  std::string name() const override { return m_inner->name(); }
  json position() const override { return m_inner->position(); }
  void seek(const json& at) override { m_inner->seek(at); }

 private:
  std::unique_ptr<llm::Provider> m_inner;
  std::string m_path;
  std::mutex m_mutex;
  bool m_warned = false;
};

}  // namespace

std::unique_ptr<llm::Provider> recording_provider(std::unique_ptr<llm::Provider> inner, std::string path) {
  return std::make_unique<RecordingProvider>(std::move(inner), std::move(path));
}

std::string transcript_name(const std::string& task_id, int repeat) { return fmt::format("{}.r{}.jsonl", task_id, repeat); }

}  // namespace ouro::eval
