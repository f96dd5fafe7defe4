#include "scripts/replay.h"

#include "base/text.h"

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

int ReplayProvider::max_iterations() const {
  return static_cast<int>(m_script.steps.size()) + 1 + (m_fallback ? 25 : 0);
}

void ReplayProvider::set_fallback(std::unique_ptr<llm::Provider> provider, std::string model, std::string sub_model) {
  std::lock_guard lock(m_mutex);
  m_fallback = std::move(provider);
  m_model = std::move(model);
  m_sub_model = std::move(sub_model);
}

std::string ReplayProvider::path() const {
  std::lock_guard lock(m_mutex);
  return m_handed_over ? "replay+agent" : "replay";
}
bool ReplayProvider::handed_over() const {
  std::lock_guard lock(m_mutex);
  return m_handed_over;
}
int ReplayProvider::heals() const {
  std::lock_guard lock(m_mutex);
  return m_heals;
}

std::optional<json> ReplayProvider::recorded(const std::string& action, const std::string& selector) const {
  std::lock_guard lock(m_mutex);
  if (m_handed_over || m_script.steps.empty()) return std::nullopt;
  size_t current = m_next == 0 ? 0 : m_next - 1;
  auto look = [&](size_t k) -> std::optional<json> {
    for (const auto& t : m_script.steps[k].targets)
      if (t.action == action && t.target == selector && t.details.is_object())
        return json{{"details", t.details}, {"step", k + 1}};
    return std::nullopt;
  };
  if (current < m_script.steps.size())
    if (auto r = look(current)) return r;
  for (size_t k = 0; k < m_script.steps.size(); ++k)
    if (k != current)
      if (auto r = look(k)) return r;
  return std::nullopt;
}

std::string ReplayProvider::handover_note() const {
  size_t failed = m_next == 0 ? 0 : m_next - 1;
  std::string note = fmt::format(
      "[REPLAY HANDOVER] You are taking over a replay of the saved script \"{}\" v{}. Its steps ran without a model until one "
      "failed and could not be healed:\n{}\n",
      m_script.name, m_script.version, m_failure);
  if (failed < m_script.steps.size()) {
    const Step& st = m_script.steps[failed];
    note += fmt::format("Step {} was meant to: {}. Its code was:\n```js\n{}\n```\n", failed + 1, st.intent.empty() ? "(no summary)" : st.intent,
                        clip_text(substitute_code(st.code, m_script.params, m_vars), 3000));
  }
  std::string rest;
  for (size_t k = failed + 1; k < m_script.steps.size() && rest.size() < 6000; ++k)
    rest += fmt::format("// step {}\n{}\n", k + 1, clip_text(substitute_code(m_script.steps[k].code, m_script.params, m_vars), 2000));
  if (!rest.empty())
    note += "The script's remaining steps, as guidance only (their selectors may no longer fit the page):\n```js\n" + rest + "```\n";
  note += "Do the failed step's job on the page as it is now, then the rest of the task; finish with setFinal().";
  return note;
}

Result<llm::Response> ReplayProvider::complete(const llm::Request& request, const std::function<void(const llm::Delta&)>& on_delta,
                                               const llm::CancelToken& cancel) {
  if (cancel.cancelled()) return make_error(Code::Cancelled, "cancelled");
  llm::Provider* model = nullptr;
  llm::Request req = request;
  {
    std::lock_guard lock(m_mutex);
    if (request.purpose == llm::Purpose::Sub) {
      if (!m_fallback) return make_error(Code::FailedPrecondition, "a replay has no model for llm_query/llm_batch: this step needs the agent");
      model = m_fallback.get();
      if (req.model.empty()) req.model = m_sub_model;
    } else if (m_handed_over) {
      model = m_fallback.get();
    } else if (!m_failure.empty() || (m_final && m_next >= m_script.steps.size())) {
      // A failed step, or a follow-up message after the replay delivered its final.
      if (!m_fallback) {
        if (!m_failure.empty()) return make_error(Code::Aborted, m_failure);
        return errorf(Code::FailedPrecondition,
                      "this run replayed script {} v{} without a model, and a follow-up message needs one: start a run with a model "
                      "(ouro run --continue RUN \"…\" with a provider configured, or a new run), or replay again with --provider",
                      m_script.name, m_script.version);
      }
      m_handed_over = true;
      model = m_fallback.get();
      if (!m_failure.empty() && !req.messages.empty()) {
        std::string note = handover_note();
        if (req.messages.back().role == "user") req.messages.back().content += "\n\n" + note;
        else req.messages.push_back(llm::Message{"user", note, {}, {}});
      }
    }
    if (model) {
      if (req.model.empty() || req.model == "replay") req.model = m_model;
    } else {
      if (m_next >= m_script.steps.size())
        return errorf(Code::FailedPrecondition, "script {} v{} ran all {} steps without a final (setFinal())", m_script.name, m_script.version,
                      m_script.steps.size());
      std::string code = substitute_code(m_script.steps[m_next++].code, m_script.params, m_vars);
      llm::Response r;
      r.model = "replay";
      r.text = "```repl\n" + code + "\n```";
      r.stop_reason = "end_turn";
      r.cost_known = true;
      on_delta(llm::Delta{llm::Delta::Kind::Text, r.text});
      return r;
    }
  }
  return model->complete(req, on_delta, cancel);
}

json ReplayProvider::position() const {
  std::lock_guard lock(m_mutex);
  json j = {{"main", m_next}};
  if (m_handed_over) {
    j["handed_over"] = true;
    if (m_fallback) j["fallback"] = m_fallback->position();
  }
  if (m_final) j["final"] = true;
  return j;
}

void ReplayProvider::seek(const json& at) {
  std::lock_guard lock(m_mutex);
  int64_t n = get_int(at, "main", -1);
  if (n >= 0) m_next = std::min(static_cast<size_t>(n), m_script.steps.size());
  m_final = get_bool(at, "final");
  if (get_bool(at, "handed_over") && m_fallback) {
    m_handed_over = true;
    m_fallback->seek(get_field(at, "fallback"));
  }
}

namespace {

bool holds_something(const json& shape) {
  std::string kind = get_str(shape, "kind");
  return (kind == "array" || kind == "object" || kind == "string") && get_int(shape, "size") > 0;
}
bool holds_nothing(const json& shape) {
  std::string kind = get_str(shape, "kind");
  return kind == "null" || kind == "undefined" || ((kind == "array" || kind == "object" || kind == "string") && get_int(shape, "size") == 0);
}
std::string what_it_held(const json& shape) {
  std::string kind = get_str(shape, "kind");
  int64_t n = get_int(shape, "size");
  if (kind == "array") return fmt::format("{} item{}", n, n == 1 ? "" : "s");
  if (kind == "object") return fmt::format("an object of {} field{}", n, n == 1 ? "" : "s");
  return fmt::format("{} characters of text", n);
}

}  // namespace

std::string ReplayProvider::vet(const json& metadata) const {
  std::lock_guard lock(m_mutex);
  if (m_handed_over || m_next == 0 || m_next > m_script.steps.size()) return "";
  const Step& step = m_script.steps[m_next - 1];
  auto check = [&](const json& recorded, const json& now, const char* what) -> std::string {
    if (!recorded.is_object() || !now.is_object() || !holds_something(recorded) || !holds_nothing(now)) return "";
    return fmt::format("step {} of the replay read nothing: its {} is {} where the recording's held {} — what it reads has "
                       "changed on the page and could not be found again; nothing from this step is delivered",
                       m_next, what, get_str(now, "kind") == "null" || get_str(now, "kind") == "undefined" ? get_str(now, "kind") : "empty",
                       what_it_held(recorded));
  };
  if (auto why = check(step.shape, get_field(metadata, "shape"), "value"); !why.empty()) return why;
  if (metadata.contains("finalShape")) return check(step.final_shape, get_field(metadata, "finalShape"), "final");
  return "";
}

void ReplayProvider::observe(const std::string& type, const json& data) {
  if (type == "heal") {
    std::lock_guard lock(m_mutex);
    ++m_heals;
    return;
  }
  if (type != "code-result") return;
  const json& meta = get_field(data, "metadata");
  std::lock_guard lock(m_mutex);
  if (m_handed_over) return;  // the model's own blocks: its errors are its to handle
  if (get_bool(meta, "setFinal")) {
    m_final = true;
    return;
  }
  if (get_bool(meta, "ok", true)) return;
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
