// The data-as-variable pillar, measured: prompt tokens per iteration as the page grows from 10 KB
// to 10 MB, next to a naive baseline that puts the page text in the prompt (seed 000's
// "Algorithm 2"), and the engine's own time per iteration (context build, parsing, summarising)
// apart from model and browser time. The model is the scripted provider, so model time is ~0.
//
// Usage: prompt_bench
#include "agent/run.h"
#include "fixtures.h"
#include "llm/provider.h"
#include "session/session.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace ouro;

int main() {
  testing::FixtureSite site;
  std::string dir = (std::filesystem::temp_directory_path() / ("ouro-prompt-bench-" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(dir);
  std::string script = dir + "/script.jsonl";
  {
    std::ofstream out(script);
    auto line = [&](const std::string& code) { out << json{{"text", "Next.\n```repl\n" + code + "\n```"}}.dump() << "\n"; };
    line("const t = activeTab;\nenv.page = await getText(t);\nenv.paras = await execInTab(t, '[...document.querySelectorAll(\"p\")].map(p => p.textContent)');");
    line("env.count = await execInTab(t, 'document.querySelectorAll(\"p\").length');\nenv.sample = (env.page.data || env.page).slice(0, 5000);");
    line("env.words = env.sample.split(/\\s+/).length;\nenv.first = (env.paras.data || env.paras)[0];");
    line("setFinal({ count: env.count, words: env.words })");
  }
  std::printf("%-9s %12s %12s %12s %10s %16s %12s\n", "page", "max prompt", "naive", "naive/ours", "iters", "engine ms/iter", "exec ms/iter");
  for (int kb : {10, 100, 1000, 10000}) {
    session::SessionOptions o;
    o.db_path = dir + "/ouro.db";
    o.repl.executable = OURO_BINARY;
    auto s = session::Session::start(o);
    if (!s) {
      std::fprintf(stderr, "cannot start: %s\n", s.error().message.c_str());
      return 1;
    }
    if (!(*s)->open_urls({site.url("/grow?kb=" + std::to_string(kb))})) return 1;
    auto provider = llm::make_provider(llm::ProviderSpec{"script", "", "", script, {}});
    if (!provider) return 1;
    double engine_ms = 0, exec_ms = 0;
    int iters = 0;
    agent::RunOptions ro;
    ro.task = "How many paragraphs and words does the page have?";
    ro.model = "scripted";
    agent::Run run(**s, **provider, ro, [&](const agent::Event& e) {
      if (e.type == "iteration-end") {
        engine_ms += e.data.value("engineMs", 0.0);
        exec_ms += e.data.value("execMs", 0.0);
        ++iters;
      }
    });
    auto r = run.execute();
    // Algorithm 2: the same system prompt and task, plus the page's text in the context.
    auto text = (*s)->browser().eval_page((*s)->browser().active_tab(), "document.body.innerText.length", std::chrono::seconds(20));
    size_t page_chars = text && text->is_number() ? text->get<size_t>() : 0;
    size_t naive = agent::estimate_tokens(agent::system_prompt()) + agent::estimate_tokens(ro.task) + page_chars / 4;
    std::printf("%-9s %12zu %12zu %12.1f %10d %16.2f %12.1f\n", (std::to_string(kb) + " KB").c_str(), r.max_prompt_tokens, naive,
                static_cast<double>(naive) / static_cast<double>(r.max_prompt_tokens), iters, engine_ms / std::max(1, iters), exec_ms / std::max(1, iters));
  }
  std::filesystem::remove_all(dir);
  std::printf("\nTokens are estimated as characters / 4, for both columns. 'engine' is context building, code parsing and\n"
              "result summarising; 'exec' is the REPL running the blocks (browser calls included).\n");
  return 0;
}
