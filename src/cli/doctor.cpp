#include "cli/doctor.h"
#include "base/steady_clock.h"

#include "browser/launcher.h"

#include "browser/browser.h"
#include "llm/setup.h"
#include "net/io.h"
#include "store/database.h"

#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace ouro::cli {

namespace {

namespace fs = std::filesystem;

struct Report {
  int failures = 0;
  void ok(const std::string& what, const std::string& detail = "") {
    std::cout << "✓ " << what << (detail.empty() ? "" : " — " + detail) << "\n";
  }
  void warn(const std::string& what, const std::string& todo) { std::cout << "! " << what << "\n    " << todo << "\n"; }
  void fail(const std::string& what, const std::string& todo) {
    ++failures;
    std::cout << "✗ " << what << "\n    " << todo << "\n";
  }
};

void check_chromium(Report& r) {
  auto io = net::IoThread::start();
  browser::BrowserOptions o;
  auto t0 = SteadyClock::now();
  auto b = browser::Browser::start(*io, o);
  if (!b) {
    r.fail("Chromium does not start", b.error().message);
    return;
  }
  double ms = std::chrono::duration<double, std::milli>(SteadyClock::now() - t0).count();
  auto version = (*b)->cdp().call("Browser.getVersion", json::object(), "", std::chrono::seconds(5));
  r.ok("Chromium starts and answers", fmt::format("{} in {:.0f} ms", version ? get_str(*version, "product") : "?", ms));
}

void check_display(Report& r) {
  if (std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY")) r.ok("a display is available", "--headed and plain `ouro` show the browser");
  else
    r.warn("no display (DISPLAY and WAYLAND_DISPLAY are unset)",
           "ouro runs headless; open the Command Center from `ouro serve` in your own browser, or use xvfb-run for --headed");
}

void check_data_dir(Report& r, const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    r.warn("the data directory " + dir + " does not exist yet", "ouro creates it (mode 0700) on first use");
    return;
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    r.fail(dir + " is not a directory", "move it away, or pass --data-dir DIR (or set OURO_DATA_DIR)");
    return;
  }
  if (st.st_uid != ::getuid()) r.fail(dir + " belongs to another user", fmt::format("chown it to yourself: sudo chown -R {} {}", ::getuid(), dir));
  if (st.st_mode & 0077)
    r.fail(fmt::format("{} is readable by others (mode {:o})", dir, st.st_mode & 0777),
           "it holds your runs, stored values and possibly keys: chmod 700 " + dir);
  if (::access(dir.c_str(), W_OK) != 0) {
    r.fail(dir + " is not writable", "fix its permissions, or pass --data-dir DIR");
    return;
  }
  auto db = store::Database::open(dir + "/ouro.db");
  if (!db) r.fail("the database " + dir + "/ouro.db does not open", db.error().message + "; move the file away to start afresh");
  else if (!(st.st_mode & 0077)) r.ok("the data directory is private and its database opens", dir);
}

void check_profile(Report& r, const std::string& dir) {
  if (auto holder = browser::profile_holder(dir + "/profile"))
    r.fail("the kept browser profile is in use by " + holder->description,
           "another ouro (or its Chromium) is running with it: close that one, or run this one with --profile DIR");
  else
    r.ok("the kept browser profile is free", dir + "/profile");
}

void check_model(Report& r, const llm::SettingsFlags& flags) {
  auto s = llm::resolve_settings(flags);
  if (!s) {
    r.fail("no model is configured", s.error().message + ". Without a model, `ouro exec`, `ouro repl` and `$ commands` (in `ouro run` and the Command Center) still work");
    return;
  }
  r.ok("the model in use is " + s->provider + " · " + s->model, "chosen by " + s->source);
  std::cout << "  testing " << s->provider << " · " << s->model << " …\n" << std::flush;
  json t = llm::test_connection(*s);
  if (t.value("ok", false)) r.ok("the model answers", fmt::format("{} · {} in {:.0f} ms", s->provider, s->model, t.value("ms", 0.0)));
  else r.fail(fmt::format("the model does not answer ({})", t.value("kind", "error")), t.value("error", ""));
}

}  // namespace

int cmd_doctor(const std::string& data_dir, const llm::SettingsFlags& settings) {
  Report r;
  std::string dir = data_dir.empty() ? store::default_data_dir() : data_dir;
  check_chromium(r);
  check_display(r);
  check_data_dir(r, dir);
  check_profile(r, dir);
  llm::SettingsFlags with_file = settings;
  with_file.secrets_path = dir + "/secrets.json";
  check_model(r, with_file);
  std::cout << (r.failures ? fmt::format("\n{} problem{} to fix.\n", r.failures, r.failures == 1 ? "" : "s") : "\nAll good.\n");
  return r.failures ? 1 : 0;
}

}  // namespace ouro::cli
