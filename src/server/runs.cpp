#include "server/runs.h"
#include "base/private_file.h"
#include "llm/setup.h"
#include "llm/keyring.h"

#include "server/bridge_hub.h"
#include "server/conversation.h"
#include "server/failover.h"
#include "session/pool.h"
#include "server/memories.h"
#include "server/resume.h"
#include "schedule/jobs.h"
#include "scripts/replay.h"
#include "scripts/rewrite.h"
#include "scripts/store.h"
#include "server/sites.h"

#include "actions/registry.h"
#include "agent/run.h"
#include "base/log.h"
#include "browser/browser.h"
#include "cdp/bridge.h"
#include "hooks/hooks.h"
#include "safety/settings.h"
#include "safety/sites.h"
#include "session/session.h"
#include "store/database.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <cstring>
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



json row_json(const store::Database::RunRow& r) {
  json j = {{"id", r.id}, {"task", r.task}, {"state", r.state}, {"iterations", r.iterations}, {"partial", r.partial},
            {"created_at", r.created_at}, {"updated_at", r.updated_at}, {"options", parse_json(r.options).value_or(json::object())}};
  j["final"] = r.final_json.empty() ? json(nullptr) : parse_json(r.final_json).value_or(json(r.final_json));
  j["usage"] = r.usage_json.empty() ? json(nullptr) : parse_json(r.usage_json).value_or(json(nullptr));
  j["cost"] = r.cost ? json(*r.cost) : json(nullptr);
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

json event_json(const store::Database::EventRow& e) {
  return json{{"id", e.id}, {"run", e.run_id}, {"seq", e.seq}, {"type", e.type}, {"ts", e.ts}, {"data", parse_json(e.data).value_or(json())}};
}

std::string mask(const std::string& key) {
  if (key.size() <= 8) return key.empty() ? "" : "••••";
  return key.substr(0, 3) + "…" + key.substr(key.size() - 4);
}

// "number 1", "string \"lots\"": what a client sent, short, for error messages.
std::string describe(const json& v) {
  std::string text = dump_json(v);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(v.type_name()) + " " + text;
}

// A whole number in [lo, hi], whatever JSON number type carries it; nullopt otherwise.
std::optional<int> whole_in(const json& v, int lo, int hi) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u < static_cast<uint64_t>(std::max(lo, 0)) || u > static_cast<uint64_t>(hi)) return std::nullopt;
    return static_cast<int>(u);
  }
  if (v.is_number_integer()) {
    int64_t i = v.get<int64_t>();
    if (i < lo || i > hi) return std::nullopt;
    return static_cast<int>(i);
  }
  return std::nullopt;
}

constexpr int kMaxIterations = 500;
constexpr size_t kMaxUrls = 20;
const char* const kStringOptions[] = {"provider", "model", "sub_model", "base_url"};
constexpr const char* kKnownOptions =
    "provider, model, sub_model, base_url (strings), max_iterations (1 to 500), max_tokens (1 to 1000000), temperature (0 to 2), "
    "thinking (a token budget 1024 to 200000, or 'off'), context ('mine' or 'clean'), browser ('extension': the user's Chrome through "
    "ouro's extension, or 'ouro'), profile (true or false: "
    "the same as context 'mine' or 'clean'), allowed_domains (array of "
    "site patterns), mode ('careful' or 'autonomous'), permissions ({capability: 'auto'|'ask'|'deny'}), agent ('rlm': the model writes "
    "code, the default; 'tools': it calls tools through function calling), remember (true or false: whether its finished task "
    "and answer are remembered for later runs; default true)";

const char* const kModelOptions[] = {"max_tokens", "temperature", "thinking"};
bool is_model_option(const std::string& k) {
  return std::any_of(std::begin(kModelOptions), std::end(kModelOptions), [&](const char* o) { return k == o; });
}

bool is_string_option(const std::string& k) {
  return std::any_of(std::begin(kStringOptions), std::end(kStringOptions), [&](const char* o) { return k == o; });
}

std::string short_name(const std::string& key) { return key.size() > 60 ? key.substr(0, 57) + "..." : key; }

// A run's options, field by field: wrong types and unknown names are the client's error.
Result<void> check_options(const json& options) {
  if (!options.is_object()) return errorf(Code::InvalidArgument, "options must be an object, got {}", describe(options));
  for (const auto& [k, v] : options.items()) {
    if (is_string_option(k)) {
      if (!v.is_string()) return errorf(Code::InvalidArgument, "options.{} must be a string, got {}", k, describe(v));
    } else if (k == "max_iterations") {
      if (!whole_in(v, 1, kMaxIterations))
        return errorf(Code::InvalidArgument, "options.max_iterations must be a whole number from 1 to {}, got {}", kMaxIterations, describe(v));
    } else if (is_model_option(k)) {
      TRY(llm::parse_model_params(json{{k, v}}, "options"));
    } else if (k == "profile") {
      if (!v.is_boolean()) return errorf(Code::InvalidArgument, "options.profile must be true or false, got {}", describe(v));
    } else if (k == "remember") {
      if (!v.is_boolean())
        return errorf(Code::InvalidArgument, "options.remember must be true or false (false: forget this run's task and answer), got {}", describe(v));
    } else if (k == "schedule") {
      // Internal: the schedule that started the run (server/scheduler.h), for previousFinal().
      if (!v.is_string() || v.get<std::string>().empty() || v.get<std::string>().size() > 64)
        return errorf(Code::InvalidArgument, "options.schedule must be a schedule's id, got {}", describe(v));
    } else if (k == "script") {
      // Internal: the script a replay runs (POST /api/scripts/{name}/run), with no model.
      if (!v.is_object() || !v.contains("name") || !v["name"].is_string() || (v.contains("version") && !v["version"].is_number_integer()) ||
          (v.contains("vars") && !v["vars"].is_object()) || (v.contains("fallback") && !v["fallback"].is_boolean()))
        return errorf(Code::InvalidArgument, "options.script must be {{name, version?, vars?, fallback?: boolean}}, got {}", describe(v));
      const json vars = v.contains("vars") ? v["vars"] : json::object();
      for (const auto& [name, value] : vars.items())
        if (!value.is_string()) return errorf(Code::InvalidArgument, "options.script.vars.{} must be a string, got {}", short_name(name), describe(value));
    } else if (k == "agent") {
      if (!v.is_string() || (v != "rlm" && v != "tools"))
        return errorf(Code::InvalidArgument, "options.agent must be 'rlm' (the model writes code) or 'tools' (function calling), got {}", describe(v));
    } else if (k == "browser") {
      if (!v.is_string() || (v != "extension" && v != "ouro"))
        return errorf(Code::InvalidArgument,
                      "options.browser must be 'extension' (the user's Chrome, through ouro's paired extension, in a tab group of the run's "
                      "own) or 'ouro' (ouro's own browser, the default), got {}",
                      describe(v));
    } else if (k == "context") {
      if (!v.is_string() || (v != "mine" && v != "clean"))
        return errorf(Code::InvalidArgument,
                      "options.context must be 'mine' (the browser's own tabs and logins) or 'clean' (an isolated session), got {}",
                      describe(v));
    } else if (k == "allowed_domains" || k == "mode" || k == "permissions") {
      TRY(safety::safety_settings_from(json{{k, v}}, "options"));
      if (k == "permissions") TRY(actions::permission_overrides(v.get<std::map<std::string, std::string>>()));
    } else {
      return errorf(Code::InvalidArgument, "unknown option '{}'; the options are {}", short_name(k), kKnownOptions);
    }
  }
  return {};
}


}  // namespace

Result<void> check_run_options(const json& options) { return check_options(options); }

struct RunManager::Active {
  std::string id, task;
  std::thread thread;  // assigned under the manager's mutex; joined by the reaper
  std::mutex mutex;
  std::condition_variable answered;
  std::map<std::string, std::optional<bool>> confirmations;  // pending ids -> answer
  std::set<std::string> closed_confirmations;                 // answered or timed out
  std::set<std::string> remember;                             // confirmations answered "always"
  struct Question {
    json choices = json::array();
    std::optional<std::string> answer;
  };
  std::map<std::string, Question> questions;  // askUser: pending ids -> their answer, once given
  std::set<std::string> closed_questions;
  // The conversation: earlier turns, messages for the next one, and whether the session waits
  // between turns (idle) or should let go (expire). Under `mutex`.
  std::vector<agent::Turn> turns;
  std::deque<std::string> inbox;
  bool idle = false, expire = false;
  Clock::time_point idle_since{};
  bool restored = false;    // continued from storage after its session had gone
  std::string restore_env;  // then: the env its last turn left
  std::optional<ResumePoint> resume;  // resumed after a crash: where from
  agent::Run* run = nullptr;  // while it executes
  session::Session* session = nullptr;  // while it executes
  bool cancel_requested = false;
  bool finished = false;  // its result is final (teardown may still be going on)
  bool leaving = false;   // it takes no more turns: its session is closing
  int begun = 0;              // turns begun, earlier stored ones included
  bool first_begun = false;   // this session has begun a turn
  // Under the manager's mutex: the last stored event's seq, and why storing one failed.
  int64_t seq = 0;
  std::string store_error;
  store::Database::RunRow row;
};

RunManager::RunManager(std::shared_ptr<session::Runtime> runtime, Config config)
    : m_runtime(std::move(runtime)), m_db(*m_runtime->db), m_config(std::move(config)) {
  // Runs that were in progress when ouro last stopped are shown as interrupted, not lost.
  if (auto marked = m_db.mark_interrupted(); !marked)
    spdlog::warn("cannot mark the runs of the last session interrupted: {}", redact(marked.error().message));
  m_reaper = std::thread([this] { reaper(); });
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
  {
    std::unique_lock lock(m_mutex);
    m_reaped.wait(lock, [&] { return m_runs.empty(); });
  }
  m_reap.notify_all();
  m_reaper.join();
}

// Finished runs live on in the database; their threads are joined and their memory let go, so
// a server used every day does not accumulate them. A run thread hands itself over only once
// its session is torn down, so a join here waits for nothing but the thread's return.
void RunManager::reaper() {
  std::unique_lock lock(m_mutex);
  while (true) {
    m_reap.wait(lock, [&] { return !m_torn_down.empty() || (m_stopping && m_runs.empty()); });
    if (m_torn_down.empty()) return;
    auto done = std::move(m_torn_down);
    m_torn_down.clear();
    lock.unlock();
    for (auto& r : done)
      if (r->thread.joinable()) r->thread.join();
    lock.lock();
    for (auto& r : done) m_runs.erase(r->id);
    m_reaped.notify_all();
  }
}

void RunManager::publish(Active& run, const std::string& type, const json& data, double ts) {
  std::lock_guard lock(m_mutex);
  if (!run.store_error.empty()) return;  // the run is failing already: nothing more is stored or sent
  int64_t seq = run.seq + 1;
  auto gid = m_db.append_event(run.id, seq, type, dump_json(data), ts);  // written before it is sent
  if (!gid) {
    // Subscribers resume from stored events, so one that was never stored must not be sent
    // either: the run stops and fails with the reason.
    spdlog::error("run {}: event {} ({}) could not be stored: {}", run.id, seq, type, redact(gid.error().message));
    run.store_error = gid.error().message;
    std::lock_guard run_lock(run.mutex);
    run.cancel_requested = true;
    if (run.run) run.run->cancel();
    run.answered.notify_all();
    return;
  }
  run.seq = seq;
  // Hooks see stored events only; they queue and never wait (observe-only).
  if (m_config.hooks) m_config.hooks->on_event(run.id, type, data, ts);
  // A question is pending from the moment anyone can see it (GET /api/runs/:id lists it, and
  // an answer may come before the run starts to wait).
  if (type == "confirmation-req" || type == "user-question") {
    std::lock_guard run_lock(run.mutex);
    std::string qid = get_str(data, "id");
    if (type == "confirmation-req") run.confirmations.try_emplace(qid, std::nullopt);
    else run.questions[qid].choices = data.contains("choices") ? data["choices"] : json::array();
  }
  // The run waits for the user from the moment the question can be seen.
  if (type == "user-question") {
    run.row.state = "awaiting_user";
    run.row.updated_at = now_ms();
    if (auto updated = m_db.update_run(run.row); !updated)
      spdlog::warn("run {}: cannot record its state: {}", run.id, redact(updated.error().message));
  }
  json event = {{"id", *gid}, {"run", run.id}, {"seq", seq}, {"type", type}, {"ts", ts}, {"data", data}};
  for (auto it = m_subscribers.begin(); it != m_subscribers.end();) {
    Subscriber& sub = it->second;
    bool keep = true;
    if (sub.run_id.empty() || sub.run_id == run.id) {
      if (!sub.live) sub.held.push_back(event);
      else keep = sub.fn(event);
    }
    it = keep ? std::next(it) : m_subscribers.erase(it);
  }
}

Result<int> RunManager::subscribe(const std::string& run_id, int64_t after, EventSink fn) {
  // Registered first, holding what is published meanwhile; then the stored events are replayed
  // without the lock; then, under the lock, the held events the replay did not already cover
  // are delivered and the subscription goes live. Events are stored before they are published,
  // under this mutex, so every event is either in the replay or held: none is missed, and the
  // key (a run's seq, or the global id) drops the ones seen twice.
  int id;
  {
    std::lock_guard lock(m_mutex);
    id = m_next_subscriber++;
    m_subscribers[id] = Subscriber{run_id, fn, false, {}};
  }
  const char* key = run_id.empty() ? "id" : "seq";
  int64_t cursor = after;
  bool wanted = true;
  constexpr int kPage = 1000;
  while (wanted) {
    auto page = m_db.events(run_id, cursor, kPage);
    if (!page) {
      unsubscribe(id);
      return make_error(page.error().code, "cannot read the stored events: " + page.error().message);
    }
    for (const auto& row : *page) {
      cursor = run_id.empty() ? row.id : row.seq;
      if (!(wanted = fn(event_json(row)))) break;
    }
    if (page->size() < static_cast<size_t>(kPage)) break;
  }
  std::lock_guard lock(m_mutex);
  auto it = m_subscribers.find(id);
  if (it == m_subscribers.end()) return id;  // unsubscribed during the replay
  for (const auto& e : it->second.held) {
    if (!wanted) break;
    if (e[key].get<int64_t>() > cursor) wanted = fn(e);
  }
  if (!wanted) {
    m_subscribers.erase(it);
  } else {
    it->second.live = true;
    it->second.held.clear();
  }
  return id;
}

void RunManager::unsubscribe(int id) {
  std::lock_guard lock(m_mutex);
  m_subscribers.erase(id);
}

Result<json> RunManager::events(const std::string& run_id, int64_t after) {
  auto row = TRY(m_db.get_run(run_id));
  if (!row) return errorf(Code::NotFound, "no run '{}'", run_id);
  auto rows = TRY(m_db.events(run_id, after));
  json out = json::array();
  for (const auto& e : rows) out.push_back(event_json(e));
  return out;
}

Result<json> RunManager::stored_llm_settings() {
  auto stored = TRY(m_db.get_setting("llm"));
  json s = stored ? parse_json(*stored).value_or(json::object()) : json::object();
  return s.is_object() ? s : json::object();
}

std::string RunManager::stored_api_key() {
  auto stored = stored_llm_settings();
  std::string provider = stored && stored->contains("provider") && (*stored)["provider"].is_string() ? (*stored)["provider"].get<std::string>() : "";
  if (provider.empty()) provider = "default";
  if (auto k = llm::keyring_lookup(provider)) return *k;
  if (auto k = llm::key_file_lookup(m_config.data_dir + "/secrets.json", provider)) return *k;
  std::ifstream in(m_config.data_dir + "/secrets.json");
  if (!in) return "";
  std::stringstream ss;
  ss << in.rdbuf();
  json secrets = parse_json(ss.str()).value_or(json::object());
  if (!secrets.is_object() || !secrets.contains("api_key") || !secrets["api_key"].is_string()) return "";
  return secrets["api_key"].get<std::string>();
}

Result<json> RunManager::settings() {
  json s = TRY(stored_llm_settings());
  std::string key = stored_api_key();
  s["api_key"] = key.empty() ? json(nullptr) : json(mask(key));
  s["key_store"] = llm::keyring_available() ? "keyring" : "file";
  for (const char* k : kStringOptions)
    if (!s.contains(k)) s[k] = nullptr;
  if (!s.contains("max_iterations")) s["max_iterations"] = 25;
  s["default_context"] = m_config.mine_by_default ? "mine" : "clean";
  s["workspace"] = m_config.workspace.empty() ? json(nullptr) : json(m_config.workspace);
  // Whether a run could start now (stored settings, environment, config file), and if not, why.
  if (auto r = resolve(json::object())) {
    s["configured"] = true;
    s["effective"] = r->to_public_json();
  } else {
    s["configured"] = false;
    s["configured_error"] = r.error().message;
  }
  s["allowed_sites"] = remembered_sites(m_db);
  return s;
}

json RunManager::providers() { return llm::provider_catalog(); }

Result<json> RunManager::test_connection(const json& body) {
  if (!body.is_object()) return errorf(Code::InvalidArgument, "a connection test takes the settings to try as an object, got {}", describe(body));
  json options = json::object();
  for (const char* k : {"provider", "model", "sub_model", "base_url", "api_key"})
    if (body.contains(k) && body[k].is_string() && !body[k].get<std::string>().empty()) options[k] = body[k];
  auto settings = resolve(options);
  if (!settings) {
    std::string kind = settings.error().details.is_object() ? settings.error().details.value("kind", "setup") : "setup";
    return json{{"ok", false}, {"kind", kind}, {"error", settings.error().message}};
  }
  return llm::test_connection(*settings);
}

Result<json> RunManager::update_settings(const json& body) {
  if (!body.is_object()) return errorf(Code::InvalidArgument, "settings must be a JSON object, got {}", describe(body));
  for (const auto& [k, v] : body.items()) {
    if (is_string_option(k) || k == "api_key") {
      if (!v.is_string() && !v.is_null()) return errorf(Code::InvalidArgument, "{} must be a string or null, got {}", k, describe(v));
    } else if (k == "max_iterations") {
      if (!whole_in(v, 1, kMaxIterations))
        return errorf(Code::InvalidArgument, "max_iterations must be a whole number from 1 to {}, got {}", kMaxIterations, describe(v));
    } else if (is_model_option(k)) {
      if (!v.is_null()) TRY(llm::parse_model_params(json{{k, v}}, "settings"));
    } else if (k == "allowed_sites") {
      // The sites allowed "always": the Command Center lists them and takes them back (below).
      if (!v.is_array()) return errorf(Code::InvalidArgument, "allowed_sites must be a list of sites, got {}", describe(v));
    } else {
      return errorf(Code::InvalidArgument,
                    "unknown setting '{}'; the settings are provider, model, sub_model, base_url, max_iterations, max_tokens, temperature, "
                    "thinking, api_key, allowed_sites",
                    short_name(k));
    }
  }
  if (body.contains("allowed_sites")) TRY(set_remembered_sites(m_db, body["allowed_sites"]));
  json s = TRY(stored_llm_settings());
  for (const char* k : kStringOptions)
    if (body.contains(k)) s[k] = body[k];
  if (body.contains("max_iterations")) s["max_iterations"] = *whole_in(body["max_iterations"], 1, kMaxIterations);
  for (const char* k : kModelOptions)
    if (body.contains(k)) {
      if (body[k].is_null()) s.erase(k);
      else s[k] = body[k];
    }
  TRY(m_db.set_setting("llm", dump_json(s)));
  if (body.contains("api_key")) {
    // Kept under the provider it is for: in the OS keyring when one answers, else the 0600 file.
    std::string path = m_config.data_dir + "/secrets.json";
    std::string provider = s.contains("provider") && s["provider"].is_string() && !s["provider"].get<std::string>().empty()
                               ? s["provider"].get<std::string>()
                               : "default";
    if (body["api_key"].is_string() && !body["api_key"].get<std::string>().empty()) {
      std::string key = body["api_key"].get<std::string>();
      if (!(llm::keyring_available() && llm::keyring_store(provider, key))) TRY(llm::key_file_store(path, provider, key));
      else (void)llm::key_file_store(path, provider, "");  // one place only
    } else {
      (void)llm::keyring_clear(provider);  // best effort: there may be none
      if (std::filesystem::exists(path)) TRY(llm::key_file_store(path, provider, ""));
    }
  }
  return settings();
}

Result<llm::Settings> RunManager::resolve(const json& options) {
  json s = TRY(stored_llm_settings());
  auto pick = [&](const char* k) -> std::optional<std::string> {
    for (const json* from : {&options, static_cast<const json*>(&s)})
      if (auto it = from->find(k); it != from->end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
    return std::nullopt;
  };
  llm::SettingsFlags f;
  f.provider = pick("provider");
  f.model = pick("model");
  f.sub_model = pick("sub_model");
  f.base_url = pick("base_url");
  if (std::string key = stored_api_key(); !key.empty()) f.api_key = key;
  if (auto it = options.find("api_key"); it != options.end() && it->is_string() && !it->get<std::string>().empty()) f.api_key = it->get<std::string>();
  auto resolved = llm::resolve_settings(f);
  if (!resolved && resolved.error().code == Code::FailedPrecondition)
    // In the Command Center there are no flags to pass: Settings is where a model is chosen.
    return make_error(Code::FailedPrecondition,
                      "no model is configured: open Settings (⚙) and choose a provider — a hosted one with its API key, or a local "
                      "server (Ollama, LM Studio, vLLM, llama.cpp) — then Test connection. Without a model, the REPL and tabs still work.",
                      {{"kind", "no-model"}});
  auto settings = TRY(std::move(resolved));
  // The run's options, then Settings, over what the environment and config file give.
  for (const json* from : {static_cast<const json*>(&s), &options}) {
    json given = json::object();
    for (const char* k : kModelOptions)
      if (from->contains(k) && !(*from)[k].is_null()) given[k] = (*from)[k];
    auto p = TRY(llm::parse_model_params(given, from == &options ? "options" : "settings"));
    if (p.max_tokens) settings.params.max_tokens = p.max_tokens;
    if (p.temperature) settings.params.temperature = p.temperature;
    if (p.thinking) settings.params.thinking = p.thinking;
  }
  return settings;
}

std::string RunManager::context_of(const json& options) const {
  if (auto c = options.find("context"); c != options.end() && c->is_string()) return c->get<std::string>();
  if (auto p = options.find("profile"); p != options.end() && p->is_boolean()) return p->get<bool>() ? "mine" : "clean";
  return m_config.mine_by_default ? "mine" : "clean";
}

Result<json> RunManager::create(const json& body) {
  if (!body.is_object() || !body.contains("task") || !body["task"].is_string() || body["task"].get<std::string>().find_first_not_of(" \t\n") == std::string::npos)
    return make_error(Code::InvalidArgument, "a run needs {\"task\": \"what to do\"} (and optionally urls: [...], options: {...})");
  if (body.contains("urls")) {
    const json& urls = body["urls"];
    if (!urls.is_array() || !std::all_of(urls.begin(), urls.end(), [](const json& u) { return u.is_string(); }))
      return errorf(Code::InvalidArgument, "urls must be a list of strings, got {}", describe(urls));
    if (urls.size() > kMaxUrls) return errorf(Code::InvalidArgument, "urls: at most {} start pages, got {}", kMaxUrls, urls.size());
  }
  json options = body.contains("options") ? body["options"] : json::object();
  TRY(check_options(options));
  std::string task = body["task"].get<std::string>();
  // `$ …` is the command language, run without a model (issue 17).
  if (size_t at = task.find_first_not_of(" \t\r\n"); at != std::string::npos && task[at] == '$') task = task.substr(at);
  // Settings problems (no key) are reported now, not as a failed run later.
  if (task[0] != '$' && !options.contains("script")) TRY(resolve(options));
  auto run = std::make_shared<Active>();
  run->id = new_run_id();
  run->task = task;
  run->row.id = run->id;
  run->row.task = run->task;
  run->row.state = "queued";
  // The start pages go with the options: a resumed or continued run is given the same sites.
  json kept = options;
  if (body.contains("urls") && !body["urls"].empty()) kept["urls"] = body["urls"];
  run->row.options = dump_json(kept);
  run->row.created_at = run->row.updated_at = now_ms();
  json created = row_json(run->row);
  {
    std::lock_guard lock(m_mutex);
    if (m_stopping) return make_error(Code::Unavailable, "ouro is shutting down");
    if (size_t busy = busy_runs(); busy >= m_config.max_active_runs)
      return errorf(Code::ResourceExhausted, "{} runs are in progress, the limit: wait for one to finish, or cancel one", busy);
    expire_idle(m_config.max_idle_runs);
    TRY(m_db.insert_run(run->row));
    m_runs[run->id] = run;
    // Started under the lock: the thread cannot hand itself to the reaper before `thread` is set.
    try {
      run->thread = std::thread([this, run, body] { run_thread(run, body); });
    } catch (const std::system_error& e) {
      m_runs.erase(run->id);
      run->row.state = "failed";
      run->row.error = std::string("cannot start a thread for the run: ") + e.what();
      if (auto updated = m_db.update_run(run->row); !updated)
        spdlog::error("run {}: cannot record its failure to start: {}", run->id, redact(updated.error().message));
      return errorf(Code::ResourceExhausted, "cannot start the run: {}", e.what());
    }
  }
  return created;
}

// The run thread's one exception boundary: whatever escapes ends this run, not the process;
// the session has been torn down by the time it is caught. Then the thread hands itself to the
// reaper.
void RunManager::run_thread(std::shared_ptr<Active> run, json body) {
  try {
    execute(run, std::move(body));
  } catch (const std::exception& e) {
    std::string why = redact(std::string("internal error: ") + e.what());
    spdlog::error("run {}: {}", run->id, why);
    try {
      record_failure(*run, why, "The run failed: " + why);
    } catch (const std::exception& again) {
      spdlog::error("run {}: cannot record the failure: {}", run->id, redact(again.what()));
      std::lock_guard lock(run->mutex);
      run->finished = true;
    }
  }
  {
    std::lock_guard lock(m_mutex);
    m_torn_down.push_back(run);
  }
  m_reap.notify_all();
}

// A run that ends without a result of the agent's: an error event, the failed row, a complete
// event with the message as its partial final.
void RunManager::record_failure(Active& run, const std::string& why, const std::string& message) {
  publish(run, "error", {{"error", why}}, now_ms());
  run.row.state = "failed";
  run.row.error = why;
  run.row.updated_at = now_ms();
  json final = {{"partial", true}, {"message", message}};
  run.row.final_json = dump_json(final);
  run.row.partial = true;
  if (auto updated = m_db.update_run(run.row); !updated)
    spdlog::error("run {}: cannot record its failure: {}", run.id, redact(updated.error().message));
  publish(run, "complete", {{"final", final}, {"iterations", run.row.iterations}, {"partial", true}, {"error", why}}, now_ms());
  std::lock_guard lock(run.mutex);
  run.finished = true;
}

namespace {
// A turn's state from its result: "done" only when it finished with its answer.
std::string turn_state(const agent::RunResult& r, const std::string& store_error) {
  return !store_error.empty() ? "failed" : r.cancelled ? "cancelled" : !r.error.empty() ? "failed" : r.partial ? "partial" : "done";
}
}  // namespace

// A turn's outcome in the run's row: its state and final, the iterations, tokens and cost of
// every turn so far.
void RunManager::record_turn(Active& run, const agent::RunResult& r, const std::string& store_error) {
  run.row.state = turn_state(r, store_error);
  run.row.iterations += r.iterations;
  run.row.final_json = dump_json(r.final);
  run.row.partial = r.partial || !store_error.empty();
  json usage = parse_json(run.row.usage_json.empty() ? "{}" : run.row.usage_json).value_or(json::object());
  json now = r.usage.to_json();
  if (usage.is_object() && now.is_object()) {
    for (const auto& [k, v] : now.items()) {
      if (v.is_number_integer() && (!usage.contains(k) || usage[k].is_number_integer())) usage[k] = usage.value(k, int64_t{0}) + v.get<int64_t>();
      else if (!usage.contains(k)) usage[k] = v;
    }
  }
  run.row.usage_json = dump_json(usage.is_object() && !usage.empty() ? usage : now);
  if (!r.cost_known) run.row.cost = std::nullopt;
  else run.row.cost = run.row.cost.value_or(0) + r.cost_usd;
  run.row.error = !store_error.empty() ? "the run's events could not be stored: " + store_error : r.error;
  run.row.updated_at = now_ms();
  if (auto updated = m_db.update_run(run.row); !updated) spdlog::error("run {}: cannot record its result: {}", run.id, redact(updated.error().message));
}

namespace {
// The provider of a run that was started as `$ commands` with no model configured.
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

void RunManager::execute(std::shared_ptr<Active> run, json body) {
  const json options = body.contains("options") ? body["options"] : json::object();
  auto fail = [&](const std::string& why) { record_failure(*run, why, "The run could not start: " + why); };
  auto settings = resolve(options);
  // `$ commands` need no model: without one, the run goes on, and a later plain-words message
  // fails with what is missing.
  const bool commands = !run->task.empty() && run->task[0] == '$';
  // A replay (options.script) answers the loop with a saved script's steps: no model either.
  scripts::ReplayProvider* replay = nullptr;
  Result<std::unique_ptr<llm::Provider>> provider = make_error(Code::Internal, "no provider");
  if (auto sc = options.find("script"); sc != options.end()) {
    std::optional<int> version;
    if (sc->contains("version")) version = (*sc)["version"].get<int>();
    auto script = scripts::get(m_db, get_str(*sc, "name"), version);
    if (!script) return fail(script.error().message);
    std::map<std::string, std::string> vars;
    const json given = sc->contains("vars") ? (*sc)["vars"] : json::object();
    for (const auto& [k, v] : given.items()) vars[k] = v.get<std::string>();
    auto made = scripts::ReplayProvider::create(std::move(*script), vars);
    if (!made) return fail(made.error().message);
    replay = made->get();
    // fallback: the configured model takes over where a step cannot heal (a scheduled job's, or the
    // request's). Without one the replay stops there with its error, as any replay does.
    if (get_bool(*sc, "fallback")) {
      auto model = settings ? llm::make_provider(settings->spec) : Result<std::unique_ptr<llm::Provider>>(tl::make_unexpected(settings.error()));
      if (model) replay->set_fallback(std::move(*model), settings->model, settings->sub_model);
      else spdlog::warn("run {}: replays without a model to take over: {}", run->id, redact(model.error().message));
    }
    provider = std::unique_ptr<llm::Provider>(std::move(*made));
  } else {
    if (!settings && !commands) return fail(settings.error().message);
    provider = settings ? llm::make_provider(settings->spec) : Result<std::unique_ptr<llm::Provider>>(std::make_unique<NoModel>(settings.error().message));
  }
  if (!provider) return fail(provider.error().message);
  if (!settings) settings = llm::Settings{};
  session::SessionOptions so;
  // Through the extension (docs/design/extension-bridge.md): the user's Chrome, in a tab group of
  // the run's own. The rule: such a run works in the user's profile ("mine"); what the extension
  // cannot give — a clean context with cookies of its own, a downloads folder of ouro's — is
  // not available there, and a run that asks for a clean context is refused with that reason.
  const bool via_extension = options.contains("browser") ? get_str(options, "browser") == "extension" : m_config.default_browser == "extension";
  if (via_extension && options.contains("context") && context_of(options) == "clean")
    return fail("a clean context (cookies of its own) cannot exist through the extension: a run in the user's Chrome works in its "
                "profile and its tab group (context 'mine'). Drop context 'clean', or leave out browser 'extension' to use ouro's own browser");
  if (via_extension && m_config.pool) return fail("this server's runs use a browser pool; browser 'extension' is for ouro serve with a browser of its own");
  so.isolated = !via_extension && (context_of(options) == "clean" || m_config.pool);  // a pool's browsers are no one's own
  // My browser: the user's tabs, held one run at a time, left open. Through the extension the
  // run's browser is its tab group alone: every tab there is the run's (the user shared it).
  so.shared = !so.isolated && !via_extension;
  so.owner = "run " + run->id;
  std::vector<std::string> urls;
  if (body.contains("urls") && body["urls"].is_array())
    for (const auto& u : body["urls"])
      if (u.is_string()) urls.push_back(u.get<std::string>());
  // The egress gate: the run's sites (its URLs, its task's, the settings file's and the run's
  // allowed_domains), its mode and permissions (the run's over the settings file's).
  auto file = safety::load_safety_settings(m_config.config_path);
  if (!file) return fail(file.error().message);
  auto mine = safety::safety_settings_from(options, "options");
  if (!mine) return fail(mine.error().message);
  safety::GateConfig gc;
  gc.urls = urls;
  gc.task = run->task;
  gc.allow_domains = file->allowed_domains;
  auto always = remembered_sites(m_db);
  gc.allow_domains.insert(gc.allow_domains.end(), always.begin(), always.end());
  so.trusted_sites = always;
  gc.allow_domains.insert(gc.allow_domains.end(), mine->allowed_domains.begin(), mine->allowed_domains.end());
  gc.mode = mine->mode.value_or(file->mode.value_or(safety::GateMode::Careful));
  auto policy = safety::make_policy(gc);
  if (!policy) return fail(policy.error().message);
  so.gate = *policy;
  so.secrets = file->secrets;
  auto levels = file->permissions;
  for (const auto& [k, v] : mine->permissions) levels[k] = v;
  auto permissions = actions::permission_overrides(levels);
  if (!permissions) return fail(permissions.error().message);
  so.permissions = *permissions;
  if (!m_config.ouro_binary.empty()) so.repl.executable = m_config.ouro_binary;
  so.repl.timeout = std::chrono::seconds(180);
  so.limits.action_timeout = m_config.action_timeout;
  so.repl.initial_env = run->restore_env;
  // A scheduled run compares with its schedule's previous run (previousFinal()).
  if (auto s = options.find("schedule"); s != options.end() && s->is_string()) {
    auto previous = schedule::previous_final(m_db, s->get<std::string>(), run->id);
    if (previous) so.previous_final = *previous;
    else spdlog::warn("run {}: cannot read its schedule's previous final: {}", run->id, redact(previous.error().message));
  }
  // On a browser pool: a place on the least-loaded healthy endpoint (queued while all are full).
  std::optional<session::BrowserPool::Lease> lease;
  auto cancelled = [run] {
    std::lock_guard lock(run->mutex);
    return run->cancel_requested;
  };
  if (m_config.pool) {
    auto placed = m_config.pool->acquire(std::chrono::duration_cast<std::chrono::milliseconds>(m_config.pool_wait), cancelled);
    if (!placed) return fail(placed.error().message);
    lease.emplace(std::move(*placed));
    {
      std::lock_guard lock(m_mutex);
      if (m_placed.insert_or_assign(run->id, lease->endpoint()).second) m_placed_order.push_back(run->id);
      while (m_placed_order.size() > 1000) {
        m_placed.erase(m_placed_order.front());
        m_placed_order.pop_front();
      }
    }
    publish(*run, "placement", {{"endpoint", lease->endpoint()}}, now_ms());
  }
  std::shared_ptr<session::Runtime> bridged;
  if (via_extension) {
    auto made = bridge_runtime(*run);
    if (!made) return fail(made.error().message);
    bridged = std::move(*made);
    publish(*run, "placement", {{"endpoint", "extension"},
                                {"note", "in your Chrome, through ouro's extension, in the tab group named after this task; it works in your "
                                         "profile (context 'mine'): a clean context cannot exist through the extension"}},
            now_ms());
  }
  auto session = session::Session::attach(bridged ? bridged : lease ? lease->runtime() : m_runtime, so);
  if (!session) return fail(session.error().message);
  std::string resume_note;
  if (run->resume) {
    auto restored = restore_browser(**session, *run->resume);
    if (!restored) return fail(restored.error().message);
    resume_note = *restored;
    (*provider)->seek(run->resume->state.provider);
  } else if (!run->restored) {
    if (auto opened = (*session)->open_urls(urls); !opened) return fail(opened.error().message);
  }

  agent::RunOptions ro;
  ro.task = run->task;
  ro.model = settings->model;
  ro.sub_model = settings->sub_model;
  ro.params = settings->params;
  ro.max_iterations = 25;
  if (options.contains("agent") && options["agent"].is_string()) ro.agent = options["agent"].get<std::string>();
  if (auto n = options.contains("max_iterations") ? whole_in(options["max_iterations"], 1, kMaxIterations) : std::nullopt) {
    ro.max_iterations = *n;
  } else if (auto stored = stored_llm_settings(); stored && stored->contains("max_iterations")) {
    ro.max_iterations = whole_in((*stored)["max_iterations"], 1, kMaxIterations).value_or(25);
  }
  ro.confirm_timeout = m_config.confirm_timeout;
  if (replay) {
    // Targets the script recorded, for the host to find changed ones again (actions/targets.h).
    ro.recorded = [replay](const std::string& action, const std::string& selector) { return replay->recorded(action, selector); };
    ro.vet_block = [replay](const json& meta) { return replay->vet(meta); };
    ro.max_iterations = std::max(ro.max_iterations, replay->max_iterations());
  }
  // After every iteration: the checkpoint a crash resumes from (before its event is stored).
  auto checkpoint_in = [this, run](session::Session* checkpointed) {
    return [this, run, checkpointed](int iteration, const std::string& state, const std::string& env) {
      return store_checkpoint(m_db, *checkpointed, run->id, iteration, state, env);
    };
  };
  ro.on_checkpoint = checkpoint_in(session->get());
  // On a pool, a dead endpoint stops the run at its next iteration boundary, to move it.
  ro.stop_when_browser_lost = m_config.pool != nullptr;
  ro.confirm = [this, run](const json& req) {
    std::string id = req.value("id", "");
    std::unique_lock lock(run->mutex);
    // The question went out as an event just before this: an answer may already be here.
    run->confirmations.try_emplace(id, std::nullopt);
    bool answered = run->answered.wait_for(lock, m_config.confirm_timeout, [&] { return run->cancel_requested || run->confirmations[id].has_value(); });
    bool approved = answered && run->confirmations[id].value_or(false);
    bool always = approved && run->remember.erase(id) > 0;
    run->confirmations.erase(id);
    run->closed_confirmations.insert(id);
    lock.unlock();
    // "Always": a site question (leaving the allowed sites, one of the user's tabs) is not asked again.
    if (std::string site = site_question(req); always && !site.empty()) remember_site(m_db, site);
    return approved;  // no answer in time counts as deny
  };
  ro.ask_user = [this, run](const json& q) -> std::optional<std::string> {
    std::string id = get_str(q, "id");
    auto set_state = [&](const char* state) {
      std::lock_guard lock(m_mutex);  // the run thread leaves its row alone while the run executes
      run->row.state = state;
      run->row.updated_at = now_ms();
      if (auto updated = m_db.update_run(run->row); !updated)
        spdlog::warn("run {}: cannot record its state: {}", run->id, redact(updated.error().message));
    };
    std::optional<std::string> answer;  // the state is awaiting_user since the question was published
    {
      std::unique_lock lock(run->mutex);
      run->questions.try_emplace(id);  // registered when its event was published
      run->answered.wait_for(lock, m_config.ask_timeout, [&] { return run->cancel_requested || run->questions[id].answer.has_value(); });
      answer = run->questions[id].answer;
      run->questions.erase(id);
      run->closed_questions.insert(id);
    }
    set_state("running");
    return answer;
  };
  // A conversation: each message after a turn is a new turn in the same session (env, tabs,
  // store), with the earlier turns in the prompt; the session waits for one up to keep_idle.
  std::string task = body.value("task", run->task);
  if (run->resume) {
    ro.resume = run->resume->state;
    ro.resume_note = resume_note;
    task = run->resume->state.task;
  } else if (run->restored) {
    publish(*run, "user-message", {{"text", task}, {"turn", run->turns.size() + 1}}, now_ms());
  }
  session::Session::Held held;  // in the user's browser: the tabs let go between turns
  while (true) {
    (*session)->take_back(held);
    ro.task = task;
    ro.earlier = run->turns;
    ro.first_iteration = run->row.iterations + 1;
    run->row.state = "running";
    run->row.updated_at = now_ms();
    if (auto updated = m_db.update_run(run->row); !updated)
      spdlog::warn("run {}: cannot record that it is running: {}", run->id, redact(updated.error().message));
    agent::RunResult r;
    for (bool moved = false;; moved = true) {
      {
        agent::Run agent_run(**session, **provider, ro, [this, run, replay](const agent::Event& e) {
          if (replay) replay->observe(e.type, e.data);
          publish(*run, e.type, e.data, e.ts);
        });
        {
          std::lock_guard lock(run->mutex);
          run->run = &agent_run;
          run->session = session->get();
          run->finished = false;
          if (!moved && (!run->resume || run->first_begun)) ++run->begun;  // a resumed turn was begun before the restart
          run->first_begun = true;
          if (run->cancel_requested) agent_run.cancel();
        }
        r = agent_run.execute();
        std::lock_guard lock(run->mutex);
        run->run = nullptr;
      }
      if (r.browser_lost.empty() || r.cancelled || !lease) break;
      // Its endpoint died: on to another from the last checkpoint, as a resume goes on (failover.h).
      std::string from = lease->endpoint();
      auto to = fail_over(m_db, *m_config.pool, run->id, from, r.browser_lost, so,
                          std::chrono::duration_cast<std::chrono::milliseconds>(m_config.pool_wait), cancelled);
      if (!to) {
        r.error = to.error().message;
        r.final = {{"partial", true}, {"message", "The run stopped: " + r.error}};
        publish(*run, "error", {{"error", r.error}}, now_ms());
        publish(*run, "complete", {{"final", r.final}, {"iterations", run->row.iterations + r.iterations}, {"partial", true}, {"error", r.error}}, now_ms());
        break;
      }
      {
        std::lock_guard lock(run->mutex);
        run->session = to->session.get();
      }
      session->swap(to->session);  // the dead session closes when `to` goes
      lease.swap(to->lease);
      {
        std::lock_guard lock(m_mutex);
        m_placed[run->id] = lease->endpoint();
      }
      const ResumePoint& point = to->point;
      publish(*run, "failover", {{"from", from}, {"to", lease->endpoint()}, {"reason", r.browser_lost}, {"fromIteration", point.state.last_iteration + 1}},
              now_ms());
      // As a resume: the whole run's usage comes back with the checkpoint's state.
      run->row.usage_json.clear();
      run->row.cost = point.state.cost_known ? std::optional<double>(0) : std::nullopt;
      run->row.iterations = point.state.last_iteration - point.state.turn_iterations;
      (*provider)->seek(point.state.provider);
      ro.resume = point.state;
      ro.resume_note = to->note;
      ro.on_checkpoint = checkpoint_in(session->get());
    }
    ro.resume.reset();  // the turns after the resumed one start as any turn does
    std::string store_error;
    {
      std::lock_guard lock(m_mutex);
      store_error = run->store_error;
    }
    // Memory across tasks: a turn that finished with its answer is remembered for later runs
    // (before its row says done, so a run started after that finds it), unless the run said not
    // to. A failure is logged there and the run goes on.
    // A replay is not remembered: its task carries the values it was given (they may be secrets),
    // and it learned nothing its script did not know.
    if (turn_state(r, store_error) == "done" && !(options.contains("remember") && options["remember"] == false) && !options.contains("script"))
      (void)remember_run(m_db, run->id, task, r.final);
    // A replay that healed a step or that a model took over from leaves a new version of its script.
    if (replay && turn_state(r, store_error) == "done") {
      auto saved = scripts::save_replayed(m_db, run->id, *replay);
      if (!saved) spdlog::warn("run {}: the replayed script is not rewritten: {}", run->id, redact(saved.error().message));
      else if (*saved)
        publish(*run, "script-saved", {{"name", (*saved)->name}, {"version", (*saved)->version}, {"based_on", (*saved)->based_on},
                                       {"changes", (*saved)->changes}}, now_ms());
    }
    record_turn(*run, r, store_error);
    // Which path the turn ran (a replay, a replay a model took over, an agent), in its usage.
    if (replay || options.contains("schedule")) {
      json usage = parse_json(run->row.usage_json).value_or(json::object());
      if (usage.is_object()) {
        usage["path"] = replay ? replay->path() : "agent";
        run->row.usage_json = dump_json(usage);
        if (auto updated = m_db.update_run(run->row); !updated) spdlog::warn("run {}: cannot record its path: {}", run->id, redact(updated.error().message));
      }
    }
    // The env as this turn left it, for a conversation continued after this session is gone.
    if (auto saved = m_db.set_checkpoint(run->id, (*session)->repl().env_checkpoint()); !saved)
      spdlog::warn("run {}: cannot keep its env for a follow-up: {}", run->id, redact(saved.error().message));
    run->turns.push_back({task, final_text(r.final)});
    held = (*session)->let_go();
    std::unique_lock lock(run->mutex);
    // Messages that came too late for an iteration open the next turn.
    for (auto g = r.unread_guidance.rbegin(); g != r.unread_guidance.rend(); ++g) run->inbox.push_front(*g);
    run->finished = true;
    if (!store_error.empty() || r.cancelled || run->cancel_requested || !r.browser_lost.empty()) {
      run->leaving = true;
      break;
    }
    run->idle = true;
    run->idle_since = Clock::now();
    // On a browser pool a place is for a run that works: between turns the session goes, and a
    // follow-up continues from storage on whichever endpoint is free then.
    run->answered.wait_for(lock, m_config.pool ? std::chrono::seconds(0) : m_config.keep_idle,
                           [&] { return !run->inbox.empty() || run->expire || run->cancel_requested; });
    run->idle = false;
    if (run->inbox.empty() || run->expire || run->cancel_requested) {
      run->leaving = true;
      break;
    }
    task = run->inbox.front();
    run->inbox.pop_front();
    lock.unlock();
    publish(*run, "user-message", {{"text", task}, {"turn", run->turns.size() + 1}}, now_ms());
  }
  {
    std::lock_guard lock(run->mutex);
    run->session = nullptr;
    run->idle = false;
  }
  // Teardown follows on this thread: agent_run goes before the session it uses (locals die in
  // reverse order), and the session closes its browser context, waiting for Chromium.
}

Result<json> RunManager::get(const std::string& id) {
  auto row = TRY(m_db.get_run(id));
  if (!row) return errorf(Code::NotFound, "no run '{}'", id);
  json j = row_json(*row);
  std::shared_ptr<Active> active;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(id); it != m_runs.end()) active = it->second;
    if (auto p = m_placed.find(id); p != m_placed.end()) j["endpoint"] = p->second;
  }
  if (active) {
    std::lock_guard lock(active->mutex);
    json pending = json::array();
    for (const auto& [cid, answer] : active->confirmations)
      if (!answer) pending.push_back(cid);
    j["pendingConfirmations"] = pending;
    json questions = json::array();
    for (const auto& [qid, q] : active->questions)
      if (!q.answer) questions.push_back(qid);
    j["pendingQuestions"] = questions;
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
  json out = {{"tabs", tabs}, {"activeTab", run->session->active_tab()}};
  // A run in the user's Chrome (the extension) has tab ids of its own browser, not the server's.
  if (&run->session->browser() != m_runtime->browser.get()) out["ownBrowser"] = false;
  return out;
}

Result<json> RunManager::list() {
  auto rows = TRY(m_db.list_runs(200));
  json out = json::array();
  std::lock_guard lock(m_mutex);
  for (const auto& r : rows) {
    out.push_back(row_json(r));
    if (auto p = m_placed.find(r.id); p != m_placed.end()) out.back()["endpoint"] = p->second;
  }
  return out;
}

// A browser of the run's own on the extension's bridge: a Browser over a bridge transport for
// the run's conversation, on the server's network thread and database.
Result<std::shared_ptr<session::Runtime>> RunManager::bridge_runtime(const Active& run) {
  if (!m_config.bridge) return make_error(Code::FailedPrecondition, "this server takes no extension (only ouro serve does)");
  auto link = TRY(m_config.bridge->link(std::chrono::seconds(10)));
  cdp::BridgeTarget target;
  target.conversation = run.id;
  target.title = run.task.substr(0, 60);
  browser::BrowserOptions bo;
  bo.connect_url = cdp::offer_transport(cdp::make_bridge_transport(*m_runtime->io, std::move(link), target));
  auto started = browser::Browser::start(*m_runtime->io, bo);
  if (!started) {
    (void)cdp::take_transport(bo.connect_url);  // not left behind when start failed before taking it
    return make_error(started.error().code, "cannot use the browser through the extension: " + started.error().message);
  }
  return session::make_runtime(m_runtime->io, m_runtime->db, std::move(*started), m_runtime->data_dir);
}

Result<json> RunManager::pool_state() {
  if (!m_config.pool) return make_error(Code::NotFound, "this server has no browser pool (ouro serve --browser-pool FILE, or --browser twice or more)");
  return m_config.pool->to_json();
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

size_t RunManager::busy_runs() {
  size_t n = 0;
  for (auto& [id, r] : m_runs) {
    std::lock_guard lock(r->mutex);
    if (!r->idle) ++n;
  }
  return n;
}

void RunManager::expire_idle(size_t keep) {
  std::vector<std::pair<Clock::time_point, std::shared_ptr<Active>>> idle;
  for (auto& [id, r] : m_runs) {
    std::lock_guard lock(r->mutex);
    if (r->idle && !r->expire) idle.emplace_back(r->idle_since, r);
  }
  if (idle.size() <= keep) return;
  std::sort(idle.begin(), idle.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i + keep < idle.size(); ++i) {
    auto& r = idle[i].second;
    {
      std::lock_guard lock(r->mutex);
      r->expire = true;
    }
    r->answered.notify_all();
  }
}

Result<json> RunManager::message(const std::string& run_id, const std::string& text) {
  if (text.find_first_not_of(" \t\n") == std::string::npos) return make_error(Code::InvalidArgument, "a message needs {\"text\": \"what to do next\"}");
  if (text.size() > 20000) return errorf(Code::InvalidArgument, "a message is at most 20,000 characters, got {}", text.size());
  std::shared_ptr<Active> run;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(run_id); it != m_runs.end()) run = it->second;
  }
  if (run) {
    {
      std::lock_guard lock(run->mutex);
      if (run->run) {
        // A turn is working: guidance for its next iteration.
        if (!run->run->add_guidance(text))
          return errorf(Code::ResourceExhausted, "run {} has 20 messages waiting already; wait for it to read them", run_id);
        return json{{"id", run_id}, {"delivered", "guidance"}};
      }
      // Between turns (waiting, or just recording the last one) or still starting: the message
      // opens the next turn as soon as the session is free for it.
      if (!run->leaving && !run->expire && !run->cancel_requested) {
        if (run->inbox.size() >= 20) return errorf(Code::ResourceExhausted, "run {} has 20 messages waiting already", run_id);
        run->inbox.push_back(text);
        run->answered.notify_all();
        int turn = run->begun + (run->first_begun ? 0 : 1) + static_cast<int>(run->inbox.size());
        return json{{"id", run_id}, {"delivered", "turn"}, {"turn", turn}};
      }
    }
    return errorf(Code::Unavailable, "run {} is closing its session; send the message again in a moment", run_id);
  }
  // Its session has gone (kept too long idle, or ouro restarted): continue from storage.
  auto stored = TRY(load_conversation(m_db, run_id));
  auto restored = std::make_shared<Active>();
  restored->id = run_id;
  restored->task = stored.row.task;
  restored->row = stored.row;
  restored->restored = true;
  restored->restore_env = stored.env;
  restored->turns = stored.turns;
  restored->begun = static_cast<int>(stored.turns.size());
  const auto* row = &stored.row;
  json options = parse_json(row->options).value_or(json::object());
  json body = {{"task", text}, {"options", options.is_object() ? options : json::object()}};
  if (body["options"].contains("urls")) {
    body["urls"] = body["options"]["urls"];
    body["options"].erase("urls");
  }
  size_t turn = restored->turns.size() + 1;
  restored->seq = stored.last_seq;
  TRY(start_stored(restored, std::move(body), Code::Unavailable, "is being continued already"));
  return json{{"id", run_id}, {"delivered", "turn"}, {"turn", turn}, {"restored", true}};
}

Result<void> RunManager::start_stored(std::shared_ptr<Active> run, json body, Code busy_code, const char* busy_why) {
  std::lock_guard lock(m_mutex);
  if (m_stopping) return make_error(Code::Unavailable, "ouro is shutting down");
  if (m_runs.count(run->id)) return errorf(busy_code, "run {} {}", run->id, busy_why);
  if (size_t busy = busy_runs(); busy >= m_config.max_active_runs)
    return errorf(Code::ResourceExhausted, "{} runs are in progress, the limit: wait for one to finish, or cancel one", busy);
  expire_idle(m_config.max_idle_runs);
  if (run->row.state == "queued") TRY(m_db.update_run(run->row));
  m_runs[run->id] = run;
  try {
    run->thread = std::thread([this, run, body = std::move(body)] { run_thread(run, body); });
  } catch (const std::system_error& e) {
    m_runs.erase(run->id);
    return errorf(Code::ResourceExhausted, "cannot start the run's thread: {}", e.what());
  }
  return {};
}

Result<json> RunManager::resume(const std::string& run_id) {
  auto point = TRY(load_resume_point(m_db, run_id, {"interrupted"}));
  auto resumed = std::make_shared<Active>();
  resumed->id = run_id;
  resumed->task = point.row.task;
  resumed->row = point.row;
  // The resumed turn's run reports the whole run's usage (the checkpoint's and what follows).
  resumed->row.usage_json.clear();
  resumed->row.cost = point.state.cost_known ? std::optional<double>(0) : std::nullopt;
  resumed->row.iterations = point.state.last_iteration - point.state.turn_iterations;
  resumed->restored = true;
  resumed->restore_env = point.env;
  resumed->turns = point.state.turns;
  resumed->begun = static_cast<int>(point.state.turns.size()) + 1;  // the turn being resumed
  json options = parse_json(point.row.options).value_or(json::object());
  json body = {{"task", point.state.task}, {"options", options.is_object() ? options : json::object()}, {"urls", json::array()}};
  // The gate allows what the run was given and the sites its tabs were on.
  if (body["options"].contains("urls") && body["options"]["urls"].is_array()) body["urls"] = body["options"]["urls"];
  body["options"].erase("urls");
  for (const auto& t : point.state.tabs)
    if (!get_str(t, "url").empty() && body["urls"].size() < 40) body["urls"].push_back(get_str(t, "url"));
  int from = point.state.last_iteration + 1;
  resumed->seq = point.last_seq;
  resumed->resume = std::move(point);
  // Queued from now on: a client that asks at once sees it is no longer interrupted.
  resumed->row.state = "queued";
  resumed->row.error.clear();
  resumed->row.updated_at = now_ms();
  TRY(start_stored(resumed, std::move(body), Code::FailedPrecondition, "is in progress already"));
  return json{{"id", run_id}, {"resumed", true}, {"fromIteration", from}};
}

Result<json> RunManager::answer(const std::string& run_id, const std::string& question_id, const std::string& text) {
  std::shared_ptr<Active> run;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(run_id); it != m_runs.end()) run = it->second;
  }
  if (!run) return errorf(Code::NotFound, "no run '{}' in progress", run_id);
  if (text.size() > 10000) return errorf(Code::InvalidArgument, "an answer is at most 10,000 characters, got {}", text.size());
  {
    std::lock_guard lock(run->mutex);
    auto q = run->questions.find(question_id);
    if (run->finished || q == run->questions.end() || q->second.answer)
      return errorf(Code::NotFound, "run {} is not waiting for an answer to '{}' (answered already, timed out, or never asked)", run_id,
                    short_name(question_id));
    const json& choices = q->second.choices;
    if (!choices.empty() && std::find(choices.begin(), choices.end(), json(text)) == choices.end())
      return errorf(Code::InvalidArgument, "the answer must be one of {}", dump_json(choices));
    q->second.answer = text;
  }
  run->answered.notify_all();
  return json{{"id", question_id}, {"answered", true}};
}

Result<json> RunManager::confirm(const std::string& run_id, const std::string& confirmation_id, bool approved, bool remember) {
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
    if (approved && remember) run->remember.insert(confirmation_id);
  }
  run->answered.notify_all();
  return json{{"id", confirmation_id}, {"approved", approved}};
}

}  // namespace ouro::server
