#include "runs/lifecycle.h"
#include "base/clock.h"

#include "actions/registry.h"
#include "base/log.h"
#include "actions/host.h"
#include "egress/gate.h"
#include "session/session.h"
#include "store/run_state.h"
#include "hooks/hooks.h"
#include "llm/provider.h"
#include "runs/hook_points.h"
#include "runs/remember.h"
#include "runs/sites.h"
#include "safety/gate.h"
#include "schedule/jobs.h"
#include "scripts/replay.h"
#include "scripts/rewrite.h"
#include "scripts/store.h"
#include "undo/journal.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace ouro::runs {

namespace {

// The provider of a `$ commands` run with no model configured: the commands run, a plain-words
// turn fails saying what is missing.
class NoModel : public llm::Provider {
 public:
  explicit NoModel(std::string why) : m_why(std::move(why)) {}
  Result<llm::Response> complete(const llm::Request&, const std::function<void(const llm::Delta&)>&, const llm::CancelToken&) override {
    return make_error(Code::FailedPrecondition, m_why + " (commands starting with $ work without one)");
  }
  std::string name() const override { return "none"; }

 private:
  std::string m_why;
};


}  // namespace

std::string usage_for_resume(const std::string& usage_json) {
  json usage = parse_json(usage_json).value_or(json::object());
  if (!usage.is_object() || !usage.contains("turns") || !usage["turns"].is_array()) return "";
  json turns = usage["turns"];
  while (!turns.empty() && turns.back().is_object() && get_str(turns.back(), "state") == name(State::Interrupted)) turns.erase(turns.size() - 1);
  return turns.empty() ? "" : dump_json(json{{"turns", turns}});
}

State turn_state(const agent::RunResult& r, const std::string& store_error) {
  return !store_error.empty() ? State::Failed : r.cancelled ? State::Cancelled : !r.error.empty() ? State::Failed : r.partial ? State::Partial : State::Done;
}

Result<llm::Settings> resolve_model(const RunSpec& spec, const llm::SettingsFlags& flags, const json& stored) {
  llm::SettingsFlags f = flags;
  // The run's (never empty when given), else Settings' (a non-empty string), else the face's.
  auto pick = [&](const std::optional<std::string>& mine, const char* k, std::optional<std::string>& into) {
    if (mine) {
      into = *mine;
      return;
    }
    if (auto it = stored.find(k); stored.is_object() && it != stored.end() && it->is_string() && !it->get<std::string>().empty())
      into = it->get<std::string>();
  };
  pick(spec.provider, "provider", f.provider);
  pick(spec.model, "model", f.model);
  pick(spec.sub_model, "sub_model", f.sub_model);
  pick(spec.base_url, "base_url", f.base_url);
  auto settings = TRY(llm::resolve_settings(f));
  // Said as where the provider was chosen: the run's options, else Settings, else the face's rule.
  const bool stored_names = stored.is_object() && stored.contains("provider") && stored["provider"].is_string() &&
                            !stored["provider"].get<std::string>().empty();
  if (spec.provider) settings.source = "the run's options";
  else if (stored_names) settings.source = "Settings";
  // Settings' model parameters over what the environment and the settings file give, then the run's.
  if (stored.is_object()) {
    json given = json::object();
    for (const char* k : kModelOptions)
      if (stored.contains(k) && !stored[k].is_null()) given[k] = stored[k];
    auto p = TRY(llm::parse_model_params(given, "settings"));
    if (p.max_tokens) settings.params.max_tokens = p.max_tokens;
    if (p.temperature) settings.params.temperature = p.temperature;
    if (p.thinking) settings.params.thinking = p.thinking;
  }
  if (spec.params.max_tokens) settings.params.max_tokens = spec.params.max_tokens;
  if (spec.params.temperature) settings.params.temperature = spec.params.temperature;
  if (spec.params.thinking) settings.params.thinking = spec.params.thinking;
  return settings;
}

Lifecycle::~Lifecycle() {
  // session_end hears the end (it cannot deny it) before the session closes.
  if (m_hooks && m_hooks->has(hooks::Point::SessionEnd) && m_log) {
    std::shared_ptr<EventLog> log = m_log;
    (void)ask_hooks(*m_hooks, hooks::Point::SessionEnd, m_id, {{"task", m_spec.task}}, [log](const std::string& t, const json& d) {
      log->append(t, d, wall_ms());
    }, "");
  }
}

Result<std::unique_ptr<Lifecycle>> Lifecycle::start(const RunSpec& spec, Setup setup, Origin origin, const std::string& run_id) {
  if (!setup.db || !setup.log || !setup.source) return make_error(Code::Internal, "a run needs a database, an event log and a source of browsers");
  std::unique_ptr<Lifecycle> l(new Lifecycle());
  l->m_spec = spec;
  l->m_id = run_id;
  l->m_db = setup.db;
  l->m_log = setup.log;
  l->m_hooks = setup.hooks;
  store::Database& db = *setup.db;
  std::shared_ptr<EventLog> log = setup.log;
  RecordEvent record = [log](const std::string& type, const json& data) { log->append(type, data, wall_ms()); };

  // The model: a replay of a saved script (a model taking over where a step cannot heal, when
  // asked and configured), else the configured model, else the face's (MCP sampling), else none
  // for `$ commands`.
  auto settings = resolve_model(spec, setup.model_flags, setup.stored_settings);
  if (spec.script) {
    auto script = TRY(scripts::get(db, spec.script->name, spec.script->version));
    auto replay = TRY(scripts::ReplayProvider::create(std::move(script), spec.script->vars));
    if (spec.script->fallback) {
      auto model = settings ? llm::make_provider(settings->spec) : Result<std::unique_ptr<llm::Provider>>(tl::make_unexpected(settings.error()));
      if (model) replay->set_fallback(std::move(*model), settings->model, settings->sub_model);
      else spdlog::warn("run {}: replays without a model to take over: {}", run_id, redact(model.error().message));
    }
    l->m_replay = replay.get();
    l->m_provider = std::move(replay);
  } else if (settings) {
    l->m_provider = TRY(llm::make_provider(settings->spec));
  } else if (setup.client_model && settings.error().code == Code::FailedPrecondition) {
    l->m_provider = std::move(setup.client_model);
  } else if (spec.commands()) {
    l->m_provider = std::make_unique<NoModel>(settings.error().message);
  } else if (settings.error().code == Code::FailedPrecondition) {
    return make_error(Code::FailedPrecondition, settings.error().message, {{"kind", "no-model"}});
  } else {
    return tl::make_unexpected(settings.error());
  }
  if (settings) l->m_settings = *settings;
  if (setup.wrap_model) l->m_provider = setup.wrap_model(std::move(l->m_provider));
  // The user's before_outbound and transform_response hooks stand between the run and its model.
  l->m_provider = hooked_provider(std::move(l->m_provider), setup.hooks, run_id, record);

  // The session: the face's browser and limits, the run's gate, permissions and secrets.
  session::SessionOptions so = std::move(setup.base);
  std::string context = spec.context.empty() ? setup.default_context : spec.context;
  so.isolated = context == "clean";
  so.shared = context == "mine";
  so.owner = "run " + run_id;
  auto always = remembered_sites(db);
  so.trusted_sites = always;
  safety::GateConfig gc;
  gc.urls = spec.urls;
  // A resumed run may reach the sites its tabs were on.
  if (origin.resume)
    for (const auto& t : origin.resume->state.tabs)
      if (std::string u = get_str(t, "url"); !u.empty() && gc.urls.size() < 60) gc.urls.push_back(u);
  gc.task = origin.resume ? origin.resume->state.task : spec.task;
  const safety::SafetySettings& mine = spec.safety;  // typed, checked, when the spec was made
  gc.allow_domains = setup.file.allowed_domains;
  gc.allow_domains.insert(gc.allow_domains.end(), always.begin(), always.end());
  gc.allow_domains.insert(gc.allow_domains.end(), mine.allowed_domains.begin(), mine.allowed_domains.end());
  gc.mode = mine.mode.value_or(setup.file.mode.value_or(safety::GateMode::Careful));
  so.gate = TRY(safety::make_policy(gc));
  if (!so.secrets) so.secrets = setup.file.secrets;
  auto levels = setup.file.permissions;
  for (const auto& [k, v] : mine.permissions) levels[k] = v;
  so.permissions = TRY(actions::permission_overrides(levels));
  so.repl.timeout = std::chrono::seconds(180);
  so.repl.initial_env = origin.resume ? origin.resume->env : origin.env;
  // A scheduled run compares with its schedule's previous run (previousFinal()).
  if (!spec.schedule.empty()) {
    auto previous = schedule::previous_final(db, spec.schedule, run_id);
    if (previous) so.previous_final = *previous;
    else spdlog::warn("run {}: cannot read its schedule's previous final: {}", run_id, redact(previous.error().message));
  }
  l->m_so = so;
  // session_start may refuse the run before it has a browser.
  if (setup.hooks && setup.hooks->has(hooks::Point::SessionStart)) {
    json about = {{"task", spec.task}, {"urls", spec.urls}, {"context", context}, {"mode", std::string(safety::gate_mode_name(gc.mode))}};
    if (auto allowed = ask_hooks(*setup.hooks, hooks::Point::SessionStart, run_id, about, record, ""); !allowed)
      return errorf(Code::PermissionDenied, "the run did not start: {}", allowed.error().message);
  }
  l->m_session = TRY(setup.source(std::move(so)));
  if (origin.resume) {
    l->m_resume_note = TRY(restore_browser(*l->m_session, *origin.resume));
    l->m_provider->seek(origin.resume->state.provider);
    l->m_goals = origin.resume->state.goals;
    l->m_resume = std::move(origin.resume);
  } else if (!origin.continued) {
    TRY(l->m_session->open_urls(spec.urls));
  } else if (auto saved = store::load_run_checkpoint(db, run_id); saved && *saved) {
    // A conversation continued in a new session: what its earlier turns read is still the pages',
    // and its goals are still its own.
    if (auto policy = egress::gate_policy(l->m_session->host().context()))
      policy->provenance().restore(parse_json((*saved)->provenance).value_or(json::object()));
    l->m_goals = agent::RunState::from_json(parse_json((*saved)->state).value_or(json::object())).goals;
  }

  agent::RunOptions& ro = l->m_ro;
  ro.model = l->m_settings.model;
  ro.sub_model = l->m_settings.sub_model;
  ro.params = l->m_settings.params;
  ro.agent = spec.agent;
  ro.max_iterations = spec.max_iterations.value_or(setup.default_max_iterations);
  if (!spec.max_iterations && setup.stored_settings.is_object())
    if (auto it = setup.stored_settings.find("max_iterations"); it != setup.stored_settings.end() && it->is_number_integer())
      ro.max_iterations = static_cast<int>(std::clamp<int64_t>(it->get<int64_t>(), 1, kMaxIterations));
  if (l->m_replay) {
    scripts::ReplayProvider* replay = l->m_replay;
    // Targets the script recorded, for the host to find changed ones again (perception/targets.h).
    ro.recorded = [replay](const std::string& action, const std::string& selector) { return replay->recorded(action, selector); };
    ro.vet_block = [replay](const json& meta) { return replay->vet(meta); };
    ro.max_iterations = std::max(ro.max_iterations, std::min(kMaxIterations, replay->max_iterations()));
  }
  ro.stop_when_browser_lost = setup.stop_when_browser_lost;
  if (setup.hooks && setup.hooks->has(hooks::Point::BeforeToolCall)) {
    std::shared_ptr<hooks::Pipeline> pipeline = setup.hooks;
    ro.before_call = [pipeline, run_id, record](const std::string& function, const json& args) {
      return decide_tool_call(*pipeline, run_id, record, function, args);
    };
  }
  return l;
}

std::string Lifecycle::banner() const {
  if (m_replay)
    return fmt::format("script {} v{} · {} steps · {}", m_replay->script().name, m_replay->script().version, m_replay->script().steps.size(),
                       m_replay->has_fallback() ? "model " + m_settings.model + " takes over where a step cannot heal" : "no model");
  return fmt::format("{} · model {} · sub-model {} · up to {} iterations", m_settings.provider.empty() ? m_provider->name() : m_settings.provider,
                     m_settings.model.empty() ? "(none)" : m_settings.model, m_settings.sub_model.empty() ? "(none)" : m_settings.sub_model,
                     m_ro.max_iterations);
}

agent::RunResult Lifecycle::turn(const std::string& task, const std::vector<agent::Turn>& earlier, int first_iteration, const Asker& asker,
                                 const std::function<void(agent::Run*)>& running, const std::function<void(const agent::Event&)>& view) {
  agent::RunOptions ro = m_ro;
  ro.task = task;
  (void)take_turn_end();  // the turn's end is its own (runs::Run takes it after each turn)
  // before_inbound: the task or the follow-up message as it arrives (a resumed turn's was asked).
  if (m_hooks && m_hooks->has(hooks::Point::BeforeInbound) && !m_resume) {
    std::shared_ptr<EventLog> log = m_log;
    auto inbound = ask_hooks(*m_hooks, hooks::Point::BeforeInbound, m_id, {{"text", task}, {"turn", earlier.size() + 1}},
                             [log](const std::string& t, const json& d) { log->append(t, d, wall_ms()); }, "");
    if (!inbound) {
      agent::RunResult refused;
      refused.error = "the message was " + inbound.error().message;
      refused.partial = true;
      return refused;
    }
    const json& text = get_field(*inbound, "text");
    if (!text.is_string() || text.get<std::string>().empty()) {
      agent::RunResult refused;
      refused.error = "a before_inbound hook answered modify without data.text as a non-empty string";
      refused.partial = true;
      return refused;
    }
    ro.task = text.get<std::string>();
  }
  ro.earlier = earlier;
  ro.first_iteration = first_iteration;
  // A follow-up starts from the goals its conversation's checkpoint keeps (an undo may have
  // changed them since the last turn).
  if (!earlier.empty() && !m_resume)
    if (auto saved = store::checkpoint_goals(*m_db, m_id)) {
      std::lock_guard lock(m_mutex);
      m_goals = *saved;
    }
  {
    std::lock_guard lock(m_mutex);
    ro.goals = m_goals;
  }
  ro.confirm = asker.confirm;
  ro.ask_user = asker.ask_user;
  ro.confirm_timeout = asker.confirm_timeout;
  ro.ask_timeout = asker.ask_timeout;
  if (m_resume) {
    // The resumed turn goes on from its checkpoint; the turns after it start as any turn does.
    ro.resume = m_resume->state;
    ro.resume_note = m_resume_note;
    ro.task = m_resume->state.task;
    if (ro.earlier.empty()) ro.earlier = m_resume->state.turns;
    m_resume.reset();
  }
  // What the turn changes in ouro's own state is journaled for undo (undo/journal.h).
  m_turn_number = static_cast<int>(ro.earlier.size()) + 1;
  ro.on_change = [db = m_db, id = m_id, turn = m_turn_number](const json& change) { undo::note(*db, id, turn, change); };
  // After every iteration: the checkpoint a crash resumes from (before its event is stored).
  session::Session* checkpointed = m_session.get();
  ro.on_checkpoint = [this, checkpointed](int iteration, const std::string& state, const std::string& env) {
    return store_checkpoint(*m_db, *checkpointed, m_id, iteration, state, env);
  };
  m_turn_started = wall_ms();
  scripts::ReplayProvider* replay = m_replay;
  std::shared_ptr<EventLog> log = m_log;
  agent::Run run(*m_session, *m_provider, ro, [this, replay, log, &view](const agent::Event& e) {
    if (e.type == "goal_added" || e.type == "goal_updated") {
      json before;
      {
        std::lock_guard lock(m_mutex);
        before = m_goals;
        m_goals = get_field(e.data, "goals");
      }
      undo::note(*m_db, m_id, m_turn_number, {{"kind", "goals"}, {"key", "goals"}, {"before", before}, {"after", get_field(e.data, "goals")}});
    }
    if (replay) replay->observe(e.type, e.data);
    if (view) view(e);
    if (e.type == "complete") {
      set_turn_end({e.data, e.ts});  // stored with the row it ends
      return;
    }
    log->append(e.type, e.data, e.ts);
  });
  {
    std::lock_guard lock(m_mutex);
    m_running = &run;
    if (m_cancelled) run.cancel();
  }
  if (running) running(&run);
  agent::RunResult r = run.execute();
  if (running) running(nullptr);
  {
    std::lock_guard lock(m_mutex);
    m_running = nullptr;
  }
  if (std::string why = m_log->store_error(); !why.empty()) {
    r.error = "the run's events could not be stored: " + why;
    r.partial = true;
  }
  return r;
}

std::unique_ptr<session::Session> Lifecycle::move_to(std::unique_ptr<session::Session> to, const ResumePoint& point, std::string note) {
  m_session.swap(to);
  m_provider->seek(point.state.provider);
  m_resume = point;
  m_resume_note = std::move(note);
  return to;  // the dead one
}

void Lifecycle::set_turn_end(TurnEnd end) {
  std::lock_guard lock(m_mutex);
  m_turn_end = std::move(end);
}

std::optional<Lifecycle::TurnEnd> Lifecycle::take_turn_end() {
  std::lock_guard lock(m_mutex);
  return std::exchange(m_turn_end, std::nullopt);
}

void Lifecycle::cancel() {
  std::lock_guard lock(m_mutex);
  m_cancelled = true;
  if (m_running) m_running->cancel();
}

State Lifecycle::finish_turn(store::Database::RunRow& row, const std::string& task, const agent::RunResult& r, bool ouro_stopping) {
  const std::string store_error = m_log->store_error();
  const bool interrupted = ouro_stopping && r.cancelled && store_error.empty();
  const State state = interrupted ? State::Interrupted : turn_state(r, store_error);
  // Memory across tasks: a turn that finished with its answer is remembered for later runs
  // (before its row says done, so a run started after that finds it), unless the run said not to.
  // A replay is not remembered: its task carries the values it was given (they may be secrets).
  if (state == State::Done && m_spec.remember && !m_replay) {
    const memory::Embeddings* embeddings = m_session ? m_session->host().context().embeddings().get() : nullptr;
    // Journaled for undo, not an event: `complete` stays the turn's last event.
    if (auto stored = remember_run(*m_db, m_id, task, r.final, embeddings)) {
      const memory::Entry& e = stored->entry;
      undo::note(*m_db, m_id, m_turn_number,
              {{"kind", "memory"}, {"key", e.id}, {"before", stored->before ? json(memory::to_json(*stored->before, false)) : json(nullptr)},
               {"after", memory::to_json(e, false)}});
    }
  }
  // A replay that healed a step or that a model took over from leaves a new version of its script.
  if (m_replay && state == State::Done) {
    auto saved = scripts::save_replayed(*m_db, m_id, *m_replay);
    if (!saved) spdlog::warn("run {}: the replayed script is not rewritten: {}", m_id, redact(saved.error().message));
    else if (*saved) {
      undo::note_script(*m_db, m_id, m_turn_number, (*saved)->name, (*saved)->version);
      m_log->append("script-saved", {{"name", (*saved)->name}, {"version", (*saved)->version}, {"based_on", (*saved)->based_on},
                                     {"changes", (*saved)->changes}}, wall_ms());
    }
  }
  // The row: this turn's state and final; iterations, tokens and cost summed over the turns.
  row.state = state;
  row.iterations += r.iterations;
  row.final_json = dump_json(r.final);
  row.partial = r.partial || !store_error.empty();
  json usage = parse_json(row.usage_json.empty() ? "{}" : row.usage_json).value_or(json::object());
  json now = r.usage.to_json();
  if (!usage.is_object()) usage = json::object();
  if (now.is_object()) {
    for (const auto& [k, v] : now.items()) {
      if (v.is_number_integer() && (!usage.contains(k) || usage[k].is_number_integer())) usage[k] = usage.value(k, int64_t{0}) + v.get<int64_t>();
      else if (!usage.contains(k)) usage[k] = v;
    }
  }
  // Which path the turn ran (a replay, a replay a model took over, an agent).
  if (m_replay || !m_spec.schedule.empty()) usage["path"] = m_replay ? m_replay->path() : "agent";
  if (!r.cost_known) row.cost = std::nullopt;
  else row.cost = row.cost.value_or(0) + r.cost_usd;
  row.error = !store_error.empty() ? "the run's events could not be stored: " + store_error : r.error;
  row.updated_at = wall_ms();
  if (interrupted) {
    // Cut short by ouro stopping, as a crash would have: resumable, and said so.
    row.error = "ouro stopped while the run was in progress";
    row.final_json = dump_json(json{{"partial", true}, {"message", "ouro stopped while this turn was in progress; resume it from History"}});
  }
  // Each turn's record, for History: what became of it, when, and what it cost.
  if (!usage.contains("turns") || !usage["turns"].is_array()) usage["turns"] = json::array();
  usage["turns"].push_back({{"state", name(state)}, {"started_at", m_turn_started > 0 ? json(m_turn_started) : json(nullptr)}, {"ended_at", row.updated_at},
                            {"iterations", r.iterations}, {"cost", r.cost_known ? json(r.cost_usd) : json(nullptr)}});
  row.usage_json = dump_json(usage);
  // The goals as the turn left them (its last iteration's changes are after its last checkpoint),
  // for the next turn and for undo.
  json goals;
  {
    std::lock_guard lock(m_mutex);
    goals = m_goals;
  }
  if (auto kept = store::set_checkpoint_goals(*m_db, m_id, goals); !kept)
    spdlog::warn("run {}: cannot keep its goals for the next turn: {}", m_id, redact(kept.error().message));
  // The env as this turn left it, for a conversation continued after this session is gone.
  if (m_session)
    if (auto saved = m_db->set_checkpoint(m_id, m_session->storable_env()); !saved)
      spdlog::warn("run {}: cannot keep its env for a follow-up: {}", m_id, redact(saved.error().message));
  return state;
}

}  // namespace ouro::runs
