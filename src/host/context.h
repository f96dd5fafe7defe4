// What a session's capabilities act on, and the limits they act within: one browser context, its
// database, secrets, gate, files, permissions and the hooks a run lends it. Shared by the
// capabilities (actions/), the gate's enforcement (egress/) and the page reads (perception/).
#pragma once

#include "base/json.h"

#include <chrono>
#include <functional>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ouro::browser { class Browser; }
namespace ouro::safety { class KnownSecrets; class SecretStore; }
namespace ouro::store { class Database; }
namespace ouro::memory { struct Embeddings; }

namespace ouro::egress { struct GateState; }

namespace ouro::host {

// Hits and misses of act()'s lookups in the action cache (actions/action_cache.h), for the run's usage.
struct ActionCacheStats {
  std::atomic<int64_t> hits{0};
  std::atomic<int64_t> misses{0};
  json to_json() const;  // {hits, misses, hitRate} (hitRate null before any lookup)
};

using namespace std::chrono_literals;

struct Limits {
  std::chrono::milliseconds action_timeout = 5s;   // actionability waits of click/type/…
  std::chrono::milliseconds exec_timeout = 10s;    // execInTab and page reads
  std::chrono::milliseconds load_timeout = 10s;    // openTab/navigate/waitForLoad default
  size_t result_cap = 100000;                      // characters, for execInTab and page reads
  bool allow_request_modification = false;         // interceptRequests handlers may block/alter requests
  bool reveal_http_only_cookies = false;           // getCookies shows HttpOnly values (default: redacted)
  std::chrono::milliseconds intercept_decision = 3s;  // a paused request goes on unmodified after this
};

struct Context : std::enable_shared_from_this<Context> {
  Context(browser::Browser& b, store::Database* d, Limits l) : browser(b), db(d), limits(l) {}

  browser::Browser& browser;
  store::Database* db = nullptr;  // store/retrieve fail clearly without one
  // Memory's embeddings (memory/embeddings.h): recall by meaning; null or none configured: by words.
  std::shared_ptr<const memory::Embeddings> embeddings;
  Limits limits;
  // Named secrets, typed by handle and scrubbed from every result (may be null: none).
  std::shared_ptr<safety::SecretStore> secrets;  // the session's own (askUser adds to it)
  // The digests of every run's secrets in this data directory (safety/known_secrets.h): what is
  // read back from the store or memory is masked with them. Null: no data directory (tests).
  std::shared_ptr<safety::KnownSecrets> known_secrets;
  // The tab the session works on now (its activeTab), for what belongs to "the current site".
  std::function<std::string()> active_tab;
  // The egress gate over this host's browser context (egress/gate.h), when it has one.
  std::shared_ptr<egress::GateState> gate;
  // Files (actions/files.cpp): the folder this session's downloads land in ("" when the browser
  // keeps its own), the downloads waitForDownload already returned, and the folders upload()
  // may take files from (the downloads folder is one).
  std::string downloads_dir;
  std::vector<std::string> upload_dirs;
  std::mutex files_mutex;
  std::set<std::string> downloads_returned;
  // Permission levels that differ from the registry's defaults (settings, the run's options).
  std::map<std::string, int> permission_overrides;  // capability -> actions::Permission
  // The browser context this host acts in ("" = the profile's): tabs of other contexts (other
  // runs) do not exist for it.
  std::string browser_context;
  // Who this host is, to the browser and in messages ("run r1a2b…", "session 3"): the key of its
  // interceptRequests pauses and of the tabs it holds.
  std::string owner;
  // The context is shared with the user (My browser): acting on a tab needs it held
  // (egress/holds.h), and the egress gate covers held tabs only.
  bool shared_tabs = false;
  // A person's own session (the one driving the Command Center in tests): the hidden tabs (the
  // Command Center's pages) are theirs to see and use. Never for a run.
  bool sees_hidden_tabs = false;
  // Sites the user said "always" to (remembered per profile): acting on their tabs of these
  // sites is not asked about again. Patterns as in safety::SiteList.
  std::vector<std::string> trusted_sites;
  // The final of the previous run of the schedule that started this run (server/scheduler.h),
  // for previousFinal(); null when the run was not scheduled or its schedule has not run before.
  json previous_final;
  // act()'s lookups in the action cache (actions/action_cache.h), for the run's usage.
  ActionCacheStats action_cache;
  // What an agent run lends the host while it runs. Installed and removed as a whole, under a
  // lock, so a pool thread never reads a half-replaced std::function; a call that started before
  // removal keeps the hooks it took alive until it returns.
  struct Hooks {
    // Asks the user to approve a sensitive action (the first safety layer); blocks until the
    // answer or the timeout (a deny). Unset: actions are not gated (a person is driving: ouro
    // exec/repl). The request: {action, selector, tab, url, element, reason, target}.
    std::function<bool(const json& request)> confirm;
    // Hears every decision of the egress gate worth recording (egress/gate.h): a `gate`
    // event's data. Unset: refusals are logged as warnings.
    std::function<void(const json& decision)> on_gate;
    // Asks the user a question of the model's ({id?, question, choices, secret}) and waits for the
    // answer (the Command Center, the terminal, the API); an error when no one answers in time or
    // there is no one to ask. Unset: askUser fails with "no one to ask".
    std::function<Result<std::string>(const json& question)> ask_user;
    // Answers llm_query/llm_batch during an agent run; unset outside runs.
    std::function<Result<json>(const std::string& function, const json& args)> sub_llm;
    // The run's goals (agent/goals.h): addGoal, updateGoal, listGoals; unset outside runs.
    std::function<Result<json>(const std::string& function, const json& args)> goals;
    // Recordings and replays (perception/targets.h). on_record hears what identifies the
    // target of each action ("target": {action, selector, tab, details}) and each target a replay
    // found again ("heal": {step, action, old, new, confidence, candidates}); it never blocks.
    // recorded: in a replay only, what the script recorded about the target a step's action names
    // by this selector ({details, step}), nullopt when nothing was.
    std::function<void(const std::string& type, const json& data)> on_record;
    // Hears each change the run makes to ouro's own state (memory, the key-value store, schedules,
    // goals), for undo (undo/journal.h): {kind, key, before, after}. Unset: nothing is journaled.
    std::function<void(const json& change)> on_change;
    // The settings file's before_tool_call hooks (hooks/hooks.h), for each call the run's code or
    // tools make: the arguments to go on with (changed or as given), or the refusal, whose message
    // the model sees as the call's error. Unset: no such hooks.
    std::function<Result<json>(const std::string& function, const json& args)> before_call;
    std::function<std::optional<json>(const std::string& action, const std::string& selector)> recorded;
  };
  void set_hooks(std::shared_ptr<const Hooks> h) {
    std::lock_guard lock(hooks_mutex);
    installed_hooks = std::move(h);
  }
  std::shared_ptr<const Hooks> hooks() const {
    std::lock_guard lock(hooks_mutex);
    return installed_hooks;
  }
  // Delivers a finished request to an interceptRequests handler inside the REPL.
  std::function<void(const std::string& handler, const json& data)> emit_event;
  // interceptRequests registrations: "tabId pattern" -> browser observer ids (observe-only), and
  // with modification on: tab -> {pattern -> handler id}, and requests paused awaiting a decision.
  std::mutex intercept_mutex;
  std::map<std::string, std::vector<int>> intercepts;
  std::map<std::string, std::map<std::string, std::string>> modifiers;
  std::map<std::string, std::string> paused;  // pause id -> tab id

 private:
  mutable std::mutex hooks_mutex;
  std::shared_ptr<const Hooks> installed_hooks;
};

}  // namespace ouro::host
