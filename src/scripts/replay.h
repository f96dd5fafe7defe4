// Replaying a script without a model (issue 16): a provider that answers the main loop with the
// script's steps, one ```repl block per iteration, its parameters substituted as JavaScript
// string literals. It goes through the ordinary agent::Run, so the run's events, history, the
// safety gate and confirmations all hold. The run's event stream is shown to it (observe): when
// a step fails, the next call answers with an error naming the step, what it did and the error,
// and the run stops there (a failed run, exit 1).
#pragma once

#include "agent/events.h"
#include "llm/provider.h"
#include "scripts/script.h"

#include <map>
#include <mutex>

namespace ouro::scripts {

class ReplayProvider final : public llm::Provider {
 public:
  // vars: values for the script's parameters by name (the others keep their defaults). An unknown
  // name is InvalidArgument listing the script's parameters.
  static Result<std::unique_ptr<ReplayProvider>> create(Script script, const std::map<std::string, std::string>& vars);

  Result<llm::Response> complete(const llm::Request& request, const std::function<void(const llm::Delta&)>& on_delta,
                                 const llm::CancelToken& cancel) override;
  std::string name() const override { return "replay"; }
  json position() const override;  // {"main": steps served}
  void seek(const json& position) override;

  // Every event of the run, in order (any thread; the run serialises them): a failed step's
  // code-result is remembered for the next call.
  void observe(const std::string& type, const json& data);

  // The task as the replay runs it (its placeholders filled in with the values).
  const std::string& task() const { return m_task; }
  const Script& script() const { return m_script; }
  // An iteration cap that fits the script: every step, and one more for the error after the last.
  int max_iterations() const { return static_cast<int>(m_script.steps.size()) + 1; }

 private:
  ReplayProvider(Script script, std::map<std::string, std::string> vars);

  Script m_script;
  std::map<std::string, std::string> m_vars;
  std::string m_task;
  mutable std::mutex m_mutex;
  size_t m_next = 0;        // steps served
  std::string m_failure;    // why the replay stops, once a step has failed
};

// The vars as `--var k=v` gives them ("k=v" each; InvalidArgument for one without '=').
Result<std::map<std::string, std::string>> parse_vars(const std::vector<std::string>& pairs);

}  // namespace ouro::scripts
