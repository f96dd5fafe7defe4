// The data-as-variable pillar, measured: prompt tokens per iteration as the page grows from 10 KB
// to 10 MB, next to a naive baseline that puts the page text in the prompt (the
// usual approach), and the engine's own time per iteration (context build, parsing, summarising)
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
#include <set>

using namespace ouro;

namespace {

// Prompt caching: a 12-iteration run, and for each iteration the share of its input that
// repeats the previous call's prefix, then the run's input cost at Claude Sonnet 4's published
// prices ($3 input, $3.75 cache write, $0.30 cache read per million) with and without caching,
// simulating Anthropic's rules on the request blocks ouro sends: entries are written at the
// breakpoints (after the system prompt, after the last stable block) from 1,024 tokens on, and a
// later call reads the longest one that ends at one of its own block boundaries.
int cache_bench(testing::FixtureSite& site, const std::string& dir) {
  std::string script = dir + "/cache.jsonl";
  {
    std::ofstream out(script);
    auto line = [&](const std::string& code) { out << json{{"text", "Next.\n```repl\n" + code + "\n```"}}.dump() << "\n"; };
    line("env.rows = []; env.title = await getText(activeTab, 'h1'); log(env.title)");
    for (int i = 0; i < 10; ++i)
      line("env.rows.push({ i: " + std::to_string(i) + ", links: (await getLinks(activeTab)).length, at: Date.now() }); env.rows.length");
    line("setFinal({ title: env.title, rows: env.rows.length })");
  }
  session::SessionOptions o;
  o.db_path = dir + "/cache.db";
  o.repl.executable = OURO_BINARY;
  auto s = session::Session::start(o);
  if (!s || !(*s)->open_urls({site.url("/")})) return 1;
  auto provider = llm::make_provider(llm::ProviderSpec{"script", "", "", script, {}});
  if (!provider) return 1;
  struct Call {
    std::string user;
    std::vector<size_t> blocks;
  };
  std::vector<Call> calls;
  agent::RunOptions ro;
  ro.task = "Collect the number of links on the page ten times";
  ro.model = "scripted";
  agent::Run run(**s, **provider, ro, [&](const agent::Event& e) {
    if (e.type != "iteration-start") return;
    Call c{e.data.value("prompt", ""), {}};
    for (const auto& b : e.data["cacheBlocks"]) c.blocks.push_back(b.get<size_t>());
    calls.push_back(std::move(c));
  });
  run.execute();
  const std::string system = agent::system_prompt();
  auto tok = [](size_t chars) { return static_cast<double>(chars) / 4; };
  std::set<std::string> cache;  // prefixes written (system + user prefix), as the provider keys them
  double with = 0, without = 0, share_sum = 0, share_min = 1;
  std::printf("\n%-10s %14s %16s %12s %12s\n", "iteration", "input tokens", "repeated prefix", "share", "cache read");
  for (size_t i = 0; i < calls.size(); ++i) {
    const Call& c = calls[i];
    std::string full = system + "\x1f" + c.user;
    // Repeated prefix: the longest common prefix with the previous call (automatic caching).
    size_t common = 0;
    if (i > 0) {
      std::string prev = system + "\x1f" + calls[i - 1].user;
      while (common < prev.size() && common < full.size() && prev[common] == full[common]) ++common;
    }
    // Anthropic: the longest written entry that ends at one of this request's block boundaries.
    std::vector<size_t> bounds = {system.size() + 1};
    for (size_t b : c.blocks) bounds.push_back(system.size() + 1 + b);
    size_t read = 0;
    for (size_t b : bounds)
      if (cache.count(full.substr(0, b))) read = std::max(read, b);
    size_t last = bounds.back(), write = 0;
    for (size_t b : {bounds.front(), last})
      if (tok(b) >= 1024 && !cache.count(full.substr(0, b))) {
        cache.insert(full.substr(0, b));
        write = std::max(write, b > read ? b - read : 0);
      }
    double plain = tok(full.size()) - tok(read) - tok(write);
    with += (plain * 3 + tok(write) * 3.75 + tok(read) * 0.3) / 1e6;
    without += tok(full.size()) * 3 / 1e6;
    double share = static_cast<double>(common) / static_cast<double>(full.size());
    if (i > 0) {
      share_sum += share;
      share_min = std::min(share_min, share);
    }
    std::printf("%-10zu %14.0f %16.0f %11.0f%% %12.0f\n", i + 1, tok(full.size()), tok(common), share * 100, tok(read));
  }
  size_t n = calls.size() > 1 ? calls.size() - 1 : 1;
  std::printf("repeated prefix from iteration 2 on: mean %.0f%%, min %.0f%%; input cost of the run at Claude Sonnet 4 prices: "
              "$%.4f with caching, $%.4f without (%.0f%% saved)\n",
              share_sum / static_cast<double>(n) * 100, share_min * 100, with, without, without > 0 ? (1 - with / without) * 100 : 0.0);
  return 0;
}

}  // namespace

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
  std::printf("\nTokens are estimated as characters / 4, for both columns. 'engine' is context building, code parsing and\n"
              "result summarising; 'exec' is the REPL running the blocks (browser calls included).\n");
  int rc = cache_bench(site, dir);
  std::filesystem::remove_all(dir);
  return rc;
}
