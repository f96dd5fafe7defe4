#include "scripts/replay.h"

#include <fmt/format.h>

namespace ouro::scripts {

Result<std::unique_ptr<ReplayProvider>> ReplayProvider::create(Script script, const std::map<std::string, std::string>& vars) {
  for (const auto& [k, v] : vars) {
    bool known = std::any_of(script.params.begin(), script.params.end(), [&](const Param& p) { return p.name == k; });
    if (!known) {
      std::string names;
      for (const auto& p : script.params) names += (names.empty() ? "" : ", ") + p.name;
      return errorf(Code::InvalidArgument, "script {} has no parameter {} (its parameters: {})", script.name, k, names.empty() ? "none" : names);
    }
  }
  if (script.steps.empty()) return errorf(Code::InvalidArgument, "script {} has no steps", script.name);
  return std::unique_ptr<ReplayProvider>(new ReplayProvider(std::move(script), vars));
}

ReplayProvider::ReplayProvider(Script script, std::map<std::string, std::string> vars)
    : m_script(std::move(script)), m_vars(std::move(vars)), m_task(substitute_text(m_script.task, m_script.params, m_vars)) {}

Result<llm::Response> ReplayProvider::complete(const llm::Request& request, const std::function<void(const llm::Delta&)>& on_delta,
                                               const llm::CancelToken& cancel) {
  if (request.purpose == llm::Purpose::Sub)
    return make_error(Code::FailedPrecondition, "a replay has no model for llm_query/llm_batch: this step needs the agent");
  if (cancel.cancelled()) return make_error(Code::Cancelled, "cancelled");
  std::string code;
  {
    std::lock_guard lock(m_mutex);
    if (!m_failure.empty()) return make_error(Code::Aborted, m_failure);
    if (m_next >= m_script.steps.size())
      return errorf(Code::FailedPrecondition, "script {} v{} ran all {} steps without a final (setFinal())", m_script.name, m_script.version,
                    m_script.steps.size());
    code = substitute_code(m_script.steps[m_next++].code, m_script.params, m_vars);
  }
  llm::Response r;
  r.model = "replay";
  r.text = "```repl\n" + code + "\n```";
  r.stop_reason = "end_turn";
  r.cost_known = true;
  on_delta(llm::Delta{llm::Delta::Kind::Text, r.text});
  return r;
}

json ReplayProvider::position() const {
  std::lock_guard lock(m_mutex);
  return {{"main", m_next}};
}

void ReplayProvider::seek(const json& at) {
  std::lock_guard lock(m_mutex);
  int64_t n = get_int(at, "main", -1);
  if (n >= 0) m_next = std::min(static_cast<size_t>(n), m_script.steps.size());
}

void ReplayProvider::observe(const std::string& type, const json& data) {
  if (type != "code-result") return;
  const json& meta = get_field(data, "metadata");
  if (get_bool(meta, "ok", true) || get_bool(meta, "setFinal")) return;
  std::lock_guard lock(m_mutex);
  if (!m_failure.empty() || m_next == 0) return;
  const Step& step = m_script.steps[m_next - 1];
  std::string targets;
  for (const auto& t : step.targets) targets += fmt::format("{}{} '{}'", targets.empty() ? "" : ", ", t.action, t.target);
  m_failure = fmt::format("replay of script {} v{} stopped at step {} of {} ({}{}): {}", m_script.name, m_script.version, m_next,
                          m_script.steps.size(), step.intent, targets.empty() ? "" : " on " + targets, get_str(meta, "error", "it failed"));
}

Result<std::map<std::string, std::string>> parse_vars(const std::vector<std::string>& pairs) {
  std::map<std::string, std::string> out;
  for (const auto& p : pairs) {
    size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) return errorf(Code::InvalidArgument, "a variable is name=value, got \"{}\"", p.substr(0, 80));
    out[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return out;
}

}  // namespace ouro::scripts
