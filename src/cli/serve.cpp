#include "cli/serve.h"

#include "memory/embeddings.h"
#include "base/log.h"
#include "base/text.h"
#include "cli/extension.h"
#include "cli/mcp.h"
#include "cli/pool.h"
#include "cli/reference.h"
#include "hooks/hooks.h"
#include "safety/settings.h"
#include "cli/terminal.h"
#include "server/api.h"
#include "server/bridge_hub.h"
#include "server/runs.h"
#include "server/scheduler.h"
#include "session/pool.h"
#include "store/data_dir_lock.h"
#include "store/database.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>

namespace ouro::cli {

namespace {

// `ouro serve`'s line for a turn that starts or ends: "run ID started: TASK" / "run ID done in
// 12.3 s (4 iterations, $0.0123)" / "run ID failed in 2.0 s (1 iteration): ERROR". The task and
// the error are on one line, clipped and redacted. Run threads call it at once: one write each.
void print_turn_line(const server::RunManager::Config::TurnNotice& t) {
  std::string line;
  if (t.started) {
    line = fmt::format("run {} started: {}\n", t.run_id, redact(clip_line(t.task, 100)));
  } else {
    std::string cost = t.cost ? fmt::format(", ${:.4f}", *t.cost) : "";
    line = fmt::format("run {} {} in {:.1f} s ({} iteration{}{}){}\n", t.run_id, t.state, t.seconds, t.iterations, t.iterations == 1 ? "" : "s", cost,
                       t.error.empty() ? "" : ": " + redact(clip_line(t.error, 160)));
  }
  static std::mutex out;
  std::lock_guard lock(out);
  std::cout << line << std::flush;
}

// The API token the operator gave: OURO_API_TOKEN, else the first line of the file
// OURO_API_TOKEN_FILE names (at most 4 KiB; surrounding white space dropped); "" for none.
Result<std::string> given_api_token() {
  if (const char* token = std::getenv("OURO_API_TOKEN"); token && *token) return std::string(token);
  const char* file = std::getenv("OURO_API_TOKEN_FILE");
  if (!file || !*file) return std::string();
  std::ifstream in(file, std::ios::binary);
  if (!in) return errorf(Code::FailedPrecondition, "OURO_API_TOKEN_FILE names {}, which cannot be read; give a file holding the token", file);
  std::string text(4097, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > 4096) return errorf(Code::InvalidArgument, "OURO_API_TOKEN_FILE names {}, which is over 4 KiB: it should hold the token alone", file);
  text = text.substr(0, text.find('\n'));
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t first = text.find_first_not_of(" \t");
  text = first == std::string::npos ? "" : text.substr(first);
  if (text.empty()) return errorf(Code::InvalidArgument, "OURO_API_TOKEN_FILE names {}, whose first line is empty: put the token there", file);
  return text;
}

}  // namespace

// Plain `ouro`'s browser: shown when there is a display, a kept profile (sites the user logs into
// stay logged in) and ouro's extension loaded (the side panel beside the page). Nothing of this
// when it attaches to a browser or a pool, which keep their own.
void plain_browser(CommonFlags& f) {
  if (!f.browsers.empty() || !f.browser_pool.empty()) return;
  f.headed = f.headed || std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY");
  std::string data_dir = f.data_dir.empty() ? store::default_data_dir() : f.data_dir;
  if (f.profile.empty()) f.profile = data_dir + "/profile";
  auto extension = write_extension(data_dir + "/extension");
  if (extension) f.chromium_args = load_extension_args(*extension);
  else spdlog::warn("the browser starts without ouro's extension: {}", extension.error().message);
}

Result<int> cmd_serve(CommonFlags flags, int port, bool open_page, int confirm_timeout_s, const std::string& listen) {
  std::string data_dir = flags.data_dir.empty() ? store::default_data_dir() : flags.data_dir;
  // One server per data directory: a second one would take the first's live runs for interrupted.
  if (std::error_code ec; !std::filesystem::exists(data_dir, ec) && std::filesystem::create_directories(data_dir, ec))
    std::filesystem::permissions(data_dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
  auto held = TRY(store::DataDirLock::acquire(data_dir));
  // And one server per SQLite file, wherever --database, OURO_DATABASE or the settings file puts it
  // (another data directory may name this file): its lock beside the file.
  std::unique_ptr<store::DataDirLock> held_db;
  if (auto target = TRY(store::configured_database(data_dir + "/ouro.db")); !store::is_postgres_url(target))
    held_db = TRY(store::DataDirLock::acquire_database(target));
  // The profile's session keeps the runtime (browser, database) for the server's lifetime; on a
  // browser pool the runtime has the network thread and database only (cli/pool.h).
  std::unique_ptr<session::Session> base;
  std::shared_ptr<session::Runtime> runtime;
  std::optional<ServePool> pool;
  if (wants_pool(flags.browsers, flags.browser_pool)) {
    pool = TRY(start_pool(flags.browsers, flags.browser_pool, data_dir));
    runtime = pool->runtime;
    open_page = false;
  } else if (flags.browser_ws == "extension") {
    // The user's Chrome through the extension is the only browser: no Chromium of ouro's.
    runtime = std::make_shared<session::Runtime>();
    runtime->io = net::IoThread::start();
    runtime->db = TRY(store::Database::open(data_dir + "/ouro.db"));
    runtime->data_dir = data_dir;
    runtime->embeddings = std::make_shared<memory::Embeddings>(memory::configured_embeddings("", data_dir + "/secrets.json"));
    open_page = false;
  } else {
    base = TRY(session::Session::start(TRY(session_options(flags, {}))));
    runtime = base->runtime();
  }
  server::RunManager::Config rc;
  rc.data_dir = flags.base_data_dir.empty() ? data_dir : flags.base_data_dir;  // API keys are not per workspace
  rc.workspace = flags.workspace;
  // --secret for every run; checked here, so that a missing $OURO_SECRET_NAME stops the server
  // rather than each run (with a browser of its own the base session checked it already).
  for (const auto& flag : flags.secrets) {
    safety::SecretStore check;
    TRY(safety::add_secret_from_flag(check, flag));
  }
  rc.secret_flags = flags.secrets;
  rc.hooks = hooks::Pipeline::create(TRY(hooks::load_hooks_config(config_path_of(flags))));
  rc.action_timeout = std::chrono::milliseconds(flags.action_timeout_ms);
  rc.confirm_timeout = std::chrono::seconds(confirm_timeout_s);
  rc.config_path = config_path_of(flags);
  // A profile that is kept (plain `ouro`, --profile) or a browser we attached to is the user's:
  // runs work in it unless they ask for a clean session.
  rc.mine_by_default = !flags.profile.empty() || !flags.browser_ws.empty();
  // How many runs this node executes at once (the rest wait queued; with several nodes on
  // PostgreSQL, in the shared queue): OURO_MAX_RUNS, 1 to 256.
  if (const char* m = std::getenv("OURO_MAX_RUNS"); m && *m) {
    char* end = nullptr;
    long n = std::strtol(m, &end, 10);
    if (*end != '\0' || n < 1 || n > 256) return errorf(Code::InvalidArgument, "OURO_MAX_RUNS must be a whole number from 1 to 256, got '{}'", m);
    rc.max_active_runs = static_cast<size_t>(n);
  }
  if (pool) {
    rc.pool = pool->pool;
    rc.mine_by_default = false;
    rc.max_active_runs = std::max<size_t>(rc.max_active_runs, 2 * pool->pool->total_capacity());  // the rest wait queued
  }
  // ouro's Chrome extension, once paired, connects to /api/bridge; runs with options.browser
  // "extension" work in its tab groups.
  auto bridge = std::make_shared<server::BridgeHub>(*runtime->io, std::string(version_string()));
  rc.bridge = bridge;
  if (flags.browser_ws == "extension") {
    rc.default_browser = "extension";
    rc.mine_by_default = true;  // the user's own Chrome
  }
  // One line per turn started and ended, so the terminal that runs the server shows what it does
  // (the details are in the Command Center and GET /api/runs/ID/events).
  rc.on_turn = [](const server::RunManager::Config::TurnNotice& t) { print_turn_line(t); };
  server::RunManager runs(runtime, rc);
  // Daemon mode: saved jobs start runs while the server runs (missed ones by their policy now).
  server::Scheduler::Config sc;
  sc.lock_path = data_dir + "/scheduler.lock";
  server::Scheduler scheduler(*runtime->db, runs, sc);
  // /mcp: the MCP server over Streamable HTTP, gated as `ouro mcp` is (--allow-domain/--mode),
  // browser_task with the model that resolves when a session starts, else the client's (sampling).
  bool mcp_gated = !flags.allow_domains.empty() || !flags.mode.empty();
  auto mcp_http = make_mcp_http(
      runtime, [flags, mcp_gated] { return session_options(flags, {}, mcp_gated); },
      [flags, data_dir] {
        llm::SettingsFlags sf;
        if (!flags.config_path.empty()) sf.config_path = flags.config_path;
        sf.secrets_path = (flags.base_data_dir.empty() ? data_dir : flags.base_data_dir) + "/secrets.json";
        return task_support(flags, sf);
      });
  server::ApiServer::Options api_options;
  api_options.port = static_cast<uint16_t>(port);
  api_options.listen = listen;  // off loopback only with OURO_API_TOKEN (server/api.h)
  // A token the operator gave (OURO_API_TOKEN, or the file OURO_API_TOKEN_FILE names, as systemd's
  // credentials give one) is theirs and is never printed; one ouro made for this terminal is.
  api_options.token = TRY(given_api_token());
  const bool token_given = !api_options.token.empty();
  api_options.scheduler = &scheduler;
  api_options.version = std::string(version_string());
  api_options.bridge = bridge;
  api_options.on_pairing_code = [](const std::string& code) {
    std::cout << "New pairing code for ouro's Chrome extension: " << code << " (valid 10 minutes)\n" << std::flush;
  };
  api_options.mcp = [endpoint = mcp_http.get()](const net::HttpRequest& r, std::function<void(net::HttpResponse)> respond) {
    endpoint->handle(r, std::move(respond));
  };
  auto started = server::ApiServer::start(*runtime->io, runs, runtime, api_options);
  if (!started)
    return make_error(started.error().code, started.error().message + " (is another ouro serving there? pass --port N, or --port 0 for any free port)");
  auto api = std::move(*started);
  scheduler.start();
  std::string base_url = "http://127.0.0.1:" + std::to_string(api->port());
  if (token_given)
    std::cout << "Ouroboros Command Center: " << base_url << "/ (sign in with the API token you gave in "
              << (std::getenv("OURO_API_TOKEN_FILE") && *std::getenv("OURO_API_TOKEN_FILE") ? "OURO_API_TOKEN_FILE" : "OURO_API_TOKEN") << ")\n"
              << "API: " << base_url << "/api (Authorization: Bearer <your API token>)\n";
  else
    std::cout << "Ouroboros Command Center: " << api->url() << "\n"
              << "API: " << base_url << "/api (Authorization: Bearer " << api->token() << ")\n";
  std::cout << "MCP (Streamable HTTP): " << base_url << "/mcp (the same token)\n"
            << "Pairing code for ouro's Chrome extension: " << api->pairing_code() << " (valid 10 minutes; Settings shows the current one)\n"
            << (flags.workspace.empty() ? "" : "Workspace: " + flags.workspace + " (" + data_dir + ")\n")
            << "Ctrl-C stops the server (runs in progress are interrupted; History resumes them).\n"
            << std::flush;
  if (open_page) {
    auto tabs = base->tabs();
    if (!tabs.empty())
      if (auto r = base->browser().navigate(tabs[0].id, api->url()); !r)
        spdlog::warn("cannot open the Command Center in the browser ({}); open the address above", r.error().message);
  }
  std::mutex m;
  std::condition_variable cv;
  bool stop = false;
  InterruptWatcher watcher([&] {
    std::lock_guard lock(m);
    stop = true;
    cv.notify_all();
  });
  std::unique_lock lock(m);
  // A pool's endpoints come and go; the server's own browser, when it has one, ends it.
  auto dead = [&] { return base ? base->browser().dead() : std::nullopt; };
  while (!stop && !dead()) cv.wait_for(lock, std::chrono::milliseconds(500));
  if (auto gone = dead()) std::cerr << "ouro: " << gone->message << "\n";
  std::cerr << "stopping…\n";
  return 0;
}

}  // namespace ouro::cli
