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

// The requests an interceptRequests registration watches or pauses, per tab: observe-only
// registrations hold browser observer ids; with modification on, a pattern names the REPL handler
// that decides each paused request, and a paused request waits for its decision here.
class Intercepts {
 public:
  void add_observer(const std::string& tab, const std::string& pattern, int observer_id);
  void add_modifier(const std::string& tab, const std::string& pattern, const std::string& handler);
  // What an unregistration of (tab, pattern) ends: its observer ids, and whether it modified.
  struct Removed {
    std::vector<int> observers;
    bool modifying = false;
  };
  Removed remove(const std::string& tab, const std::string& pattern);
  // The URL patterns with a modifying handler on a tab (what the browser is asked to pause).
  std::vector<std::string> modifying_patterns(const std::string& tab) const;
  // The handler for a request paused on a tab (the last pattern `matches` accepts), recorded as
  // waiting for its decision; "" when no handler wants it (it is not recorded).
  std::string pause(const std::string& tab, const std::string& request_id, const std::function<bool(const std::string& pattern)>& matches);
  // The tab of a request that waited for its decision, which it no longer does; nullopt when it
  // was decided already (by its handler, or let through at the decision timeout).
  std::optional<std::string> take_paused(const std::string& request_id);

 private:
  mutable std::mutex m_mutex;
  std::map<std::string, std::vector<int>> m_observers;                        // "tab pattern" -> ids
  std::map<std::string, std::map<std::string, std::string>> m_modifiers;     // tab -> pattern -> handler
  std::map<std::string, std::string> m_paused;                                // request id -> tab
};

// What a session's capabilities act on. Put together by the session (session/session.h) before
// any call runs: the setters are for that time only; afterwards calls read it from any pool thread,
// and what changes while they run (hooks, interceptions, downloads returned, action-cache counts)
// changes through methods that lock.
class Context : public std::enable_shared_from_this<Context> {
 public:
  // `browser_context`: the browser context this host acts in ("" = the profile's); tabs of other
  // contexts (other runs) do not exist for it. `owner`: who this host is, to the browser and in
  // messages ("run r1a2b…", "session 3"), the key of its interceptRequests pauses and of the tabs
  // it holds. `shared_tabs`: the context is shared with the user (My browser): acting on a tab
  // needs it held (egress/holds.h), and the egress gate covers held tabs only.
  Context(browser::Browser& b, store::Database* d, Limits l, std::string browser_context = "", std::string owner = "", bool shared_tabs = false)
      : m_browser(b), m_db(d), m_limits(l), m_browser_context(std::move(browser_context)), m_owner(std::move(owner)), m_shared_tabs(shared_tabs) {}

  browser::Browser& browser() const { return m_browser; }
  store::Database* db() const { return m_db; }  // store/retrieve fail clearly without one
  const Limits& limits() const { return m_limits; }
  const std::string& browser_context() const { return m_browser_context; }
  const std::string& owner() const { return m_owner; }
  bool shared_tabs() const { return m_shared_tabs; }

  // Named secrets, typed by handle and scrubbed from every result (may be null: none): the
  // session's own (askUser adds to it).
  const std::shared_ptr<safety::SecretStore>& secrets() const { return m_secrets; }
  void set_secrets(std::shared_ptr<safety::SecretStore> s) { m_secrets = std::move(s); }
  // The digests of every run's secrets in this data directory (safety/known_secrets.h): what is
  // read back from the store or memory is masked with them. Null: no data directory (tests).
  const std::shared_ptr<safety::KnownSecrets>& known_secrets() const { return m_known_secrets; }
  void set_known_secrets(std::shared_ptr<safety::KnownSecrets> k) { m_known_secrets = std::move(k); }
  // Memory's embeddings (memory/embeddings.h): recall by meaning; null or none configured: by words.
  const std::shared_ptr<const memory::Embeddings>& embeddings() const { return m_embeddings; }
  void set_embeddings(std::shared_ptr<const memory::Embeddings> e) { m_embeddings = std::move(e); }
  // The egress gate over this host's browser context (egress/gate.h), when it has one.
  const std::shared_ptr<egress::GateState>& gate() const { return m_gate; }
  void set_gate(std::shared_ptr<egress::GateState> g) { m_gate = std::move(g); }

  // The tab the session works on now (its activeTab), for what belongs to "the current site";
  // "" when there is none or no one told the context.
  std::string active_tab() const { return m_active_tab ? m_active_tab() : std::string(); }
  void set_active_tab(std::function<std::string()> f) { m_active_tab = std::move(f); }
  // Delivers a finished request to an interceptRequests handler inside the REPL; false when the
  // session gave no way to (the request then goes on undecided).
  bool can_emit() const { return static_cast<bool>(m_emit_event); }
  void emit_event(const std::string& handler, const json& data) const {
    if (m_emit_event) m_emit_event(handler, data);
  }
  void set_emit_event(std::function<void(const std::string& handler, const json& data)> f) { m_emit_event = std::move(f); }

  // Files (actions/files.cpp): the folder this session's downloads land in ("" when the browser
  // keeps its own), and the folders upload() may take files from (the downloads folder is one).
  const std::string& downloads_dir() const { return m_downloads_dir; }
  const std::vector<std::string>& upload_dirs() const { return m_upload_dirs; }
  void set_files(std::string downloads_dir, std::vector<std::string> upload_dirs) {
    m_downloads_dir = std::move(downloads_dir);
    m_upload_dirs = std::move(upload_dirs);
  }
  // The downloads waitForDownload returned already (it returns each once).
  std::set<std::string> downloads_returned() const {
    std::lock_guard lock(m_files_mutex);
    return m_downloads_returned;
  }
  void mark_download_returned(const std::string& id) {
    std::lock_guard lock(m_files_mutex);
    m_downloads_returned.insert(id);
  }

  // Permission levels that differ from the registry's defaults (settings, the run's options):
  // capability -> actions::Permission.
  const std::map<std::string, int>& permission_overrides() const { return m_permission_overrides; }
  void set_permission_overrides(std::map<std::string, int> p) { m_permission_overrides = std::move(p); }
  // A person's own session (the one driving the Command Center in tests): the hidden tabs (the
  // Command Center's pages) are theirs to see and use. Never for a run.
  bool sees_hidden_tabs() const { return m_sees_hidden_tabs; }
  void set_sees_hidden_tabs(bool v) { m_sees_hidden_tabs = v; }
  // Sites the user said "always" to (remembered per profile): acting on their tabs of these
  // sites is not asked about again. Patterns as in safety::SiteList.
  const std::vector<std::string>& trusted_sites() const { return m_trusted_sites; }
  void set_trusted_sites(std::vector<std::string> s) { m_trusted_sites = std::move(s); }
  // The final of the previous run of the schedule that started this run (server/scheduler.h),
  // for previousFinal(); null when the run was not scheduled or its schedule has not run before.
  const json& previous_final() const { return m_previous_final; }
  void set_previous_final(json f) { m_previous_final = std::move(f); }

  // act()'s lookups in the action cache (actions/action_cache.h), for the run's usage.
  ActionCacheStats& action_cache() { return m_action_cache; }
  const ActionCacheStats& action_cache() const { return m_action_cache; }
  // interceptRequests registrations and the requests paused for a decision.
  Intercepts& intercepts() { return m_intercepts; }

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
    std::lock_guard lock(m_hooks_mutex);
    m_hooks = std::move(h);
  }
  std::shared_ptr<const Hooks> hooks() const {
    std::lock_guard lock(m_hooks_mutex);
    return m_hooks;
  }

 private:
  browser::Browser& m_browser;
  store::Database* m_db = nullptr;
  const Limits m_limits;
  const std::string m_browser_context;
  const std::string m_owner;
  const bool m_shared_tabs = false;
  std::shared_ptr<safety::SecretStore> m_secrets;
  std::shared_ptr<safety::KnownSecrets> m_known_secrets;
  std::shared_ptr<const memory::Embeddings> m_embeddings;
  std::shared_ptr<egress::GateState> m_gate;
  std::function<std::string()> m_active_tab;
  std::function<void(const std::string& handler, const json& data)> m_emit_event;
  std::string m_downloads_dir;
  std::vector<std::string> m_upload_dirs;
  mutable std::mutex m_files_mutex;
  std::set<std::string> m_downloads_returned;
  std::map<std::string, int> m_permission_overrides;
  bool m_sees_hidden_tabs = false;
  std::vector<std::string> m_trusted_sites;
  json m_previous_final;
  ActionCacheStats m_action_cache;
  Intercepts m_intercepts;
  mutable std::mutex m_hooks_mutex;
  std::shared_ptr<const Hooks> m_hooks;
};

}  // namespace ouro::host
