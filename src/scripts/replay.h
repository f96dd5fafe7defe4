// Replaying a script without a model: a provider that answers the main loop with the
// script's steps, one ```repl block per iteration, its parameters substituted as JavaScript
// string literals. It goes through the ordinary agent::Run, so the run's events, history, the
// safety gate and confirmations all hold. The run's event stream is shown to it (observe): when
// a step fails, the next call answers with an error naming the step, what it did and the error,
// and the run stops there (a failed run, exit 1) — unless a model was given to take over
// (set_fallback): then that call, and every later one, goes to the model, the first with a
// handover note (the failure, the step's intent and code, the remaining steps as guidance), and
// the run goes on as an ordinary agent run.
//
// Targets: recorded() answers the host's question "what did the recording know about the target
// this action names?" from the steps' recorded details (perception/targets.h heals from them).
#pragma once

#include "agent/events.h"
#include "llm/provider.h"
#include "scripts/script.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>

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
  const std::map<std::string, std::string>& vars() const { return m_vars; }
  // An iteration cap that fits the script: every step, and one more for the error after the last;
  // with a model to take over, 25 more for it.
  int max_iterations() const;

  // A model to take over when a step fails (healing included), and to answer follow-up messages
  // and llm_query/llm_batch; model and sub_model name what it is asked for.
  void set_fallback(std::unique_ptr<llm::Provider> provider, std::string model, std::string sub_model);
  bool has_fallback() const { return m_fallback != nullptr; }

  // What the script recorded about the target `action` names by `selector`, looked for in the step
  // being replayed, then in the others: {details, step}; nullopt when nothing was (or the model
  // has taken over: its code's selectors are its own).
  std::optional<json> recorded(const std::string& action, const std::string& selector) const;

  // A step's result against its recording (agent::RunOptions::vet_block): a value or final that
  // held something when recorded and holds nothing now (an empty list, "", null) means the page
  // changed under a read that cannot heal — the step fails, saying so, rather than deliver a
  // wrong final. "" when it is fine, or once the model has taken over.
  std::string vet(const json& metadata) const;

  // How the run went: "replay", or "replay+agent" once the model took over.
  std::string path() const;
  bool handed_over() const;
  int heals() const;

 private:
  ReplayProvider(Script script, std::map<std::string, std::string> vars);

  Script m_script;
  std::map<std::string, std::string> m_vars;
  std::string m_task;
  // The handover note for the model: the failure, the step's intent and code, the rest as guidance.
  std::string handover_note() const;

  mutable std::mutex m_mutex;
  size_t m_next = 0;        // steps served
  std::string m_failure;    // why the replay stops, once a step has failed
  bool m_final = false;     // a step delivered the final: what comes after is a follow-up
  bool m_handed_over = false;
  int m_heals = 0;
  std::unique_ptr<llm::Provider> m_fallback;
  std::string m_model, m_sub_model;
};

// The vars as `--var k=v` gives them ("k=v" each; InvalidArgument for one without '=').
Result<std::map<std::string, std::string>> parse_vars(const std::vector<std::string>& pairs);

}  // namespace ouro::scripts
