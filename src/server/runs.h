// The runs behind the API and the Command Center: several at once, each in a session of its own
// on the shared browser (its own browser context unless it asks for the profile's), every event
// appended to SQLite before it is sent to subscribers, confirmations answered by the user.
#pragma once

#include "base/json.h"
#include "llm/settings.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace ouro::session { struct Runtime; struct SessionOptions; }
namespace ouro::store { class Database; }

namespace ouro::server {

class RunManager {
 public:
  struct Config {
    std::string data_dir;                     // holds secrets.json (the API key, mode 0600)
    std::string ouro_binary;                  // for the REPL worker; empty: /proc/self/exe
    std::chrono::seconds confirm_timeout{60};
    std::chrono::milliseconds action_timeout{5000};
  };

  RunManager(std::shared_ptr<session::Runtime> runtime, Config config);
  ~RunManager();  // cancels what runs and waits for it

  // POST /api/runs {task, urls?, options?: {provider, model, sub_model, max_iterations, profile}}
  Result<json> create(const json& body);
  Result<json> get(const std::string& id);
  Result<json> list();
  Result<json> cancel(const std::string& id);
  // The user's answer to a confirmation-req.
  Result<json> confirm(const std::string& run_id, const std::string& confirmation_id, bool approved);

  // The tabs of a run in progress ({tabs, activeTab}), for the live view.
  Result<json> tabs_of(const std::string& run_id);

  // Settings: what the Command Center shows and changes. The key is stored apart (0600) and
  // only ever returned masked.
  Result<json> settings();
  Result<json> update_settings(const json& body);

  // Subscribes to the events of one run (run_id) or of all runs (empty): first every stored event
  // after `after` (a run's seq, or the global id for all runs), then live ones, in order, without
  // gaps or duplicates. The callback must not block; it runs on the emitting thread.
  int subscribe(const std::string& run_id, int64_t after, std::function<void(const json& event)> fn);
  void unsubscribe(int id);

 private:
  struct Active;
  void execute(std::shared_ptr<Active> run, json body);
  void reap();
  void publish(Active& run, const std::string& type, const json& data, double ts);
  Result<llm::Settings> resolve(const json& options);

  std::shared_ptr<session::Runtime> m_runtime;
  store::Database& m_db;
  Config m_config;
  std::mutex m_mutex;  // runs and subscribers; also orders append + broadcast
  std::map<std::string, std::shared_ptr<Active>> m_runs;
  struct Subscriber {
    std::string run_id;
    std::function<void(const json&)> fn;
  };
  std::map<int, Subscriber> m_subscribers;
  int m_next_subscriber = 1;
  bool m_stopping = false;
};

}  // namespace ouro::server
