// ouro's browser-kernel benchmark: the same operations, on the same fixture pages, through ouro
// (measured inside the REPL, where model-written code pays them) and through Playwright driving
// the same Chromium (bench/playwright.mjs), in one run. Prints medians and ours/Playwright.
//
// Usage: ouro_bench [--repeats N] [--no-peer]
#include "fixtures.h"
#include "injection_sites.h"
#include "safety/gate.h"
#include "session/session.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>

using namespace ouro;

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

session::SessionOptions options(const std::string& data_dir) {
  session::SessionOptions o;
  o.db_path = data_dir + "/ouro.db";
  o.repl.executable = OURO_BINARY;
  o.repl.timeout = std::chrono::seconds(120);
  return o;
}

// Runs a REPL snippet that returns an array of per-iteration milliseconds.
std::vector<double> samples(session::Session& s, const std::string& code) {
  auto r = s.repl().eval(code, std::chrono::seconds(120));
  if (!r || !r->ok) {
    std::cerr << "bench step failed: " << (r ? r->error_message : r.error().message) << "\n" << code << "\n";
    std::exit(1);
  }
  return r->value.get<std::vector<double>>();
}

std::string loop(int n, const std::string& setup, const std::string& op) {
  return setup + "\nconst ms = [];\nfor (let i = 0; i < " + std::to_string(n) +
         "; i++) { const t0 = performance.now(); " + op + "; ms.push(performance.now() - t0); }\nms";
}

}  // namespace

int main(int argc, char** argv) {
  int n = 30;
  bool peer = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) n = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--no-peer")) peer = false;
  }
  testing::FixtureSite site;
  std::string base = site.url("/");
  base.pop_back();  // no trailing slash
  std::string data = (std::filesystem::temp_directory_path() / ("ouro-bench-" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(data);

  std::map<std::string, std::vector<double>> ours;
  // Launch to first load: browser, REPL worker and the first page, as `ouro exec --url` does.
  for (int i = 0; i < 5; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto s = session::Session::start(options(data));
    if (!s || !(*s)->open_urls({base + "/"})) {
      std::cerr << "cannot start ouro: " << (s ? "the first page did not load" : s.error().message) << "\n";
      return 1;
    }
    ours["launch_first_load"].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  auto s = session::Session::start(options(data));
  if (!s) return 1;
  session::Session& S = **s;
  std::string B = "'" + base;
  ours["navigate_load"] = samples(S, loop(n, "const t = await openTab(" + B + "/')", "await navigate(t, i % 2 ? " + B + "/' : " + B + "/b')"));
  ours["exec_round_trip"] = samples(S, loop(n * 5, "const t = await openTab(" + B + "/')", "await execInTab(t, 'document.title')"));
  ours["click"] = samples(S, loop(n * 2, "const t = await openTab(" + B + "/')", "await click(t, '#go')"));
  // 100 characters, as in playwright.mjs.
  std::string text = "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick ";
  if (text.size() != 100) return 1;
  ours["type_100"] = samples(S, "const t = await openTab(" + B + "/form'); const ms = [];\n"
                                "for (let i = 0; i < 10; i++) { await fill(t, { '#notes': '' }); const t0 = performance.now(); await type(t, '#notes', '" +
                                    text + "'); ms.push(performance.now() - t0); }\n"
                                "if ((await execInTab(t, 'document.getElementById(\"notes\").value')).length !== 100) throw new Error('typed text is wrong');\nms");
  ours["get_text_1mb"] = samples(S, loop(n, "const t = await openTab(" + B + "/big?kb=1024')", "await getText(t)"));
  ours["text_length_1mb"] = samples(S, loop(n, "const t = await openTab(" + B + "/big?kb=1024')", "await execInTab(t, 'document.body.innerText.length')"));
  ours["screenshot"] = samples(S, loop(n, "const t = await openTab(" + B + "/')", "await screenshot(t)"));

  // The egress gate's cost on page loads: a page with 100 subresources from another origin (its
  // CDN), loaded in a context under the gate and in one without, on the same browser.
  std::map<std::string, std::vector<double>> gate;
  {
    testing::InjectionSites sites;
    std::string many = sites.victim("/many?n=100");
    for (bool on : {false, true}) {
      auto o = options(data);
      o.isolated = true;
      if (on) {
        safety::GateConfig gc;
        gc.urls = {many};
        o.gate = *safety::make_policy(gc);
      }
      auto g = session::Session::attach(S.runtime(), o);
      if (!g) return 1;
      gate[on ? "on" : "off"] = samples(**g, loop(n, "const t = await openTab('about:blank')",
                                                  "await navigate(t, '" + many + "&i=' + i); "
                                                  "if ((await execInTab(t, 'document.images.length')) !== 100) throw new Error('images missing')"));
    }
  }
  s->reset();
  std::filesystem::remove_all(data);

  json theirs = json::object();
  if (peer) {
    std::string dir = std::filesystem::path(__FILE__).parent_path().string();
    std::string cmd = "cd '" + dir + "' && node playwright.mjs '" + base + "' " + std::to_string(n);
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    size_t k;
    while (p && (k = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, k);
    if (!p || pclose(p) != 0 || out.empty()) {
      std::cerr << "the Playwright peer failed (run `make bench`, which installs playwright-core into bench/)\n";
      return 1;
    }
    theirs = parse_json(out, "Playwright results").value_or(json::object());
  }

  struct Row {
    const char* key;
    const char* label;
  };
  const Row rows[] = {{"launch_first_load", "launch → first page loaded"}, {"navigate_load", "navigate + load"},
                      {"exec_round_trip", "execInTab round trip"},        {"click", "click (actionability + mouse)"},
                      {"type_100", "type 100 characters"},                {"get_text_1mb", "getText, 1 MB page"},
                      {"text_length_1mb", "innerText.length, 1 MB page"},   {"screenshot", "screenshot (viewport PNG)"}};
  std::printf("%-32s %12s %14s %8s\n", "operation (median of runs)", "ouro ms", "playwright ms", "ratio");
  for (const auto& r : rows) {
    double a = median(ours[r.key]);
    double b = theirs.contains(r.key) ? median(theirs[r.key].get<std::vector<double>>()) : 0;
    if (b > 0) std::printf("%-32s %12.2f %14.2f %8.2f\n", r.label, a, b, a / b);
    else std::printf("%-32s %12.2f %14s %8s\n", r.label, a, "-", "-");
  }
  double off = median(gate["off"]), on = median(gate["on"]);
  std::printf("\n%-32s %12s %14s %8s\n", "egress gate (median of runs)", "gate on ms", "gate off ms", "ratio");
  std::printf("%-32s %12.2f %14.2f %8.2f\n", "load a page of 100 subresources", on, off, off > 0 ? on / off : 0);
  std::printf("\nRuns: %d (launch: 5, execInTab: %d, click: %d, type: 10). getText returns the first 100,000 characters with "
              "truncation metadata by design; Playwright's innerText returns all of it.\n", n, n * 5, n * 2);
  return 0;
}
