#include "server/runs.h"

#include "agent/run.h"
#include "session/session.h"
#include "store/database.h"

#include <sys/stat.h>

#include <condition_variable>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

namespace ouro::server {

using Clock = std::chrono::steady_clock;

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string new_run_id() {
  static std::mt19937_64 rng{std::random_device{}()};
  static const char* digits = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string id = "r";
  for (int i = 0; i < 10; ++i) id += digits[rng() % 36];
  return id;
}

json row_json(const store::Database::RunRow& r) {
  json j = {{"id", r.id}, {"task", r.task}, {"state", r.state}, {"iterations", r.iterations}, {"partial", r.partial},
            {"created_at", r.created_at}, {"updated_at", r.updated_at}, {"options", parse_json(r.options).value_or(json::object())}};
  j["final"] = r.final_json.empty() ? json(nullptr) : parse_json(r.final_json).value_or(json(r.final_json));
  j["usage"] = r.usage_json.empty() ? json(nullptr) : parse_json(r.usage_json).value_or(json(nullptr));
  j["cost"] = r.cost ? json(*r.cost) : json(nullptr);
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

std::string mask(const std::string& key) {
  if (key.size() <= 8) return key.empty() ? "" : "••••";
  return key.substr(0, 3) + "…" + key.substr(key.size() - 4);
}

}  // namespace

struct RunManager::Active {
  std::string id, task;
  std::thread thread;
  std::mutex mutex;
  std::condition_variable answered;
  std::map<std::string, std::optional<bool>> confirmations;  // pending ids -> answer
  std::set<std::string> closed_confirmations;                 // answered or timed out
  agent::Run* run = nullptr;  // while it executes
  session::Session* session = nullptr;  // while it executes
  bool cancel_requested = false;
  bool finished = false;
  int64_t seq = 0;
  store::Database::RunRow row;
};

RunManager::RunManager(std::shared_ptr<session::Runtime> runtime, Config config)
    : m_runtime(std::move(runtime)), m_db(*m_runtime->db), m_config(std::move(config)) {
  // Runs that were in progress when ouro last stopped are shown as interrupted, not lost.
  (void)m_db.mark_interrupted();
}

RunManager::~RunManager() {
  std::vector<std::shared_ptr<Active>> runs;
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
    for (auto& [id, r] : m_runs) runs.push_back(r);
  }
  for (auto& r : runs) {
    {
      std::lock_guard lock(r->mutex);
      r->cancel_requested = true;
      if (r->run) r->run->cancel();
    }
    r->answered.notify_all();
  }
  for (auto& r : runs)
    if (r->thread.joinable()) r->thread.join();
}

void RunManager::publish(Active& run, const std::string& type, const json& data, double ts) {
  std::lock_guard lock(m_mutex);
  int64_t seq = ++run.seq;
  std::string text = dump_json(data);
  auto gid = m_db.append_event(run.id, seq, type, text, ts);  // written before it is sent
  json event = {{"id", gid.value_or(0)}, {"run", run.id}, {"seq", seq}, {"type", type}, {"ts", ts}, {"data", data}};
  for (auto& [sid, sub] : m_subscribers)
    if (sub.run_id.empty() || sub.run_id == run.id) sub.fn(event);
}

int RunManager::subscribe(const std::string& run_id, int64_t after, std::function<void(const json&)> fn) {
  // Under the same lock as publish: nothing can be appended between the replay and the
  // registration, so the subscriber sees every event exactly once.
  std::lock_guard lock(m_mutex);
  auto stored = m_db.events(run_id, after);
  if (stored)
    for (const auto& e : *stored)
      fn(json{{"id", e.id}, {"run", e.run_id}, {"seq", e.seq}, {"type", e.type}, {"ts", e.ts}, {"data", parse_json(e.data).value_or(json())}});
  int id = m_next_subscriber++;
  m_subscribers[id] = Subscriber{run_id, std::move(fn)};
  return id;
}

void RunManager::unsubscribe(int id) {
  std::lock_guard lock(m_mutex);
  m_subscribers.erase(id);
}

Result<json> RunManager::settings() {
  auto stored = TRY(m_db.get_setting("llm"));
  json s = stored ? parse_json(*stored).value_or(json::object()) : json::object();
  std::string key;
  if (std::ifstream in(m_config.data_dir + "/secrets.json"); in) {
    std::stringstream ss;
    ss << in.rdbuf();
    key = parse_json(ss.str()).value_or(json::object()).value("api_key", "");
  }
  s["api_key"] = key.empty() ? json(nullptr) : json(mask(key));
  for (const char* k : {"provider", "model", "sub_model", "base_url"})
    if (!s.contains(k)) s[k] = nullptr;
  if (!s.contains("max_iterations")) s["max_iterations"] = 25;
  return s;
}

Result<json> RunManager::update_settings(const json& body) {
  if (!body.is_object()) return make_error(Code::InvalidArgument, "settings must be a JSON object");
  auto stored = TRY(m_db.get_setting("llm"));
  json s = stored ? parse_json(*stored).value_or(json::object()) : json::object();
  for (const char* k : {"provider", "model", "sub_model", "base_url"}) {
    if (!body.contains(k)) continue;
    if (!body[k].is_string() && !body[k].is_null()) return errorf(Code::InvalidArgument, "{} must be a string", k);
    s[k] = body[k];
  }
  if (body.contains("max_iterations")) {
    if (!body["max_iterations"].is_number_integer() || body["max_iterations"].get<int>() < 1 || body["max_iterations"].get<int>() > 500)
      return make_error(Code::InvalidArgument, "max_iterations must be a whole number from 1 to 500");
    s["max_iterations"] = body["max_iterations"];
  }
  TRY(m_db.set_setting("llm", dump_json(s)));
  if (body.contains("api_key") && body["api_key"].is_string()) {
    std::string path = m_config.data_dir + "/secrets.json";
    {
      std::ofstream out(path, std::ios::trunc);
      out << dump_json(json{{"api_key", body["api_key"]}});
      if (!out) return errorf(Code::Internal, "cannot write {}", path);
    }
    chmod(path.c_str(), 0600);
  }
  return settings();
}

Result<llm::Settings> RunManager::resolve(const json& options) {
  auto stored = TRY(m_db.get_setting("llm"));
  json s = stored ? parse_json(*stored).value_or(json::object()) : json::object();
  auto pick = [&](const char* k) -> std::optional<std::string> {
    if (options.contains(k) && options[k].is_string() && !options[k].get<std::string>().empty()) return options[k].get<std::string>();
    if (s.contains(k) && s[k].is_string() && !s[k].get<std::string>().empty()) return s[k].get<std::string>();
    return std::nullopt;
  };
  llm::SettingsFlags f;
  f.provider = pick("provider");
  f.model = pick("model");
  f.sub_model = pick("sub_model");
  f.base_url = pick("base_url");
  if (std::ifstream in(m_config.data_dir + "/secrets.json"); in) {
    std::stringstream ss;
    ss << in.rdbuf();
    std::string key = parse_json(ss.str()).value_or(json::object()).value("api_key", "");
    if (!key.empty()) f.api_key = key;
  }
  return llm::resolve_settings(f);
}

Result<json> RunManager::create(const json& body) {
  if (!body.is_object() || !body.contains("task") || !body["task"].is_string() || body["task"].get<std::string>().find_first_not_of(" \t\n") == std::string::npos)
    return make_error(Code::InvalidArgument, "a run needs {\"task\": \"what to do\"} (and optionally urls: [...], options: {...})");
  if (body.contains("urls") && (!body["urls"].is_array() || !std::all_of(body["urls"].begin(), body["urls"].end(), [](const json& u) { return u.is_string(); })))
    return make_error(Code::InvalidArgument, "urls must be a list of strings");
  json options = body.value("options", json::object());
  if (!options.is_object()) return make_error(Code::InvalidArgument, "options must be an object");
  if (options.contains("max_iterations") && (!options["max_iterations"].is_number_integer() || options["max_iterations"].get<int>() < 1))
    return make_error(Code::InvalidArgument, "options.max_iterations must be a positive whole number");
  // Settings problems (no key) are reported now, not as a failed run later.
  TRY(resolve(options));
  reap();
  auto run = std::make_shared<Active>();
  run->id = new_run_id();
  run->task = body["task"];
  run->row.id = run->id;
  run->row.task = run->task;
  run->row.state = "queued";
  run->row.options = dump_json(options);
  run->row.created_at = run->row.updated_at = now_ms();
  TRY(m_db.insert_run(run->row));
  {
    std::lock_guard lock(m_mutex);
    if (m_stopping) return make_error(Code::Unavailable, "ouro is shutting down");
    m_runs[run->id] = run;
  }
  run->thread = std::thread([this, run, body] { execute(run, body); });
  return row_json(run->row);
}

void RunManager::execute(std::shared_ptr<Active> run, json body) {
  json options = body.value("options", json::object());
  auto fail = [&](const std::string& why) {
    publish(*run, "error", {{"error", why}}, now_ms());
    run->row.state = "failed";
    run->row.error = why;
    run->row.updated_at = now_ms();
    json final = {{"partial", true}, {"message", "The run could not start: " + why}};
    run->row.final_json = dump_json(final);
    run->row.partial = true;
    (void)m_db.update_run(run->row);
    publish(*run, "complete", {{"final", final}, {"iterations", 0}, {"partial", true}, {"error", why}}, now_ms());
    std::lock_guard lock(run->mutex);
    run->finished = true;
  };
  auto settings = resolve(options);
  if (!settings) return fail(settings.error().message);
  auto provider = llm::make_provider(settings->spec);
  if (!provider) return fail(provider.error().message);
  session::SessionOptions so;
  so.isolated = !options.value("profile", false);
  if (!m_config.ouro_binary.empty()) so.repl.executable = m_config.ouro_binary;
  so.repl.timeout = std::chrono::seconds(180);
  so.limits.action_timeout = m_config.action_timeout;
  auto session = session::Session::attach(m_runtime, so);
  if (!session) return fail(session.error().message);
  std::vector<std::string> urls;
  for (const auto& u : body.value("urls", json::array())) urls.push_back(u);
  if (auto opened = (*session)->open_urls(urls); !opened) return fail(opened.error().message);

  agent::RunOptions ro;
  ro.task = run->task;
  ro.model = settings->model;
  ro.sub_model = settings->sub_model;
  auto stored = m_db.get_setting("llm").value_or(std::nullopt);
  ro.max_iterations = options.value("max_iterations", stored ? parse_json(*stored).value_or(json::object()).value("max_iterations", 25) : 25);
  ro.confirm_timeout = m_config.confirm_timeout;
  ro.confirm = [this, run](const json& req) {
    std::string id = req.value("id", "");
    std::unique_lock lock(run->mutex);
    // The question went out as an event just before this: an answer may already be here.
    run->confirmations.try_emplace(id, std::nullopt);
    bool answered = run->answered.wait_for(lock, m_config.confirm_timeout, [&] { return run->cancel_requested || run->confirmations[id].has_value(); });
    bool approved = answered && run->confirmations[id].value_or(false);
    run->confirmations.erase(id);
    run->closed_confirmations.insert(id);
    return approved;  // no answer in time counts as deny
  };
  run->row.state = "running";
  run->row.updated_at = now_ms();
  (void)m_db.update_run(run->row);
  agent::Run agent_run(**session, **provider, ro, [this, run](const agent::Event& e) { publish(*run, e.type, e.data, e.ts); });
  {
    std::lock_guard lock(run->mutex);
    run->run = &agent_run;
    run->session = session->get();
    if (run->cancel_requested) agent_run.cancel();
  }
  agent::RunResult r = agent_run.execute();
  {
    std::lock_guard lock(run->mutex);
    run->run = nullptr;
    run->session = nullptr;
  }
  run->row.state = r.cancelled ? "cancelled" : !r.error.empty() ? "failed" : r.partial ? "partial" : "done";
  run->row.iterations = r.iterations;
  run->row.final_json = dump_json(r.final);
  run->row.partial = r.partial;
  run->row.usage_json = dump_json(r.usage.to_json());
  run->row.cost = r.cost_known ? std::optional<double>(r.cost_usd) : std::nullopt;
  run->row.error = r.error;
  run->row.updated_at = now_ms();
  (void)m_db.update_run(run->row);
  {
    std::lock_guard lock(run->mutex);
    run->finished = true;
  }
  // agent_run goes before the session it uses: locals die in reverse order.
}

// Finished runs live on in the database; their threads are joined and their memory let go, so
// a server used every day does not accumulate them.
void RunManager::reap() {
  std::vector<std::shared_ptr<Active>> done;
  {
    std::lock_guard lock(m_mutex);
    for (auto it = m_runs.begin(); it != m_runs.end();) {
      bool finished;
      {
        std::lock_guard run_lock(it->second->mutex);
        finished = it->second->finished;
      }
      if (finished) {
        done.push_back(it->second);
        it = m_runs.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& r : done)
    if (r->thread.joinable()) r->thread.join();
}

Result<json> RunManager::get(const std::string& id) {
  auto row = TRY(m_db.get_run(id));
  if (!row) return errorf(Code::NotFound, "no run '{}'", id);
  json j = row_json(*row);
  std::shared_ptr<Active> active;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(id); it != m_runs.end()) active = it->second;
  }
  if (active) {
    std::lock_guard lock(active->mutex);
    json pending = json::array();
    for (const auto& [cid, answer] : active->confirmations)
      if (!answer) pending.push_back(cid);
    j["pendingConfirmations"] = pending;
  }
  return j;
}

Result<json> RunManager::tabs_of(const std::string& run_id) {
  std::shared_ptr<Active> run;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(run_id); it != m_runs.end()) run = it->second;
  }
  if (!run) return errorf(Code::NotFound, "no run '{}' in progress", run_id);
  std::lock_guard lock(run->mutex);
  if (!run->session) return errorf(Code::FailedPrecondition, "run {} has no browser now (it is {})", run_id, run->finished ? "finished" : "starting");
  json tabs = json::array();
  for (const auto& t : run->session->tabs()) tabs.push_back(t.to_json());
  return json{{"tabs", tabs}, {"activeTab", run->session->active_tab()}};
}

Result<json> RunManager::list() {
  auto rows = TRY(m_db.list_runs(200));
  json out = json::array();
  for (const auto& r : rows) out.push_back(row_json(r));
  return out;
}

Result<json> RunManager::cancel(const std::string& id) {
  std::shared_ptr<Active> run;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(id); it != m_runs.end()) run = it->second;
  }
  bool finished = false;
  if (run) {
    std::lock_guard lock(run->mutex);
    finished = run->finished;
  }
  if (!run || finished) {
    auto row = TRY(m_db.get_run(id));
    if (!row) return errorf(Code::NotFound, "no run '{}'", id);
    return errorf(Code::FailedPrecondition, "run {} is not in progress (it is {})", id, row->state);
  }
  {
    std::lock_guard lock(run->mutex);
    run->cancel_requested = true;
    if (run->run) run->run->cancel();
  }
  run->answered.notify_all();
  return json{{"id", id}, {"cancelling", true}};
}

Result<json> RunManager::confirm(const std::string& run_id, const std::string& confirmation_id, bool approved) {
  std::shared_ptr<Active> run;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(run_id); it != m_runs.end()) run = it->second;
  }
  if (!run) return errorf(Code::NotFound, "no run '{}' in progress", run_id);
  {
    std::lock_guard lock(run->mutex);
    if (run->finished || run->closed_confirmations.count(confirmation_id) ||
        (run->confirmations.count(confirmation_id) && run->confirmations[confirmation_id].has_value()))
      return errorf(Code::NotFound, "run {} is not waiting for confirmation '{}' (answered already, or timed out)", run_id, confirmation_id);
    // An answer can arrive between the confirmation-req event and the run starting to wait.
    run->confirmations[confirmation_id] = approved;
  }
  run->answered.notify_all();
  return json{{"id", confirmation_id}, {"approved", approved}};
}

}  // namespace ouro::server
