#include "eval/report.h"

#include "base/text.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace ouro::eval {

namespace {

std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string seconds(double ms) { return ms >= 60000 ? fmt::format("{}m{:02}s", static_cast<int>(ms / 60000), static_cast<int>(std::fmod(ms / 1000, 60))) : fmt::format("{:.1f} s", ms / 1000); }
std::string dollars(double usd, bool known) { return known ? fmt::format("${:.4f}", usd) : "unknown"; }
std::string percent(double r) { return fmt::format("{:.0f}%", r * 100); }

// The task runs of a result grouped by task, in the result's order.
struct PerTask {
  std::string id, site;
  bool injected = false;
  int runs = 0, ok = 0, attacks = 0, attempted = 0, questions = 0;
  double steps = 0, tokens = 0, cost = 0, wall = 0;
  std::vector<const json*> items;
};

std::vector<PerTask> per_task(const json& result) {
  std::vector<PerTask> out;
  std::map<std::string, size_t> at;
  for (const auto& r : get_array(result, "tasks")) {
    const std::string id = get_str(r, "id");
    auto [it, fresh] = at.emplace(id, out.size());
    if (fresh) {
      PerTask p;
      p.id = id;
      p.site = get_str(r, "site");
      p.injected = get_bool(r, "injected");
      out.push_back(std::move(p));
    }
    PerTask& p = out[it->second];
    p.items.push_back(&r);
    if (get_bool(r, "skipped")) continue;
    ++p.runs;
    p.ok += get_bool(r, "success");
    p.steps += get_num(r, "steps");
    p.tokens += get_num(r, "input_tokens") + get_num(r, "output_tokens");
    p.cost += get_num(r, "cost_usd");
    p.wall += get_num(r, "wall_ms");
    p.questions += static_cast<int>(get_int(r, "questions"));
    const json& a = get_field(r, "attack");
    p.attacks += get_bool(a, "succeeded");
    p.attempted += get_bool(a, "attempted");
  }
  return out;
}

const char* kStyle = R"CSS(
:root{--fg:#1b1f24;--muted:#57606a;--ok:#116329;--bad:#a40e26;--warn:#7d4e00;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa}
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header,main,footer{max-width:1200px;margin:0 auto;padding:12px 16px}h1{font-size:1.5rem;margin:.3em 0}h2{font-size:1.15rem;margin:1.4em 0 .5em}
.meta{color:var(--muted);margin:0}.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:10px;margin:12px 0}
.card{border:1px solid var(--line);border-radius:8px;padding:10px 12px;background:var(--soft)}.card b{display:block;font-size:1.4rem}
.card span{color:var(--muted);font-size:.85rem}.scroll{overflow-x:auto;border:1px solid var(--line);border-radius:8px}
table{border-collapse:collapse;width:100%;min-width:640px}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--soft);font-weight:600}td.n,th.n{text-align:right;white-space:nowrap}.ok{color:var(--ok);font-weight:600}.bad{color:var(--bad);font-weight:600}
.warn{color:var(--warn);font-weight:600}.why{color:var(--muted);font-size:.85rem;max-width:420px;overflow-wrap:anywhere}
details summary{cursor:pointer;color:#0550ae}pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);padding:8px;border-radius:6px;font-size:.8rem;max-height:420px;overflow:auto}
.bars{display:grid;grid-template-columns:minmax(90px,220px) 1fr;gap:4px 8px;align-items:center}.bars .label{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-size:.85rem}
.bar-row{display:flex;gap:6px;align-items:center;font-size:.8rem}meter{width:80%;height:14px}.chart{max-width:560px}
svg text{font:12px system-ui,sans-serif;fill:var(--fg)}.legend{color:var(--muted);font-size:.85rem}
@media (max-width:520px){header,main,footer{padding:8px 10px}.cards{grid-template-columns:repeat(2,1fr)}}
)CSS";

}  // namespace

std::string_view report_style() { return kStyle; }

namespace {

std::string page(const std::string& title, const std::string& body) {
  return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
         "<title>" + esc(title) + "</title><style>" + std::string(kStyle) + "</style></head><body>" + body + "</body></html>\n";
}

std::string card(const std::string& value, const std::string& label, const char* cls = "") {
  return fmt::format("<div class=\"card\"><b class=\"{}\">{}</b><span>{}</span></div>", cls, esc(value), esc(label));
}

std::string describe(const json& result) {
  std::string provider = get_str(result, "provider"), model = get_str(result, "model");
  return fmt::format("{}{} · {} mode · {} repeat{} · concurrency {}", provider.empty() ? "the configured model" : provider,
                     model.empty() || model == provider ? "" : " (" + model + ")", get_str(result, "mode", "autonomous"), get_int(result, "repeats", 1),
                     get_int(result, "repeats", 1) == 1 ? "" : "s", get_int(result, "concurrency", 1));
}

std::string summary_cards(const json& s) {
  std::string out = "<div class=\"cards\">";
  out += card(percent(get_num(s, "success_rate")), fmt::format("success ({} of {} runs)", get_int(s, "succeeded"), get_int(s, "runs")),
              get_num(s, "success_rate") >= 0.5 ? "ok" : "bad");
  if (get_int(s, "injected") > 0)
    out += card(fmt::format("{} / {}", get_int(s, "attacks_succeeded"), get_int(s, "injected")),
                fmt::format("attacks succeeded ({} tried)", get_int(s, "attacks_attempted")), get_int(s, "attacks_succeeded") ? "bad" : "ok");
  out += card(fmt::format("{:.1f}", get_num(s, "steps_mean")), "steps per run");
  out += card(with_commas(static_cast<size_t>(get_int(s, "input_tokens") + get_int(s, "output_tokens"))), "tokens in all");
  out += card(dollars(get_num(s, "cost_usd"), get_bool(s, "cost_known", true)), "cost in all");
  out += card(seconds(get_num(s, "wall_ms_mean")), "time per run");
  out += card(std::to_string(get_int(s, "questions")), "questions asked (answered no)");
  return out + "</div>";
}

// Cost (tokens when nothing was priced) against success, one point per site.
std::string cost_chart(const std::vector<PerTask>& tasks, bool priced) {
  struct Point {
    std::string site;
    double x = 0, runs = 0, ok = 0;
  };
  std::map<std::string, Point> sites;
  for (const auto& t : tasks) {
    auto& p = sites[t.site];
    p.site = t.site;
    p.x += priced ? t.cost : t.tokens;
    p.runs += t.runs;
    p.ok += t.ok;
  }
  double max_x = 0;
  for (auto& [k, p] : sites) {
    p.x = p.runs ? p.x / p.runs : 0;
    max_x = std::max(max_x, p.x);
  }
  if (max_x <= 0) max_x = 1;
  const int W = 560, H = 260, L = 56, B = 36, T = 12, R = 90;
  std::string desc, svg = fmt::format("<svg class=\"chart\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" aria-labelledby=\"cost-title\">"
                                      "<title id=\"cost-title\">{} per run against success, by site</title>",
                                      W, H, priced ? "Cost" : "Tokens");
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#57606a\"/><line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\" stroke=\"#57606a\"/>", L,
                     H - B, W - R, T);
  for (int i = 0; i <= 4; ++i) {
    int y = H - B - (H - B - T) * i / 4;
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}%</text>", L - 6, y + 4, i * 25);
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} per run</text>", (L + W - R) / 2, H - 6, priced ? "cost" : "tokens");
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", W - R, H - B + 16, priced ? fmt::format("${:.4f}", max_x) : with_commas(static_cast<size_t>(max_x)));
  svg += fmt::format("<text x=\"{}\" y=\"{}\">0</text>", L, H - B + 16);
  for (const auto& [k, p] : sites) {
    double rate = p.runs ? p.ok / p.runs : 0;
    double x = L + (W - R - L) * p.x / max_x, y = H - B - (H - B - T) * rate;
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"6\" fill=\"{}\"/><text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", x, y, rate >= 0.5 ? "#1a7f37" : "#cf222e", x + 9,
                       y + 4, esc(p.site));
    desc += fmt::format("<li>{}: {} success, {} per run</li>", esc(p.site), percent(rate), priced ? fmt::format("${:.4f}", p.x) : with_commas(static_cast<size_t>(p.x)) + " tokens");
  }
  return svg + "</svg><details><summary>The same as a list</summary><ul>" + desc + "</ul></details>";
}

std::string time_bars(const std::vector<PerTask>& tasks) {
  double max_ms = 1;
  for (const auto& t : tasks) max_ms = std::max(max_ms, t.runs ? t.wall / t.runs : 0);
  std::string out = "<div class=\"bars\">";
  for (const auto& t : tasks) {
    double ms = t.runs ? t.wall / t.runs : 0;
    out += fmt::format("<div class=\"label\" title=\"{0}\">{0}</div><div class=\"bar-row\"><meter class=\"{1}\" min=\"0\" max=\"{2:.0f}\" value=\"{3:.0f}\" "
                       "aria-label=\"{0}: {4}\"></meter>{4}</div>",
                       esc(t.id), t.ok == t.runs && t.runs ? "ok" : "bad", max_ms, ms, esc(seconds(ms)));
  }
  return out + "</div>";
}

std::string trace_html(const json& r) {
  std::string text;
  for (const auto& e : get_array(r, "trace")) text += fmt::format("[{:>6.1f} s] {:<18} {}\n", get_num(e, "ms") / 1000, get_str(e, "type"), get_str(e, "text"));
  std::string checks;
  for (const auto& c : get_array(r, "checks"))
    checks += fmt::format("{} {} — {}\n", get_bool(c, "passed") ? "✓" : "✗", dump_json(get_field(c, "check")), get_str(c, "detail"));
  const json& a = get_field(r, "attack");
  if (a.is_object()) checks += fmt::format("attack ({}): {}\n", get_str(a, "goal"), get_str(a, "detail"));
  std::string log;
  for (const auto& e : get_array(r, "site_log")) log += fmt::format("#{} {} {}\n", get_int(e, "seq"), get_str(e, "action"), dump_json(get_field(e, "body")));
  return fmt::format("<details><summary>trace</summary><p><b>Task:</b> {}</p><p><b>Answer:</b> {}</p><pre tabindex=\"0\">{}</pre><p><b>What the site was sent</b></p><pre tabindex=\"0\">{}</pre><pre tabindex=\"0\">{}</pre></details>",
                     esc(get_str(r, "instruction")), esc(clip_text(get_str(r, "answer"), 1000)), esc(checks), esc(log.empty() ? "nothing\n" : log), esc(text.empty() ? "no events\n" : text));
}

std::string outcome_cell(const json& r) {
  if (get_bool(r, "skipped")) return "<span class=\"warn\">skipped</span>";
  return get_bool(r, "success") ? "<span class=\"ok\">✓ done</span>" : "<span class=\"bad\">✗ failed</span>";
}

std::string attack_cell(const json& r) {
  const json& a = get_field(r, "attack");
  if (!a.is_object()) return "—";
  if (get_bool(a, "succeeded")) return "<span class=\"bad\">succeeded</span>";
  if (get_bool(a, "attempted")) return "<span class=\"warn\">refused</span>";
  return "<span class=\"ok\">not tried</span>";
}

}  // namespace

json summarize(const json& result) {
  json s = {{"runs", 0}, {"succeeded", 0}, {"skipped", 0}, {"steps", 0}, {"input_tokens", 0}, {"output_tokens", 0}, {"cost_usd", 0.0},
            {"cost_known", true}, {"wall_ms", 0.0}, {"wall_ms_max", 0.0}, {"questions", 0}, {"injected", 0}, {"attacks_attempted", 0},
            {"attacks_succeeded", 0}};
  int64_t runs = 0, ok = 0, skipped = 0, steps = 0, in = 0, outt = 0, q = 0, inj = 0, att = 0, suc = 0;
  double cost = 0, wall = 0, wall_max = 0;
  bool known = true;
  for (const auto& r : get_array(result, "tasks")) {
    if (get_bool(r, "skipped")) {
      ++skipped;
      continue;
    }
    ++runs;
    ok += get_bool(r, "success");
    steps += get_int(r, "steps");
    in += get_int(r, "input_tokens");
    outt += get_int(r, "output_tokens");
    cost += get_num(r, "cost_usd");
    known = known && get_bool(r, "cost_known", true);
    wall += get_num(r, "wall_ms");
    wall_max = std::max(wall_max, get_num(r, "wall_ms"));
    q += get_int(r, "questions");
    if (get_bool(r, "injected")) {
      ++inj;
      att += get_bool(get_field(r, "attack"), "attempted");
      suc += get_bool(get_field(r, "attack"), "succeeded");
    }
  }
  s = {{"runs", runs}, {"succeeded", ok}, {"success_rate", runs ? double(ok) / double(runs) : 0.0}, {"skipped", skipped},
       {"steps_mean", runs ? double(steps) / double(runs) : 0.0}, {"input_tokens", in}, {"output_tokens", outt}, {"cost_usd", cost},
       {"cost_known", known}, {"wall_ms_mean", runs ? wall / double(runs) : 0.0}, {"wall_ms_max", wall_max}, {"questions", q},
       {"injected", inj}, {"attacks_attempted", att}, {"attacks_succeeded", suc}};
  return s;
}

json with_summary(json result) {
  result["summary"] = summarize(result);
  return result;
}

Result<json> read_result(const std::string& path) {
  constexpr uintmax_t kMaxResultBytes = 256u << 20;
  std::error_code ec;
  if (auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxResultBytes)
    return errorf(Code::InvalidArgument, "{} is {} MB; a result of ouro eval is read up to 256 MB", path, size >> 20);
  std::ifstream in(path);
  if (!in) return errorf(Code::NotFound, "cannot read the result {}", path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = parse_json(ss.str(), path);
  if (!j) return tl::make_unexpected(j.error());
  if (!j->is_object() || get_str(*j, "format") != "ouro-eval/1" || !get_field(*j, "tasks").is_array())
    return errorf(Code::InvalidArgument, "{} is not a result of ouro eval (format ouro-eval/1)", path);
  return with_summary(std::move(*j));
}

std::string table(const json& result, bool color) {
  auto paint = [&](const char* code, const std::string& s) { return color ? fmt::format("\033[{}m{}\033[0m", code, s) : s; };
  const auto tasks = per_task(result);
  size_t w = 4;
  for (const auto& t : tasks) w = std::max(w, utf8_length(t.id));
  w = std::min<size_t>(w, 44);
  std::string out = fmt::format("{:<{}}  {:>7}  {:>5}  {:>9}  {:>9}  {:>8}  {:>3}  {}\n", "task", w, "success", "steps", "tokens", "cost", "time", "asked", "attack");
  for (const auto& t : tasks) {
    const double n = t.runs ? t.runs : 1;
    std::string ok = fmt::format("{}/{}", t.ok, t.runs);
    std::string attack = !t.injected ? "" : t.attacks ? paint("31", "succeeded") : t.attempted ? paint("33", "refused") : paint("32", "not tried");
    out += fmt::format("{:<{}}  {}  {:>5.1f}  {:>9}  {:>9}  {:>8}  {:>3}  {}\n", clip_text(t.id, w), w,
                       paint(!t.runs ? "33" : t.ok == t.runs ? "32" : "31", fmt::format("{:>7}", t.runs ? ok : "skipped")), t.steps / n, with_commas(static_cast<size_t>(t.tokens / n)),
                       fmt::format("${:.4f}", t.cost / n), seconds(t.wall / n), t.questions, attack);
  }
  const json s = summarize(result);
  out += fmt::format("\n{} of {} runs succeeded ({}) · {:.1f} steps · {} tokens · {} · {} per run · {} question{} asked", get_int(s, "succeeded"), get_int(s, "runs"),
                     percent(get_num(s, "success_rate")), get_num(s, "steps_mean"),
                     with_commas(static_cast<size_t>(get_int(s, "input_tokens") + get_int(s, "output_tokens"))),
                     dollars(get_num(s, "cost_usd"), get_bool(s, "cost_known", true)), seconds(get_num(s, "wall_ms_mean")), get_int(s, "questions"),
                     get_int(s, "questions") == 1 ? "" : "s");
  if (get_int(s, "injected"))
    out += fmt::format(" · attacks succeeded: {} of {} injected runs ({} tried)", get_int(s, "attacks_succeeded"), get_int(s, "injected"), get_int(s, "attacks_attempted"));
  if (get_int(s, "skipped")) out += fmt::format(" · {} skipped", get_int(s, "skipped"));
  return out + "\n";
}

std::string html_report(const json& result) {
  const json s = summarize(result);
  const auto tasks = per_task(result);
  bool priced = false;
  for (const auto& t : tasks) priced = priced || t.cost > 0;
  std::string body = "<header><h1>ouro eval: " + esc(get_str(result, "suite", "suite")) + "</h1><p class=\"meta\">" + esc(describe(result)) +
                     fmt::format(" · {} in all", seconds(get_num(result, "wall_ms"))) + (get_bool(result, "cancelled") ? " · cancelled" : "") + "</p></header><main>";
  body += "<section aria-labelledby=\"h-summary\"><h2 id=\"h-summary\">Summary</h2>" + summary_cards(s) + "</section>";
  body += "<section aria-labelledby=\"h-cost\"><h2 id=\"h-cost\">" + std::string(priced ? "Cost" : "Tokens") + " against success</h2>" + cost_chart(tasks, priced) + "</section>";
  body += "<section aria-labelledby=\"h-time\"><h2 id=\"h-time\">Time per task</h2>" + time_bars(tasks) + "</section>";
  body += "<section aria-labelledby=\"h-tasks\"><h2 id=\"h-tasks\">Tasks</h2><p class=\"legend\">Failures first. Each run's trace — what the model ran, what the gate decided, "
          "what the site was sent — is under <em>trace</em>.</p><div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"Task runs\"><table><thead><tr>"
          "<th scope=\"col\">task</th><th scope=\"col\">outcome</th><th scope=\"col\" class=\"n\">steps</th><th scope=\"col\" class=\"n\">tokens</th><th scope=\"col\" class=\"n\">cost</th>"
          "<th scope=\"col\" class=\"n\">time</th><th scope=\"col\" class=\"n\">asked</th><th scope=\"col\">attack</th><th scope=\"col\">where it stopped</th></tr></thead><tbody>";
  std::vector<const json*> rows;
  for (const auto& r : get_array(result, "tasks")) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const json* a, const json* b) { return get_bool(*a, "success") < get_bool(*b, "success"); });
  for (const json* rp : rows) {
    const json& r = *rp;
    body += fmt::format("<tr><td><b>{}</b>{}<br><span class=\"why\">{}</span></td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
                        "<td class=\"n\">{}</td><td>{}</td><td><div class=\"why\">{}</div>{}</td></tr>",
                        esc(get_str(r, "id")), get_int(r, "repeat", 1) > 1 || get_int(result, "repeats", 1) > 1 ? fmt::format(" <span class=\"why\">#{}</span>", get_int(r, "repeat", 1)) : "",
                        esc(clip_text(get_str(r, "instruction"), 160)), outcome_cell(r), get_int(r, "steps"),
                        with_commas(static_cast<size_t>(get_int(r, "input_tokens") + get_int(r, "output_tokens"))), esc(dollars(get_num(r, "cost_usd"), get_bool(r, "cost_known", true))),
                        esc(seconds(get_num(r, "wall_ms"))), get_int(r, "questions"), attack_cell(r), esc(get_bool(r, "success") ? "" : clip_text(get_str(r, "stopped"), 400)),
                        get_bool(r, "skipped") ? "" : trace_html(r));
  }
  body += "</tbody></table></div></section></main><footer><p class=\"meta\">Written by ouro eval. The checks read each site's own state and the final answer, never the agent's word.</p></footer>";
  return page("ouro eval — " + get_str(result, "suite", "suite"), body);
}

std::string html_compare(const json& a, const json& b, const std::string& a_name, const std::string& b_name) {
  const json sa = summarize(a), sb = summarize(b);
  auto delta = [](double x, double y, const std::string& shown, bool higher_better) {
    if (std::fabs(y - x) < 1e-9) return std::string("<span class=\"why\">same</span>");
    bool better = (y > x) == higher_better;
    return fmt::format("<span class=\"{}\">{}</span>", better ? "ok" : "bad", esc(shown));
  };
  auto row = [&](const std::string& label, double x, double y, const std::string& xs, const std::string& ys, const std::string& d, bool higher_better) {
    return fmt::format("<tr><th scope=\"row\">{}</th><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>", esc(label), esc(xs), esc(ys),
                       delta(x, y, d, higher_better));
  };
  auto num = [](const json& s, const char* k) { return get_num(s, k); };
  std::string body = "<header><h1>ouro eval: " + esc(a_name) + " against " + esc(b_name) + "</h1><p class=\"meta\">A: " + esc(describe(a)) + "<br>B: " + esc(describe(b)) +
                     "</p></header><main><section aria-labelledby=\"h-sum\"><h2 id=\"h-sum\">Summary</h2><div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"The two results' figures\"><table><thead><tr>"
                     "<th scope=\"col\">measure</th><th scope=\"col\" class=\"n\">A: " + esc(a_name) + "</th><th scope=\"col\" class=\"n\">B: " + esc(b_name) +
                     "</th><th scope=\"col\" class=\"n\">B against A</th></tr></thead><tbody>";
  body += row("success", num(sa, "success_rate"), num(sb, "success_rate"), percent(num(sa, "success_rate")), percent(num(sb, "success_rate")),
              fmt::format("{:+.0f} points", (num(sb, "success_rate") - num(sa, "success_rate")) * 100), true);
  // Attacks as a share of the injected runs: two results may have run them a different number of times.
  auto attack_rate = [&](const json& x) { return get_num(x, "injected") > 0 ? get_num(x, "attacks_succeeded") / get_num(x, "injected") : 0.0; };
  body += row("attacks succeeded", attack_rate(sa), attack_rate(sb), fmt::format("{} of {}", get_int(sa, "attacks_succeeded"), get_int(sa, "injected")),
              fmt::format("{} of {}", get_int(sb, "attacks_succeeded"), get_int(sb, "injected")),
              fmt::format("{:+.0f} points", (attack_rate(sb) - attack_rate(sa)) * 100), false);
  body += row("steps per run", num(sa, "steps_mean"), num(sb, "steps_mean"), fmt::format("{:.1f}", num(sa, "steps_mean")), fmt::format("{:.1f}", num(sb, "steps_mean")),
              fmt::format("{:+.1f}", num(sb, "steps_mean") - num(sa, "steps_mean")), false);
  const double ta = num(sa, "input_tokens") + num(sa, "output_tokens"), tb = num(sb, "input_tokens") + num(sb, "output_tokens");
  body += row("tokens", ta, tb, with_commas(static_cast<size_t>(ta)), with_commas(static_cast<size_t>(tb)), fmt::format("{:+.0f}%", ta > 0 ? (tb - ta) / ta * 100 : 0), false);
  body += row("cost", num(sa, "cost_usd"), num(sb, "cost_usd"), dollars(num(sa, "cost_usd"), get_bool(sa, "cost_known", true)),
              dollars(num(sb, "cost_usd"), get_bool(sb, "cost_known", true)), fmt::format("{:+.4f}", num(sb, "cost_usd") - num(sa, "cost_usd")), false);
  body += row("time per run", num(sa, "wall_ms_mean"), num(sb, "wall_ms_mean"), seconds(num(sa, "wall_ms_mean")), seconds(num(sb, "wall_ms_mean")),
              fmt::format("{:+.1f} s", (num(sb, "wall_ms_mean") - num(sa, "wall_ms_mean")) / 1000), false);
  body += row("questions", num(sa, "questions"), num(sb, "questions"), std::to_string(get_int(sa, "questions")), std::to_string(get_int(sb, "questions")),
              fmt::format("{:+}", get_int(sb, "questions") - get_int(sa, "questions")), false);
  body += "</tbody></table></div></section>";

  // Task by task: what changed first (B failing where A did, then B fixed), then the rest.
  const auto pa = per_task(a), pb = per_task(b);
  std::map<std::string, const PerTask*> in_a;
  for (const auto& t : pa) in_a[t.id] = &t;
  struct Row {
    int rank;
    std::string html;
  };
  std::vector<Row> rows;
  auto rate = [](const PerTask* t) { return t && t->runs ? double(t->ok) / t->runs : -1.0; };
  auto cell = [](const PerTask* t) {
    if (!t) return std::string("<span class=\"why\">not run</span>");
    const double n = t->runs ? t->runs : 1;
    return fmt::format("<span class=\"{}\">{}/{}</span> <span class=\"why\">{:.1f} steps · {}</span>", t->ok == t->runs && t->runs ? "ok" : "bad", t->ok, t->runs, t->steps / n,
                       seconds(t->wall / n));
  };
  std::set<std::string> seen;
  for (const auto& t : pb) {
    seen.insert(t.id);
    const PerTask* x = in_a.count(t.id) ? in_a[t.id] : nullptr;
    double ra = rate(x), rb = rate(&t);
    int rank = ra >= 0 && rb < ra ? 0 : ra >= 0 && rb > ra ? 1 : 2;
    const char* what = rank == 0 ? "<span class=\"bad\">worse</span>" : rank == 1 ? "<span class=\"ok\">better</span>" : "<span class=\"why\">same</span>";
    if (t.injected && x && x->runs && t.runs) {
      const double before = double(x->attacks) / x->runs, after = double(t.attacks) / t.runs;
      if (after > before) what = "<span class=\"bad\">attack got through</span>";
      else if (after < before) what = "<span class=\"ok\">attack stopped</span>";
    }
    rows.push_back({rank, fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", esc(t.id), cell(x), cell(&t), what)});
  }
  for (const auto& t : pa)
    if (!seen.count(t.id)) rows.push_back({3, fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td><span class=\"why\">only in A</span></td></tr>", esc(t.id), cell(&t), cell(nullptr))});
  std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.rank < y.rank; });
  body += "<section aria-labelledby=\"h-tasks\"><h2 id=\"h-tasks\">Task by task</h2><div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"Each task in both results\"><table><thead><tr>"
          "<th scope=\"col\">task</th><th scope=\"col\">A</th><th scope=\"col\">B</th><th scope=\"col\">change</th></tr></thead><tbody>";
  for (const auto& r : rows) body += r.html;
  body += "</tbody></table></div></section></main>";
  return page("ouro eval — " + a_name + " against " + b_name, body);
}

}  // namespace ouro::eval
