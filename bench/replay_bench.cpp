// Runs that become scripts, measured: a run recorded with a scripted model that fills
// the fixture form field by field, makes a dead end and reads back what the page kept, against
// its replay as a script with other values and no model. The scripted model answers after
// --model-ms (default 1500: a stand-in for a hosted model's time to first token and its
// output; 0 shows ouro's own cost per iteration alone). The replay's time is the run's wall time,
// prompts built and events emitted as in any run. Then self-healing: a newsletter form recorded
// the same way (tests/scripts/heal_site.h), replayed with no model on its variant with every id
// and class renamed, each of its four targets found again from what the recording kept.
//
// Usage: replay_bench [--model-ms N] [--rounds N] (defaults 1500 and 3)
#include "agent/run.h"
#include "fixtures.h"
#include "heal_site.h"
#include "llm/provider.h"
#include "scripts/replay.h"
#include "scripts/script.h"
#include "session/session.h"

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
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int model_ms = 1500, rounds = 3;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--model-ms") == 0) model_ms = std::max(0, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::max(1, std::atoi(argv[i + 1]));
  }
  testing::FixtureSite site;
  std::string dir = std::filesystem::temp_directory_path() / ("ouro-replay-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<std::string> steps = {
      "await type(activeTab, '#name', 'Ada Lovelace')",
      "await type(activeTab, '#email', 'ada@example.com')",
      "JSON.parse('{')",  // a dead end the script leaves out
      "await select(activeTab, '#color', 'g');\nawait click(activeTab, '#agree')",
      "setFinal(JSON.parse(await getText(activeTab, '#state')))"};
  std::string script_path = dir + "/model.jsonl";
  {
    std::ofstream out(script_path);
    for (const auto& code : steps) out << json{{"text", "Next.\n```repl\n" + code + "\n```"}, {"delay_ms", model_ms}}.dump() << "\n";
  }
  session::SessionOptions o;
  o.db_path = dir + "/ouro.db";
  o.repl.executable = OURO_BINARY;
  o.isolated = true;
  auto base = session::Session::start(o);
  if (!base) {
    std::fprintf(stderr, "replay_bench: cannot start a session: %s\n", base.error().message.c_str());
    return 1;
  }
  // One run in a session of its own on the form: its wall time, final and events.
  struct Outcome {
    double ms = 0;
    int iterations = 0;
    bool partial = true;
    json final;
    std::vector<scripts::RecordedEvent> events;
  };
  auto run_once = [&](llm::Provider& provider, const std::string& task, scripts::ReplayProvider* replay,
                      const std::string& url = "") -> Outcome {
    Outcome out;
    auto s = session::Session::attach((*base)->runtime(), o);
    if (!s || !(*s)->open_urls({url.empty() ? site.url("/form") : url})) return out;
    agent::RunOptions ro;
    ro.task = task;
    ro.model = "scripted";
    if (replay) ro.recorded = [replay](const std::string& a, const std::string& sel) { return replay->recorded(a, sel); };
    auto t0 = Clock::now();
    agent::Run run(**s, provider, ro, [&](const agent::Event& e) {
      if (replay) replay->observe(e.type, e.data);
      if (e.type == "code-generated" || e.type == "code-result" || e.type == "target" || e.type == "heal") out.events.push_back({e.type, e.data});
    });
    auto r = run.execute();
    out.ms = ms_since(t0);
    out.iterations = r.iterations;
    out.partial = r.partial;
    out.final = r.final;
    return out;
  };
  const std::string task = "Sign up \"Ada Lovelace\" with ada@example.com, green, and agree";
  std::vector<double> recorded_ms, replay_ms;
  Outcome recorded, replayed;
  for (int i = 0; i < rounds; ++i) {
    auto model = llm::make_provider(llm::ProviderSpec{"script", "", "", script_path, {}});
    if (!model) return 1;
    recorded = run_once(**model, task, nullptr);
    if (recorded.partial) {
      std::fprintf(stderr, "replay_bench: the recorded run did not finish: %s\n", dump_json(recorded.final).c_str());
      return 1;
    }
    recorded_ms.push_back(recorded.ms);
    auto script = scripts::from_events(task, recorded.events);
    if (!script) {
      std::fprintf(stderr, "replay_bench: %s\n", script.error().message.c_str());
      return 1;
    }
    script->name = "signup";
    if (i == 0) {
      for (const auto& e : recorded.events)
        if (e.type == "code-result" && !get_bool(get_field(e.data, "metadata"), "ok"))
          std::printf("  (a block of the recorded run failed and is left out: %s)\n", get_str(get_field(e.data, "metadata"), "error").c_str());
      std::printf("  script: %zu steps, parameters:", script->steps.size());
      for (const auto& p : script->params) std::printf(" %s=%s", p.name.c_str(), json(p.value).dump().c_str());
      std::printf("\n");
    }
    auto replay = scripts::ReplayProvider::create(*script, {{"name", "Grace \"G\" O'Hara"}, {"email", "grace@example.com"}});
    if (!replay) {
      std::fprintf(stderr, "replay_bench: %s\n", replay.error().message.c_str());
      return 1;
    }
    replayed = run_once(**replay, (*replay)->task(), replay->get());
    if (replayed.partial) {
      std::fprintf(stderr, "replay_bench: the replay did not finish: %s\n", dump_json(replayed.final).c_str());
      return 1;
    }
    replay_ms.push_back(replayed.ms);
  }
  std::printf("A form filled field by field (%zu model answers, one a dead end), %d ms per model answer, %d rounds:\n", steps.size(), model_ms, rounds);
  std::printf("  recorded run: %d iterations, median %.0f ms; final %s\n", recorded.iterations, median(recorded_ms), dump_json(recorded.final).c_str());
  std::printf("  replay, no model: %d iterations, median %.0f ms; final %s\n", replayed.iterations, median(replay_ms), dump_json(replayed.final).c_str());
  std::printf("  replay / recorded %.2f\n", median(replay_ms) / std::max(1.0, median(recorded_ms)));

  // Self-healing: recorded on the newsletter form, replayed on its variant with ids and classes renamed.
  testing::HealSite heal_site;
  const std::vector<std::string> heal_steps = {"await type(activeTab, '#email', 'ada@example.com')", "await fill(activeTab, {'#terms': true})",
                                               "await select(activeTab, '#plan', 'Pro')", "await click(activeTab, '#subscribe')",
                                               "setFinal(await getText(activeTab, '#log'))"};
  std::string heal_model = dir + "/heal-model.jsonl";
  {
    std::ofstream out(heal_model);
    for (const auto& code : heal_steps) out << json{{"text", "Next.\n```repl\n" + code + "\n```"}, {"delay_ms", model_ms}}.dump() << "\n";
  }
  std::vector<double> heal_recorded_ms, healed_ms;
  Outcome heal_recorded, healed;
  size_t heals = 0;
  for (int i = 0; i < rounds; ++i) {
    auto model = llm::make_provider(llm::ProviderSpec{"script", "", "", heal_model, {}});
    if (!model) return 1;
    heal_recorded = run_once(**model, "Subscribe ada@example.com on the Pro plan", nullptr, heal_site.url("orig"));
    if (heal_recorded.partial) {
      std::fprintf(stderr, "replay_bench: the recorded newsletter run did not finish: %s\n", dump_json(heal_recorded.final).c_str());
      return 1;
    }
    heal_recorded_ms.push_back(heal_recorded.ms);
    auto script = scripts::from_events("Subscribe ada@example.com on the Pro plan", heal_recorded.events);
    if (!script) return 1;
    script->name = "news";
    auto replay = scripts::ReplayProvider::create(*script, {});
    if (!replay) return 1;
    healed = run_once(**replay, (*replay)->task(), replay->get(), heal_site.url("renamed"));
    if (healed.partial) {
      std::fprintf(stderr, "replay_bench: the healing replay did not finish: %s\n", dump_json(healed.final).c_str());
      return 1;
    }
    healed_ms.push_back(healed.ms);
    heals = std::count_if(healed.events.begin(), healed.events.end(), [](const auto& e) { return e.type == "heal"; });
  }
  std::printf("Self-healing: a newsletter form (4 targets, a decoy beside each), recorded, then replayed with every id and class renamed:\n");
  std::printf("  recorded run: %d iterations, median %.0f ms\n", heal_recorded.iterations, median(heal_recorded_ms));
  std::printf("  replay with healing, no model: %d iterations, %zu targets healed, median %.0f ms; final %s\n", healed.iterations, heals,
              median(healed_ms), dump_json(healed.final).c_str());
  std::printf("  healed replay / recorded %.2f\n", median(healed_ms) / std::max(1.0, median(heal_recorded_ms)));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
