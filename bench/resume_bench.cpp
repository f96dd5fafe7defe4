// Runs that survive a crash, measured: what a checkpoint costs after each iteration
// (its bytes — the run's state and the REPL's env — and the time to take and store it) as a
// scripted run's env grows, and what resuming costs: reading the checkpoint and the event log,
// a new session with env restored and the tabs reopened, against starting the same run fresh.
//
// Usage: resume_bench [--iterations N] (default 20)
#include "agent/run.h"
#include "fixtures.h"
#include "llm/provider.h"
#include "runs/resume.h"
#include "session/session.h"
#include "store/database.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace ouro;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = 20;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--iterations") == 0) iterations = std::max(2, std::atoi(argv[i + 1]));
  testing::FixtureSite site;
  std::string dir = std::filesystem::temp_directory_path() / ("ouro-resume-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  // Each iteration adds 50 rows to an array, an entry to a Map and a Date: env grows as a
  // collecting run's does.
  std::string script = dir + "/run.jsonl";
  {
    std::ofstream out(script);
    auto line = [&](const std::string& code) { out << json{{"text", "Next.\n```repl\n" + code + "\n```"}}.dump() << "\n"; };
    line("env.rows = []; env.byPage = new Map(); env.seen = new Set(); env.started = new Date(); 'ok'");
    for (int i = 1; i < iterations - 1; ++i)
      line("const links = await getLinks(activeTab);\nfor (let k = 0; k < 50; ++k) env.rows.push({ page: " + std::to_string(i) +
           ", k, title: 'Row ' + k + ' of page " + std::to_string(i) + "', price: k * 1.5, link: (links[k % links.length] || {}).href });\n"
           "env.byPage.set(" + std::to_string(i) + ", links.length); env.seen.add('p" + std::to_string(i) + "'); env.rows.length");
    line("setFinal({ rows: env.rows.length, pages: env.byPage.size })");
  }
  session::SessionOptions o;
  o.db_path = dir + "/ouro.db";
  o.repl.executable = OURO_BINARY;
  o.isolated = true;
  auto s = session::Session::start(o);
  if (!s || !(*s)->open_urls({site.url("/list")})) {
    std::fprintf(stderr, "resume_bench: cannot start a session\n");
    return 1;
  }
  auto& db = (*s)->db();
  store::Database::RunRow row;
  row.id = "rbench0000";
  row.task = "Collect the rows of every page";
  row.state = runs::State::Running;
  if (!db.insert_run(row)) return 1;
  auto provider = llm::make_provider(llm::ProviderSpec{"script", "", "", script, {}});
  if (!provider) return 1;
  struct Point {
    int iteration;
    size_t state_bytes, env_bytes;
    double ms;
  };
  std::vector<Point> points;
  int64_t seq = 0;
  agent::RunOptions ro;
  ro.task = row.task;
  ro.model = "scripted";
  ro.max_iterations = iterations + 2;
  ro.on_checkpoint = [&](int iteration, const std::string& state, const std::string& env) {
    auto t0 = Clock::now();
    auto r = runs::store_checkpoint(db, **s, row.id, iteration, state, env);
    points.push_back({iteration, state.size(), env.size(), ms_since(t0)});
    return r;
  };
  auto t_run = Clock::now();
  agent::Run run(**s, **provider, ro, [&](const agent::Event& e) { (void)db.append_event(row.id, ++seq, e.type, dump_json(e.data), e.ts); });
  auto result = run.execute();
  double run_ms = ms_since(t_run);
  std::printf("A %d-iteration scripted run (%.0f ms), env growing by 50 rows, a Map entry and a Set entry per iteration:\n", result.iterations, run_ms);
  std::printf("  %-10s %12s %12s %14s\n", "iteration", "state bytes", "env bytes", "checkpoint ms");
  for (const auto& p : points)
    if (p.iteration <= 1 || p.iteration % 5 == 0 || p.iteration == points.back().iteration)
      std::printf("  %-10d %12zu %12zu %14.2f\n", p.iteration, p.state_bytes, p.env_bytes, p.ms);
  std::vector<double> times;
  for (const auto& p : points) times.push_back(p.ms);
  size_t max_state = 0;
  for (const auto& p : points) max_state = std::max(max_state, p.state_bytes);
  std::printf("  checkpoint: median %.2f ms per iteration; state at most %zu bytes (history compacted past %zu iterations)\n", median(times),
              max_state, agent::kCheckpointFullIterations);

  // Resume: the checkpoint and the events read, a new session with env restored and the tabs
  // reopened — against a fresh start of the same run (a new session, the start page opened).
  std::vector<double> resume_ms, fresh_ms;
  for (int i = 0; i < 5; ++i) {
    auto t0 = Clock::now();
    auto point = runs::load_resume_point(db, row.id, {runs::State::Running});
    if (!point) {
      std::fprintf(stderr, "resume_bench: %s\n", point.error().message.c_str());
      return 1;
    }
    session::SessionOptions ro2 = o;
    ro2.repl.initial_env = point->env;
    auto r = session::Session::attach((*s)->runtime(), ro2);
    if (!r) return 1;
    auto restored = runs::restore_browser(**r, *point);
    if (!restored) return 1;
    // The first evaluation of the restored session proves env is back.
    auto check = (*r)->repl().eval("env.rows.length");
    if (!check || !check->ok) return 1;
    resume_ms.push_back(ms_since(t0));
    auto t1 = Clock::now();
    auto f = session::Session::attach((*s)->runtime(), o);
    if (!f || !(*f)->open_urls({site.url("/list")})) return 1;
    auto first = (*f)->repl().eval("typeof env");
    if (!first || !first->ok) return 1;
    fresh_ms.push_back(ms_since(t1));
  }
  std::printf("Resume (checkpoint + %lld events read, session with env restored, tab reopened, first evaluation): median %.0f ms "
              "(min %.0f); a fresh start of the same run (session, start page, first evaluation): median %.0f ms (min %.0f); "
              "resume / fresh %.2f\n",
              static_cast<long long>(seq), median(resume_ms), *std::min_element(resume_ms.begin(), resume_ms.end()), median(fresh_ms),
              *std::min_element(fresh_ms.begin(), fresh_ms.end()), median(resume_ms) / std::max(1.0, median(fresh_ms)));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
