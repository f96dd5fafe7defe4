#include "runs/run.h"

#include "base/clock.h"
#include "base/log.h"
#include "runs/conversation.h"
#include "runs/sites.h"

namespace ouro::runs {

Result<BrowserSource::Move> BrowserSource::fail_over(const std::string&, const std::string& why, const session::SessionOptions&) {
  return errorf(Code::Unimplemented, "the run's browser is gone ({}) and its source has no other", why);
}

namespace {

// {task, urls, options} from a stored row's options (the start pages are kept with them).
json request_from(const std::string& task, const std::string& options_json) {
  json options = parse_json(options_json).value_or(json::object());
  if (!options.is_object()) options = json::object();
  json request = {{"task", task}, {"urls", json::array()}};
  if (options.contains("urls") && options["urls"].is_array()) request["urls"] = options["urls"];
  options.erase("urls");
  request["options"] = options;
  return request;
}

}  // namespace

Result<std::shared_ptr<Run>> Run::create(store::Database& db, const json& request, State state) {
  const RunSpec spec = TRY(parse_request(request));
  std::shared_ptr<Run> run(new Run(db));
  run->m_id = new_run_id();
  run->m_request = request;
  run->m_row.id = run->m_id;
  run->m_row.task = spec.task;
  run->m_row.state = state;
  // The start pages go with the options: a resumed or continued run is given the same sites.
  run->m_row.options = dump_json(spec.stored_options());
  run->m_row.created_at = run->m_row.updated_at = wall_ms();
  run->m_state = state;
  run->m_row_kept = Row::New;
  return run;
}

std::shared_ptr<Run> Run::from_row(store::Database& db, store::Database::RunRow row) {
  std::shared_ptr<Run> run(new Run(db));
  run->m_id = row.id;
  run->m_request = request_from(row.task, row.options);
  run->m_state = row.state;
  run->m_row = std::move(row);
  return run;
}

Result<std::shared_ptr<Run>> Run::continued(store::Database& db, const std::string& id, const std::string& text) {
  auto stored = TRY(load_conversation(db, id));
  std::shared_ptr<Run> run(new Run(db));
  run->m_id = id;
  run->m_request = request_from(text, stored.row.options);
  run->m_state = stored.row.state;
  run->m_row = std::move(stored.row);
  run->m_turns = std::move(stored.turns);
  run->m_origin.continued = true;
  run->m_origin.env = std::move(stored.env);
  run->m_last_seq = stored.last_seq;
  return run;
}

Result<std::shared_ptr<Run>> Run::resumed(store::Database& db, const std::string& id, const std::vector<State>& states) {
  auto point = TRY(load_resume_point(db, id, states));
  std::shared_ptr<Run> run(new Run(db));
  run->m_id = id;
  run->m_row = point.row;
  run->fold(point);
  // Its start pages as given; the gate adds the sites its tabs were on (runs/lifecycle.h).
  run->m_request = request_from(point.state.task, point.row.options);
  run->m_turns = point.state.turns;
  run->m_last_seq = point.last_seq;
  // Queued from now on: a client that asks at once sees it is no longer interrupted.
  run->m_row.state = State::Queued;
  run->m_state = State::Queued;
  run->m_row.error.clear();
  run->m_row.updated_at = wall_ms();
  run->m_origin.continued = true;
  run->m_origin.env = point.env;
  run->m_origin.resume = std::move(point);
  run->m_resumed = true;
  return run;
}

Result<RunSpec> Run::set_request(json request) {
  RunSpec spec = TRY(parse_request(request));
  m_request = std::move(request);
  std::lock_guard lock(m_row_mutex);
  m_row.options = dump_json(spec.stored_options());
  return spec;
}

int Run::resume_from() const { return m_origin.resume ? m_origin.resume->state.last_iteration + 1 : 1; }

void Run::fold(const ResumePoint& point) {
  std::lock_guard lock(m_row_mutex);
  // The resumed turn's run reports the whole run's usage (the checkpoint's and what follows);
  // the finished turns' records stay.
  m_row.usage_json = usage_for_resume(m_row.usage_json);
  m_row.cost = point.state.cost_known ? std::optional<double>(0) : std::nullopt;
  m_row.iterations = point.state.last_iteration - point.state.turn_iterations;
}

store::Database::RunRow Run::row() const {
  std::lock_guard lock(m_row_mutex);
  return m_row;
}

State Run::state() const { return m_state.load(); }

Result<void> Run::insert() {
  std::lock_guard lock(m_row_mutex);
  TRY(m_db.insert_run(m_row));
  m_row_kept = Row::Stored;
  return {};
}

Result<void> Run::keep_running() {
  Row row;
  {
    std::lock_guard lock(m_row_mutex);
    row = m_row_kept;
  }
  auto kept = row == Row::New ? insert() : set_state(State::Running);
  if (!kept) return errorf(Code::Unavailable, "the run cannot be kept: {}", kept.error().message);
  return {};
}

const std::shared_ptr<EventLog>& Run::open_log(std::shared_ptr<hooks::Pipeline> hooks, std::mutex* order, std::function<void()> stopped) {
  m_log = std::make_shared<EventLog>(m_db, m_id, m_last_seq, std::move(hooks), order);
  m_log->on_store_failure([weak = weak_from_this(), stopped = std::move(stopped)](const std::string&) {
    if (stopped) stopped();
    if (auto run = weak.lock()) run->cancel();
  });
  return m_log;
}

Result<void> Run::store_row() {
  std::lock_guard lock(m_row_mutex);
  return m_db.update_run(m_row);
}

Result<void> Run::set_state(State to) {
  std::lock_guard lock(m_row_mutex);
  if (!can_move(m_row.state, to)) {
    spdlog::error("run {}: a move from {} to {} is not one a run makes; its state stays", m_id, name(m_row.state), name(to));
    return errorf(Code::FailedPrecondition, "run {} is {} and cannot become {}", m_id, name(m_row.state), name(to));
  }
  m_row.state = to;
  m_state = to;
  m_row.updated_at = wall_ms();
  if (auto updated = m_db.update_run(m_row); !updated) {
    spdlog::warn("run {}: cannot record that it is {}: {}", m_id, name(to), redact(updated.error().message));
    return updated;
  }
  return {};
}

void Run::append(const std::string& type, const json& data) {
  if (m_log) m_log->append(type, data, wall_ms());
}

void Run::fail(const std::string& why, const std::string& message) {
  append("error", {{"error", why}});
  const json final = {{"partial", true}, {"message", message}};
  store::Database::RunRow row = this->row();
  row.state = State::Failed;  // every state may fail (runs/state.h)
  row.error = why;
  row.updated_at = wall_ms();
  row.final_json = dump_json(final);
  row.partial = true;
  if (!end_with(Lifecycle::TurnEnd{{{"final", final}, {"iterations", row.iterations}, {"partial", true}, {"error", why}}, wall_ms()}, row))
    end_unstored(std::move(row));
}

bool Run::end_with(std::optional<Lifecycle::TurnEnd> end, const store::Database::RunRow& row) {
  // The row is the run's end, under the row's mutex (its writers take turns); a write that fails
  // is said in the log, as every row write's.
  auto adopt = [&] {
    if (!can_move(m_row.state, row.state)) spdlog::error("run {}: its end moves it from {} to {}", m_id, name(m_row.state), name(row.state));
    m_row = row;
    m_state = row.state;
  };
  if (!end || !m_log) {
    std::lock_guard lock(m_row_mutex);
    adopt();
    if (auto stored = m_db.update_run(m_row); !stored) spdlog::error("run {}: cannot record its end: {}", m_id, redact(stored.error().message));
    return true;
  }
  // Under the log's ordering mutex (as its sink takes them: that mutex, then the row's), the
  // event and the row in one transaction; the log hands the event on once both are stored, and
  // says why when they were not.
  return m_log->append("complete", end->data, end->ts, [&](int64_t seq, const std::string& text) {
    std::lock_guard lock(m_row_mutex);
    adopt();
    return m_db.append_event_with_run(row, seq, "complete", text, end->ts);
  });
}

void Run::end_unstored(store::Database::RunRow row) {
  // A turn whose events could not all be stored failed (runs/lifecycle.h finish_turn), whatever
  // it found: its answer is kept in the row, marked partial, and its record in usage says so.
  const std::string why = m_log ? m_log->store_error() : "";
  row.state = State::Failed;
  row.partial = true;
  if (!why.empty()) row.error = "the run's events could not be stored: " + why;
  if (json usage = parse_json(row.usage_json.empty() ? "{}" : row.usage_json).value_or(json()); usage.is_object()) {
    if (usage.contains("turns") && usage["turns"].is_array() && !usage["turns"].empty() && usage["turns"].back().is_object())
      usage["turns"].back()["state"] = name(State::Failed);
    row.usage_json = dump_json(usage);
  }
  std::lock_guard lock(m_row_mutex);
  m_row = std::move(row);
  m_state = State::Failed;
  if (auto stored = m_db.update_run(m_row); !stored) spdlog::error("run {}: cannot record that it failed: {}", m_id, redact(stored.error().message));
}

Asker Run::waiting_asker(std::chrono::milliseconds confirm_timeout, std::chrono::milliseconds ask_timeout, std::function<void(const json&)> always) {
  Asker asker;
  asker.confirm_timeout = confirm_timeout;
  asker.ask_timeout = ask_timeout;
  asker.confirm = [this, confirm_timeout, always = std::move(always)](const json& req) {
    std::string id = get_str(req, "id");
    auto got = m_answers.wait_confirmation(id, confirm_timeout);
    if (got.withdrawn) append("question-withdrawn", {{"id", id}, {"reason", "the run's turn ended before it was answered"}});
    if (got.always && always) always(req);
    return got.approved;  // no answer in time counts as deny
  };
  asker.ask_user = [this, ask_timeout](const json& q) -> std::optional<std::string> {
    std::string id = get_str(q, "id");
    // The run is awaiting_user since the question's event was stored (the log's sink).
    auto got = m_answers.wait_answer(id, ask_timeout);
    if (got.withdrawn) append("question-withdrawn", {{"id", id}, {"reason", "the run's turn ended before it was answered"}});
    (void)set_state(State::Running);
    return got.answer;
  };
  return asker;
}

void Run::withdraw_questions() {
  for (const auto& id : m_answers.withdraw()) append("question-withdrawn", {{"id", id}, {"reason", "the run's turn ended before it was answered"}});
}

Result<void> Run::start(const RunSpec& spec, Setup setup, std::shared_ptr<BrowserSource> source) {
  m_source = std::move(source);
  setup.db = &m_db;
  setup.log = m_log;
  std::shared_ptr<BrowserSource> from = m_source;
  setup.source = [from](session::SessionOptions so) { return from->open(std::move(so)); };
  if (m_origin.continued && !m_origin.resume && m_log && !m_log->append("user-message", {{"text", spec.task}, {"turn", m_turns.size() + 1}}, wall_ms()))
    return errorf(Code::Unavailable, "the run's events could not be stored: {}", m_log->store_error());
  m_first_task = m_origin.resume ? m_origin.resume->state.task : spec.task;
  Origin origin = std::move(m_origin);
  m_origin = Origin{};
  m_origin.continued = origin.continued;
  auto started = Lifecycle::start(spec, std::move(setup), std::move(origin), m_id);
  if (!started) {
    m_source.reset();  // the place or the browser it took is given back now
    fail(started.error().message, "The run could not start: " + started.error().message);
    return tl::make_unexpected(started.error());
  }
  std::lock_guard lock(m_life_mutex);
  m_life = std::move(*started);
  if (m_cancelled) m_life->cancel();
  return {};
}

agent::RunResult Run::turn(const std::string& task, const Asker& asker, const Conversation& c) {
  agent::RunResult r;
  for (bool moved = false;; moved = true) {
    r = m_life->turn(
        task, m_turns, row().iterations + 1, asker,
        [&](agent::Run* working) {
          // Its work is done (the Run goes next, once nothing waits on its hooks): what it still
          // asks is withdrawn now, not left to time out.
          if (!working) withdraw_questions();
          else m_answers.open();
          if (c.running) c.running(working, moved);
        },
        c.view);
    if (r.browser_lost.empty() || r.cancelled || !m_source) break;
    // Its browser died: on to another from the last checkpoint, as a resume goes on (failover.h).
    auto to = m_source->fail_over(m_id, r.browser_lost, m_life->session_options());
    if (!to) {
      if (to.error().code == Code::Unimplemented) break;
      r.error = to.error().message;
      r.final = {{"partial", true}, {"message", "The run stopped: " + r.error}};
      append("error", {{"error", r.error}});
      m_life->set_turn_end({{{"final", r.final}, {"iterations", row().iterations + r.iterations}, {"partial", true}, {"error", r.error}}, wall_ms()});
      break;
    }
    std::unique_ptr<session::Session> dead;
    {
      std::lock_guard lock(m_life_mutex);
      dead = m_life->move_to(std::move(to->session), to->point, to->note);
    }
    dead.reset();  // the dead session closes here, without holding up tabs() and cancel()
    m_source->settled();  // and its place is given back
    append("failover", {{"from", to->from}, {"to", to->to}, {"reason", r.browser_lost}, {"fromIteration", to->point.state.last_iteration + 1}});
    // As a resume: the whole run's usage comes back with the checkpoint's state.
    fold(to->point);
  }
  return r;
}

std::optional<State> Run::finish_turn(const std::string& task, const agent::RunResult& r, bool ouro_stopping, const std::function<bool()>& leave) {
  store::Database::RunRow row = this->row();
  (void)m_life->finish_turn(row, task, r, ouro_stopping);
  const bool log_failed = m_log && !m_log->store_error().empty();  // an event of this turn was not stored
  const bool kept = !log_failed && end_with(m_life->take_turn_end(), row);
  if (!kept && leave && leave()) return std::nullopt;
  if (!kept) end_unstored(std::move(row));
  m_turns.push_back({task, final_text(r.final)});
  return m_state.load();
}

Run::Ended Run::converse(const Asker& asker, Conversation c) {
  Ended end;
  std::string task = m_first_task;
  session::Session::Held held;  // in the user's browser: the tabs let go between turns
  while (true) {
    m_life->session().take_back(held);
    if (c.turn_begins) c.turn_begins(task);
    (void)set_state(State::Running);
    agent::RunResult r = turn(task, asker, c);
    auto abandon = [&] { return c.abandon && c.abandon(r); };
    const std::optional<State> state = abandon() ? std::nullopt : finish_turn(task, r, c.stopping && c.stopping(), abandon);
    if (!state) {
      end.result = std::move(r);
      end.recorded = false;
      break;
    }
    if (c.turn_ended) c.turn_ended(task, r, *state);
    end.state = *state;
    end.recorded = true;
    const bool can_go_on = m_log->store_error().empty() && !r.cancelled && r.browser_lost.empty();
    end.result = std::move(r);
    if (!c.next) break;
    held = m_life->session().let_go();
    if (!can_go_on) {
      if (c.leaving) c.leaving();
      break;
    }
    auto next = c.next(end.result);
    if (!next) break;
    task = *next;
    append("user-message", {{"text", task}, {"turn", m_turns.size() + 1}});
  }
  // The conversation is over: in a window of ouro's own (My browser) the tabs it opened go with
  // it, unless the person turned to them since its last turn (session.h close_what_it_opened).
  if (!held.tabs.empty())
    if (auto closed = m_life->session().close_what_it_opened(held); !closed.empty())
      append("tabs-closed", {{"tabs", closed}, {"reason", "the conversation ended: tabs it opened in ouro's window that you did not turn to are closed"}});
  return end;
}

Result<json> Run::tabs() const {
  std::lock_guard lock(m_life_mutex);
  if (!m_life || !m_life->has_session()) return errorf(Code::FailedPrecondition, "run {} has no browser now", m_id);
  session::Session& s = m_life->session();
  json tabs = json::array();
  for (const auto& t : s.tabs()) tabs.push_back(t.to_json());
  return json{{"tabs", tabs}, {"activeTab", s.active_tab()}};
}

bool Run::uses_browser(const void* browser) const {
  std::lock_guard lock(m_life_mutex);
  return m_life && m_life->has_session() && static_cast<const void*>(&m_life->session().browser()) == browser;
}

void Run::cancel() {
  m_answers.cancel();
  std::lock_guard lock(m_life_mutex);
  m_cancelled = true;
  if (m_life) m_life->cancel();
}

void Run::close() {
  std::unique_ptr<Lifecycle> life;
  {
    std::lock_guard lock(m_life_mutex);
    life = std::move(m_life);
  }
  life.reset();  // its session closes, waiting for the browser
  m_source.reset();  // then the place or the browser it used
}

}  // namespace ouro::runs
