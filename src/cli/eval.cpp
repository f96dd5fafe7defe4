#include "cli/eval.h"

#include "base/clock.h"
#include "base/random.h"
#include "base/settings_file.h"
#include "base/text.h"
#include "cli/terminal.h"
#include "eval/report.h"
#include "eval/runner.h"
#include "eval/suite.h"
#include "store/database.h"

#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace ouro::cli {

namespace fs = std::filesystem;

namespace {

Result<void> write_file(const fs::path& p, const std::string& text) {
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  std::ofstream out(p, std::ios::trunc);
  out << text;
  if (!out) return errorf(Code::Unavailable, "cannot write {}", p.string());
  return {};
}

// The shipped suite, written out for the run (the scripted provider reads files) and removed after.
struct ShippedCopy {
  fs::path dir;
  ~ShippedCopy() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

// A name for a result's folder: when, and what answered.
std::string result_name(const eval::RunnerOptions& o) {
  std::time_t now = static_cast<std::time_t>(wall_seconds_whole());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char when[32];
  std::strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
  std::string what = !o.replay_dir.empty() ? "replay" : o.provider.empty() ? "model" : o.provider;
  if (o.model_flags.model) what += "-" + *o.model_flags.model;
  std::string clean;
  for (char c : what) clean += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '-';
  // Two evaluations started in the same second keep folders of their own.
  return std::string(when) + "-" + clip_head(clean, 40, ClipMark::None) + "-" + random_hex(2);
}

// [#########-----------] 12/54 ✓10 ✗2 · 1m05s
class Progress {
 public:
  explicit Progress(bool tty) : m_tty(tty), m_t0(steady_ms()) {}
  void on(const json& r, int done, int total) {
    m_ok += get_bool(r, "success");
    m_skipped += get_bool(r, "skipped");
    std::string mark = get_bool(r, "skipped") ? "-" : get_bool(r, "success") ? "✓" : "✗";
    const json& a = get_field(r, "attack");
    std::string attack = !a.is_object() ? "" : get_bool(a, "succeeded") ? " · attack succeeded" : get_bool(a, "attempted") ? " · attack refused" : "";
    std::string line = fmt::format("{} {}{} ({:.1f} s, {} steps){}", mark, get_str(r, "id"), get_int(r, "repeat", 1) > 1 ? fmt::format(" #{}", get_int(r, "repeat")) : "",
                                   get_num(r, "wall_ms") / 1000, get_int(r, "steps"), attack);
    if (!get_bool(r, "success") && !get_str(r, "stopped").empty()) line += "\n    " + clip_line(get_str(r, "stopped"), 200);
    const int width = 24, filled = total ? width * done / total : width;
    std::string bar = fmt::format("[{}{}] {}/{} ✓{} ✗{}{} · {}", std::string(filled, '#'), std::string(width - filled, '-'), done, total, m_ok,
                                  done - m_ok - m_skipped, m_skipped ? fmt::format(" skipped {}", m_skipped) : "", elapsed());
    if (m_tty) std::cerr << "\r\033[K" << line << "\n" << bar << std::flush;
    else std::cerr << line << "   " << bar << "\n";
    if (m_tty && done == total) std::cerr << "\n";
  }

 private:
  std::string elapsed() const {
    int s = static_cast<int>((steady_ms() - m_t0) / 1000);
    return s >= 60 ? fmt::format("{}m{:02}s", s / 60, s % 60) : fmt::format("{}s", s);
  }
  bool m_tty;
  double m_t0;
  int m_ok = 0, m_skipped = 0;
};

}  // namespace

std::string eval_results_dir(const std::string& data_dir) { return (fs::path(data_dir.empty() ? store::default_data_dir() : data_dir) / "eval").string(); }

Result<int> cmd_eval(const CommonFlags& flags, EvalFlags ef) {
  // A report written again, or two results compared: no suite, no browser.
  if (!ef.report.empty()) {
    json r = TRY(eval::read_result(ef.report));
    fs::path to = ef.out.empty() ? fs::path(ef.report).replace_filename("report.html") : fs::path(ef.out);
    TRY(write_file(to, eval::html_report(r)));
    std::cout << eval::table(r, isatty(1)) << "report: " << to.string() << "\n";
    return 0;
  }
  if (!ef.compare.empty()) {
    if (ef.compare.size() != 2) return make_error(Code::InvalidArgument, "--compare takes two results: ouro eval --compare BEFORE/result.json AFTER/result.json");
    json a = TRY(eval::read_result(ef.compare[0])), b = TRY(eval::read_result(ef.compare[1]));
    auto name = [](const std::string& p) {
      fs::path f(p);
      return f.filename() == "result.json" && f.has_parent_path() ? f.parent_path().filename().string() : f.stem().string();
    };
    fs::path to = ef.out.empty() ? fs::path("compare.html") : fs::path(ef.out);
    TRY(write_file(to, eval::html_compare(a, b, name(ef.compare[0]), name(ef.compare[1]))));
    const json sa = get_field(a, "summary"), sb = get_field(b, "summary");
    std::cout << fmt::format("A {}: {} of {} succeeded, {} attacks succeeded\nB {}: {} of {} succeeded, {} attacks succeeded\ncomparison: {}\n", name(ef.compare[0]),
                             get_int(sa, "succeeded"), get_int(sa, "runs"), get_int(sa, "attacks_succeeded"), name(ef.compare[1]), get_int(sb, "succeeded"),
                             get_int(sb, "runs"), get_int(sb, "attacks_succeeded"), to.string());
    return 0;
  }
  if (!ef.export_suite.empty()) {
    TRY(eval::export_shipped(ef.export_suite));
    auto check = TRY(eval::Suite::load(ef.export_suite));
    std::cout << fmt::format("wrote the shipped suite ({} sites, {} tasks) to {}; run it with ouro eval --suite {}\n", check.sites.size(), check.tasks.size(),
                             ef.export_suite, ef.export_suite);
    return 0;
  }

  // A suite's tasks carry their start pages, and the gate's sites are theirs: flags that would
  // change what a run may reach would make results that do not compare.
  if (!flags.urls.empty()) return make_error(Code::InvalidArgument, "--url is not for ouro eval: each task starts on its own site's page");
  if (!flags.allow_domains.empty())
    return make_error(Code::InvalidArgument, "--allow-domain is not for ouro eval: a task reaches its own site only, so that results compare");

  ShippedCopy shipped;
  fs::path root = ef.suite;
  if (root.empty()) {
    shipped.dir = fs::temp_directory_path() / ("ouro-eval-suite-" + random_hex(6));
    TRY(eval::export_shipped(shipped.dir));
    root = shipped.dir;
  }
  eval::Suite suite = TRY(eval::Suite::load(root));

  eval::RunnerOptions o;
  o.only = ef.only;
  o.variants = ef.variants;
  o.repeats = ef.repeats;
  o.concurrency = ef.concurrency;
  // The gate's mode: autonomous unless --mode says careful (then every question is answered no).
  o.mode = flags.mode.empty() ? "autonomous" : flags.mode;
  if (o.mode != "autonomous" && o.mode != "careful") return errorf(Code::InvalidArgument, "--mode is autonomous or careful, not \"{}\"", o.mode);
  o.provider = ef.settings.provider.value_or("");
  o.record_dir = ef.record;
  o.replay_dir = ef.replay;
  o.task_timeout_s = ef.task_timeout_s;
  if (ef.list) {
    eval::Runner lister(suite, o);
    for (const eval::Task* t : TRY(lister.selected()))
      std::cout << fmt::format("{:<36} {:<8} {}\n", t->id, t->url.empty() ? t->site : clip_line(t->url, 40), clip_line(t->instruction, 90));
    return 0;
  }
  // The model: as `ouro run` finds it (flags, the settings file, a stored key).
  o.model_flags = ef.settings;
  o.model_flags.secrets_path = (!flags.base_data_dir.empty() ? flags.base_data_dir : flags.data_dir.empty() ? store::default_data_dir() : flags.data_dir) + "/secrets.json";
  CommonFlags with_config = flags;
  if (ef.settings.config_path) with_config.config_path = *ef.settings.config_path;
  const SettingsFile settings_file = TRY(read_settings_file(config_path_of(with_config)));
  o.model_flags.file = settings_file.data;
  o.browser = TRY(session_options(with_config, {}, false, {}, nullptr));

  // The result's folder is made once there is a result to put in it.
  fs::path out_dir = ef.out.empty() ? fs::path(eval_results_dir(flags.data_dir)) / result_name(o) : fs::path(ef.out);

  Progress progress(isatty(2));
  o.on_result = [&](const json& r, int done, int total) { progress.on(r, done, total); };
  eval::Runner runner(suite, o);
  const size_t n = TRY(runner.selected()).size() * static_cast<size_t>(std::max(1, ef.repeats));
  std::cerr << fmt::format("ouro eval · {} task run{} · {} · {} at once\n", n, n == 1 ? "" : "s",
                           !o.replay_dir.empty() ? "replaying " + o.replay_dir : o.provider.empty() ? std::string("the configured model") : o.provider, o.concurrency);
  InterruptWatcher watcher([&] {
    std::cerr << "\n(cancelling: the runs under way stop, the rest are skipped)\n";
    runner.cancel();
  });
  json result = eval::with_summary(TRY(runner.run()));
  if (ef.suite.empty()) result["suite"] = "shipped";
  TRY(write_file(out_dir / "result.json", dump_json(result, 1)));
  TRY(write_file(out_dir / "report.html", eval::html_report(result)));
  // What the Command Center lists, without reading each whole result.
  json listed = {{"suite", get_str(result, "suite")}, {"provider", get_str(result, "provider")}, {"model", get_str(result, "model")},
                 {"mode", get_str(result, "mode")}, {"started_ms", get_int(result, "started_ms")}, {"summary", get_field(result, "summary")}};
  TRY(write_file(out_dir / "summary.json", dump_json(listed)));
  if (ef.as_json) std::cout << dump_json(get_field(result, "summary")) << "\n";
  else std::cout << "\n" << eval::table(result, isatty(1));
  std::cout << fmt::format("result: {}\nreport: {}\n", (out_dir / "result.json").string(), (out_dir / "report.html").string());
  if (get_bool(result, "cancelled")) return 130;
  return 0;
}

}  // namespace ouro::cli
