// ouro's browser-kernel benchmark: the same operations, on the same fixture pages, through ouro
// (measured inside the REPL, where model-written code pays them) and through Playwright driving
// the same Chromium (bench/playwright.mjs), in one run. Prints medians and ours/Playwright.
//
// Usage: ouro_bench [--repeats N] [--no-peer] [--gate-only]
#include "fixtures.h"
#include "injection_sites.h"
#include "egress/gate.h"
#include "actions/host.h"
#include "base/json.h"
#include "base/log.h"
#include "net/http_server.h"
#include "safety/gate.h"
#include "session/session.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
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

uint16_t g_web_port = 0;  // the stand-in for the rest of the web (see main)

session::SessionOptions options(const std::string& data_dir) {
  session::SessionOptions o;
  o.db_path = data_dir + "/ouro.db";
  o.repl.executable = OURO_BINARY;
  o.repl.timeout = std::chrono::seconds(120);
  // The saved real pages name hosts this machine cannot reach: every host but 127.0.0.1 (where
  // the fixtures are) goes to the stand-in for the rest of the web, so their requests happen.
  if (g_web_port) o.browser.launch.extra_args.push_back(fmt::format("--host-resolver-rules=MAP * 127.0.0.1:{}, EXCLUDE 127.0.0.1", g_web_port));
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

// Real saved pages (news, an encyclopedia article, blogs: bench/real_pages.mjs lists them from
// the npm packages that ship them), served by our own server on 127.0.0.1.
struct RealPages {
  std::string error;  // why there are none
  json list = json::array();
  std::map<std::string, std::string> files;  // path -> bytes
  std::unique_ptr<net::IoThread> io;
  std::unique_ptr<net::HttpServer> server;
  std::string origin;

  RealPages() {
    std::string dir = std::filesystem::path(__FILE__).parent_path().string();
    FILE* p = popen(("cd '" + dir + "' && node real_pages.mjs --list 2>/dev/null").c_str(), "r");
    std::string out;
    char buf[4096];
    size_t k;
    while (p && (k = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, k);
    if (!p || pclose(p) != 0) {
      error = "not installed; `make bench` installs them into bench/node_modules";
      return;
    }
    auto pages = parse_json(out, "real pages");
    if (!pages || !pages->is_array()) {
      error = "cannot read the list";
      return;
    }
    for (const auto& pg : *pages) {
      std::ifstream in(get_str(pg, "file"), std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), {});
      if (bytes.empty()) {
        error = "cannot read " + get_str(pg, "file");
        return;
      }
      files[get_str(pg, "path")] = std::move(bytes);
    }
    io = net::IoThread::start();
    auto started = net::HttpServer::start(*io, {}, [this](const net::HttpRequest& r) {
      net::HttpResponse res;
      if (auto f = files.find(r.path); f != files.end()) res.body = f->second;
      else res.status = 404;
      return res;
    });
    if (!started) {
      error = "cannot serve them: " + started.error().message;
      return;
    }
    server = std::move(*started);
    origin = "http://127.0.0.1:" + std::to_string(server->port());
    list = std::move(*pages);
  }
};

// Each real page is opened in a gated session with no one to ask; the run reads it, scrolls it,
// and its code tries two ways out (a fetch and an image to the collector). What did the page send,
// what was refused once the run had acted (safety/gate.h), was anything asked, did anything leak?
std::string real_page_attribution(session::Session& base, const std::string& data, testing::InjectionSites& sites, const RealPages& real) {
  if (!real.error.empty()) return "(real pages: " + real.error + ")\n";
  const json* pages = &real.list;
  const std::string& origin = real.origin;
  std::string report = fmt::format("{:<18} {:>9} {:>9} {:>12} {:>10} {:>9} {:>7}\n", "gate, real page", "requests", "went out",
                                   "own refused", "questions", "attempts", "leaked");
  size_t total = 0, out = 0, questions = 0, refused_own = 0, leaked_all = 0, attempts = 0;
  for (const auto& pg : *pages) {
    std::string url = origin + get_str(pg, "path");
    auto o = options(data);
    o.isolated = true;
    safety::GateConfig gc;
    gc.urls = {url};
    o.gate = *safety::make_policy(gc);
    auto g = session::Session::attach(base.runtime(), o);
    if (!g) return "(real pages: " + g.error().message + ")\n";
    size_t before = sites.collected().size();
    auto r = (*g)->repl().eval("const t = await openTab('" + url + "'); await execInTab(t, '(document.body || document.documentElement).innerText.length'); "
                               "await execInTab(t, 'window.scrollTo(0, document.documentElement.scrollHeight); 1'); "
                               "await execInTab(t, \"fetch('" + sites.collector("/leak-fetch") + "').catch(() => 0); new Image().src = '" +
                               sites.collector("/leak-img") + "'; 1\"); await new Promise(r => setTimeout(r, 1600)); 1",
                               std::chrono::seconds(60));
    if (!r || !r->ok) return "(real pages: " + get_str(pg, "name") + ": " + (r ? r->error_message : r.error().message) + ")\n";
    auto st = egress::gate_stats((*g)->host().context());
    constexpr size_t kAttempts = 2;  // the run's own, refused
    size_t leaked = sites.collected().size() - before;
    size_t own_refused = st.refused >= kAttempts ? st.refused - kAttempts : 0;
    report += fmt::format("{:<18} {:>9} {:>9} {:>12} {:>10} {:>9} {:>7}\n", get_str(pg, "name"), st.requests, st.allowed, own_refused, st.asked,
                          kAttempts, leaked);
    total += st.requests;
    out += st.allowed;
    questions += st.asked;
    refused_own += own_refused;
    leaked_all += leaked;
    attempts += kAttempts;
  }
  report += fmt::format("{} pages, {} requests judged: {} went out, {} of the pages' own refused after the run acted, {} questions; "
                        "the run's attempts {}, blocked {}, leaked {}\n",
                        pages->size(), total, out, refused_own, questions, attempts, attempts - leaked_all, leaked_all);
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 30;
  bool peer = true, gate_only = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) n = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--no-peer")) peer = false;
    if (!std::strcmp(argv[i], "--gate-only")) gate_only = peer = false;
  }
  init_logging();  // OURO_LOG=debug shows the gate's decisions
  if (!std::getenv("OURO_LOG")) spdlog::set_level(spdlog::level::err);  // the gate's refusals here are the point, not news
  // The rest of the web, for the real pages' CDNs, fonts and analytics: an empty answer of the
  // right type to every plain-HTTP request (HTTPS ones are paused and judged, then fail).
  auto web_io = net::IoThread::start();
  auto web = net::HttpServer::start(*web_io, {}, [](const net::HttpRequest& r) {
    net::HttpResponse res;
    auto ends = [&](const char* ext) { return r.path.size() >= std::strlen(ext) && r.path.compare(r.path.size() - std::strlen(ext), std::string::npos, ext) == 0; };
    res.content_type = ends(".js") ? "text/javascript" : ends(".css") ? "text/css" : ends(".png") || ends(".gif") || ends(".jpg") ? "image/gif" : "text/html";
    return res;
  });
  if (web) g_web_port = (*web)->port();
  testing::FixtureSite site;
  RealPages real_pages;
  std::string real_paths;  // "/wikipedia.html,/bbc-news.html,…" for the peer
  for (const auto& pg : real_pages.list) real_paths += (real_paths.empty() ? "" : ",") + get_str(pg, "path");
  std::string base = site.url("/");
  base.pop_back();  // no trailing slash
  std::string data = (std::filesystem::temp_directory_path() / ("ouro-bench-" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(data);

  std::map<std::string, std::vector<double>> ours;
  // Launch to first load: browser, REPL worker and the first page, as `ouro exec --url` does.
  for (int i = 0; i < (gate_only ? 0 : 5); ++i) {
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
  if (!gate_only) {
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
  // The page as affordances: snapshot size and time on every real page.
  for (const auto& pg : real_pages.list)
    ours["real_snapshot:" + get_str(pg, "name")] = samples(
        S, "const t = await openTab('" + real_pages.origin + get_str(pg, "path") + "'); await snapshot(t); const ms = []; let size = 0;\n"
           "for (let i = 0; i < " + std::to_string(std::max(3, n / 4)) + "; i++) { const t0 = performance.now(); const s = await snapshot(t); "
           "ms.push(performance.now() - t0); size = JSON.stringify(s).length; }\nawait closeTab(t); [size, ...ms]");
  // getText of whole real pages (news, an encyclopedia article), as Playwright's innerText('body').
  for (const auto& pg : real_pages.list)
    ours["real_text:" + get_str(pg, "name")] =
        samples(S, loop(n, "const t = await openTab('" + real_pages.origin + get_str(pg, "path") + "'); await getText(t)", "await getText(t)"));
  }

  // The egress gate's cost on page loads: a page with 100 subresources from another origin (its
  // CDN), loaded in a context under the gate and in one without, on the same browser.
  std::map<std::string, std::vector<double>> gate;
  testing::InjectionSites sites;
  std::string many = sites.victim("/many?n=100");
  {
    for (bool on : {false, true}) {
      auto o = options(data);
      o.isolated = true;
      if (on) {
        safety::GateConfig gc;
        gc.urls = {many};
        // The page's CDN is an allowed site here: this measures what judging every request costs
        // (and the context's connections going through the gate's proxy), not refusals.
        std::string cdn = sites.cdn("");
        gc.allow_domains = {cdn.substr(cdn.find("://") + 3, cdn.find('/', cdn.find("://") + 3) - cdn.find("://") - 3)};
        o.gate = *safety::make_policy(gc);
      }
      auto g = session::Session::attach(S.runtime(), o);
      if (!g) return 1;
      gate[on ? "on" : "off"] = samples(**g, loop(n, "const t = await openTab('about:blank')",
                                                  "await navigate(t, '" + many + "&i=' + i); "
                                                  "if ((await execInTab(t, 'document.images.length')) !== 100) throw new Error('images missing')"));
    }
  }
  std::string real = real_page_attribution(S, data, sites, real_pages);
  s->reset();
  std::filesystem::remove_all(data);

  json theirs = json::object();
  if (peer) {
    std::string dir = std::filesystem::path(__FILE__).parent_path().string();
    std::string cmd = "cd '" + dir + "' && OURO_BENCH_RESOLVER='" + fmt::format("MAP * 127.0.0.1:{}, EXCLUDE 127.0.0.1", g_web_port) +
                      "' node playwright.mjs '" + base + "' " + std::to_string(n) + " '" + many + "' '" + real_pages.origin + "' '" + real_paths + "'";
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
    if (ours[r.key].empty()) continue;
    double a = median(ours[r.key]);
    double b = theirs.contains(r.key) ? median(theirs[r.key].get<std::vector<double>>()) : 0;
    if (b > 0) std::printf("%-32s %12.2f %14.2f %8.2f\n", r.label, a, b, a / b);
    else std::printf("%-32s %12.2f %14s %8s\n", r.label, a, "-", "-");
  }
  if (!real_pages.list.empty() && !gate_only) {
    std::printf("\n%-32s %12s %14s %8s\n", "getText, real page (median)", "ouro ms", "playwright ms", "ratio");
    for (const auto& pg : real_pages.list) {
      std::string key = "real_text:" + get_str(pg, "name");
      double a = median(ours[key]), b = theirs.contains(key) ? median(theirs[key].get<std::vector<double>>()) : 0;
      if (b > 0) std::printf("%-32s %12.2f %14.2f %8.2f\n", get_str(pg, "name").c_str(), a, b, a / b);
      else std::printf("%-32s %12.2f %14s %8s\n", get_str(pg, "name").c_str(), a, "-", "-");
    }
  }
  if (!real_pages.list.empty() && !gate_only) {
    // Playwright MCP's browser_snapshot of the same pages, through the MCP SDK's client.
    std::map<std::string, double> mcp;
    if (peer) {
      std::string urls;
      for (const auto& pg : real_pages.list) urls += " '" + real_pages.origin + get_str(pg, "path") + "'";
      std::string dir = std::filesystem::path(__FILE__).parent_path().string();
      FILE* p = popen(("cd '" + dir + "' && node mcp_snapshot.mjs" + urls + " 2>/dev/null").c_str(), "r");
      char line[65536];
      while (p && fgets(line, sizeof line, p))
        if (auto j = parse_json(line, "mcp"); j && j->contains("snapshot_chars"))
          mcp[get_str(*j, "url")] = get_num(*j, "snapshot_chars");
      if (p) pclose(p);
    }
    std::printf("\n%-20s %14s %10s %16s %8s\n", "snapshot, real page", "ouro chars", "ouro ms", "Playwright MCP", "ratio");
    for (const auto& pg : real_pages.list) {
      auto& v = ours["real_snapshot:" + get_str(pg, "name")];
      if (v.empty()) continue;
      double size = v.front();
      double ms = median(std::vector<double>(v.begin() + 1, v.end()));
      double theirs_size = mcp[real_pages.origin + get_str(pg, "path")];
      if (theirs_size > 0) std::printf("%-20s %14.0f %10.1f %16.0f %8.3f\n", get_str(pg, "name").c_str(), size, ms, theirs_size, size / theirs_size);
      else std::printf("%-20s %14.0f %10.1f %16s %8s\n", get_str(pg, "name").c_str(), size, ms, "-", "-");
    }
  }
  double off = median(gate["off"]), on = median(gate["on"]);
  std::printf("\n%-32s %12s %14s %8s\n", "egress gate (median of runs)", "gate on ms", "gate off ms", "ratio");
  std::printf("%-32s %12.2f %14.2f %8.2f\n", "load a page of 100 subresources", on, off, off > 0 ? on / off : 0);
  if (theirs.contains("many_routed") && theirs.contains("many_plain")) {
    double r = median(theirs["many_routed"].get<std::vector<double>>()), p = median(theirs["many_plain"].get<std::vector<double>>());
    std::printf("%-32s %12.2f %14.2f %8.2f\n", "  Playwright, page.route('**')", r, p, p > 0 ? r / p : 0);
  }
  std::printf("\n%s", real.c_str());
  std::printf("\nRuns: %d (launch: 5, execInTab: %d, click: %d, type: 10). getText returns the first 100,000 characters with "
              "truncation metadata by design; Playwright's innerText returns all of it.\n", n, n * 5, n * 2);
  return 0;
}
