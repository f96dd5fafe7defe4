// explore(): beam search over a site for a page where a goal predicate holds
// (docs/reference/api.md). Goal predicates: a form of a purpose ({form: 'login'}), an action of a kind
// ({action: 'download_invoice'} — a snapshot kind, or words a control's name has), a collection
// with fields ({collection: ['date', 'amount']}), or text on the page ({text: '…'}, or a plain
// string). From the start page, its links are ranked against the goal's words; the best `beam`
// are opened in tabs of the run's context (through openTab: the allowed sites and the gate hold),
// each page is tested, and the best pages' links form the next level, to `depth`. Losers are
// closed, the winner is focused, and the site graph (nodes and edges) comes back with it.
#include "actions/impl.h"

#include "base/text.h"
#include "browser/browser.h"
#include "commands/words.h"

#include <algorithm>
#include <map>
#include <set>

namespace ouro::actions::impl {

namespace {

constexpr size_t kMaxPages = 30;

struct Goal {
  std::string form, action, text;
  std::vector<std::string> fields;
  std::vector<std::string> words;  // what links toward it might say
  std::string describe() const {
    if (!form.empty()) return "a " + form + " form";
    if (!action.empty()) return "an action of kind " + action;
    if (!fields.empty()) return "a collection with " + commands::lower(json(fields).dump());
    return "the text " + json(text).dump();
  }
};

// Words a link toward a goal tends to carry, by purpose/kind.
std::vector<std::string> hint_words(const std::string& what) {
  static const std::map<std::string, std::vector<std::string>> hints = {
      {"login", {"sign", "log", "login", "account", "my"}},       {"signup", {"sign", "up", "register", "join", "create", "account"}},
      {"search", {"search", "find"}},                              {"contact", {"contact", "support", "help", "us"}},
      {"checkout", {"cart", "checkout", "basket", "bag"}},         {"billing", {"billing", "account", "payment", "invoices", "settings"}},
      {"payment_method", {"payment", "billing", "wallet", "card", "account"}},
      {"download_invoice", {"invoices", "billing", "account", "orders", "download"}},
      {"upload", {"upload", "documents", "files"}},               {"schedule", {"schedule", "book", "appointments", "calendar"}},
      {"book", {"book", "reserve", "appointments"}},               {"apply", {"apply", "careers", "jobs"}},
  };
  std::string spaced = commands::lower(what);
  std::replace(spaced.begin(), spaced.end(), '_', ' ');
  std::replace(spaced.begin(), spaced.end(), '-', ' ');
  std::vector<std::string> out = commands::split_ws(spaced);
  if (auto it = hints.find(what); it != hints.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  return out;
}

Result<Goal> parse_goal(const json& g) {
  Goal goal;
  if (g.is_string()) {
    goal.text = g.get<std::string>();
  } else if (g.is_object()) {
    goal.form = g.value("form", "");
    goal.action = g.value("action", "");
    goal.text = g.value("text", "");
    if (g.contains("collection")) {
      const json& c = g["collection"].is_object() ? g["collection"].value("fields", json::array()) : g["collection"];
      if (c.is_array())
        for (const auto& f : c)
          if (f.is_string()) goal.fields.push_back(commands::lower(f.get<std::string>()));
    }
  }
  if (goal.form.empty() && goal.action.empty() && goal.text.empty() && goal.fields.empty())
    return make_error(Code::InvalidArgument,
                      "explore(tabId, goal): goal is {form: purpose} | {action: kind} | {collection: [fields]} | {text: '…'} | 'text'");
  for (const auto& w : hint_words(goal.form)) goal.words.push_back(w);
  for (const auto& w : hint_words(goal.action)) goal.words.push_back(w);
  // A collection's fields say where such lists live: money by date → invoices, orders, billing.
  static const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> homes = {
      {{"amount", "total", "invoice", "balance", "due", "paid"}, {"invoices", "billing", "orders", "history", "account", "transactions", "statements", "payments"}},
      {{"price", "product", "sku", "stock"}, {"products", "shop", "store", "catalog", "catalogue"}},
      {{"author", "headline", "published"}, {"articles", "blog", "news", "posts"}},
      {{"email", "phone", "role"}, {"contacts", "people", "members", "users", "team", "directory"}},
      {{"status", "tracking", "shipped"}, {"orders", "shipments", "history", "account"}},
  };
  for (const auto& f : goal.fields) {
    goal.words.push_back(f);
    for (const auto& [keys, where] : homes)
      if (std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return f.find(k) != std::string::npos; }))
        goal.words.insert(goal.words.end(), where.begin(), where.end());
  }
  for (const auto& w : commands::split_ws(commands::lower(goal.text))) goal.words.push_back(w);
  return goal;
}

// Whether the goal holds on a tab, and how close the page looks (for the beam).
struct Test {
  bool holds = false;
  double score = 0;
  std::string why;
};

double word_score(const std::string& text, const std::vector<std::string>& words) {
  auto toks = commands::split_ws(commands::lower(text));
  std::set<std::string> have;
  for (auto& t : toks) {
    while (!t.empty() && !std::isalnum(static_cast<unsigned char>(t.back()))) t.pop_back();
    while (!t.empty() && !std::isalnum(static_cast<unsigned char>(t.front()))) t.erase(t.begin());
    have.insert(t);
  }
  double s = 0;
  for (const auto& w : words)
    if (w.size() > 1 && have.count(w)) s += 1;
  return words.empty() ? 0 : s / static_cast<double>(words.size());
}

// "Download invoice" is an action of kind download_invoice: every word of the kind is in its name.
bool names_kind(const std::string& name, const std::string& kind) {
  std::string spaced = commands::lower(kind);
  std::replace(spaced.begin(), spaced.end(), '_', ' ');
  std::string n = commands::lower(name);
  auto words = commands::split_ws(spaced);
  return !words.empty() && std::all_of(words.begin(), words.end(), [&](const std::string& w) { return n.find(w) != std::string::npos; });
}

Result<Test> test_goal(Context& ctx, const std::string& tab, const Goal& goal) {
  Test t;
  auto snap = TRY(snapshot(ctx, json::array({tab})));
  if (!goal.form.empty())
    for (const auto& f : snap.value("forms", json::array()))
      if (get_str(f, "purpose") == goal.form) t.holds = true, t.why = "a " + goal.form + " form (" + get_str(f, "ref") + ")";
  if (!goal.action.empty()) {
    // The default snapshot's actions, and those a query by the kind finds beyond them.
    json actions = snap.value("actions", json::array());
    auto kinds = snapshot(ctx, json::array({tab, json{{"kind", goal.action}}}));
    if (kinds)
      for (const auto& a : kinds->value("actions", json::array())) actions.push_back(a);
    for (const auto& a : actions)
      if (get_str(a, "kind") == goal.action || names_kind(get_str(a, "name"), goal.action))
        t.holds = true, t.why = "the action " + json(get_str(a, "name")).dump() + " (" + get_str(a, "ref") + ")";
  }
  if (!goal.fields.empty())
    for (const auto& c : snap.value("collections", json::array())) {
      std::string fields = commands::lower(c.value("fields", json::array()).dump() + " " + get_str(c, "name"));
      if (std::all_of(goal.fields.begin(), goal.fields.end(), [&](const std::string& f) { return fields.find(f) != std::string::npos; }))
        t.holds = true, t.why = "the collection " + json(get_str(c, "name")).dump() + " (" + get_str(c, "ref") + ")";
    }
  std::string text = get_str(TRY(ctx.browser().call(tab, "readable", json::array({"", 20000}), "", ctx.limits().exec_timeout)), "text");
  if (!goal.text.empty() && commands::lower(text).find(commands::lower(goal.text)) != std::string::npos)
    t.holds = true, t.why = "the text " + json(goal.text).dump();
  t.score = word_score(get_str(snap, "title") + " " + text.substr(0, 3000), goal.words);
  return t;
}

struct Link {
  std::string href, text;
  double score;
};

// The page's links worth following: same scheme, not seen yet, not fragments of this page, best first.
Result<std::vector<Link>> links_of(Context& ctx, const std::string& tab, const Goal& goal, const std::set<std::string>& seen) {
  auto links = TRY(get_links(ctx, json::array({tab})));
  auto info = ctx.browser().tab_info(tab);
  std::string here = info ? info->url.substr(0, info->url.find('#')) : "";
  std::vector<Link> out;
  std::set<std::string> taken;
  for (const auto& l : links) {
    std::string href = get_str(l, "href");
    std::string bare = href.substr(0, href.find('#'));
    if (href.rfind("http", 0) != 0 || bare == here || seen.count(bare) || !taken.insert(bare).second) continue;
    std::string text = get_str(l, "text");
    double s = word_score(text + " " + commands::lower(bare), goal.words);
    out.push_back({bare, text, s});
  }
  std::stable_sort(out.begin(), out.end(), [](const Link& a, const Link& b) { return a.score > b.score; });
  return out;
}

}  // namespace

Result<json> explore(Context& ctx, const json& args) {
  const std::string start = arg_string(args, 0);
  Goal goal = TRY(parse_goal(args.size() > 1 ? args[1] : json()));
  const json opts = args.size() > 2 && args[2].is_object() ? args[2] : json::object();
  const int beam = opts.contains("beam") && opts["beam"].is_number_integer() ? std::clamp(opts["beam"].get<int>(), 1, 5) : 3;
  const int depth = opts.contains("depth") && opts["depth"].is_number_integer() ? std::clamp(opts["depth"].get<int>(), 1, 4) : 3;

  json nodes = json::array(), edges = json::array();
  std::set<std::string> seen;
  auto info = ctx.browser().tab_info(start);
  std::string start_url = info ? info->url.substr(0, info->url.find('#')) : "";
  seen.insert(start_url);
  auto first = TRY(test_goal(ctx, start, goal));
  nodes.push_back({{"url", start_url}, {"title", info ? info->title : ""}, {"depth", 0}, {"score", first.score}, {"goal", first.holds}});
  auto result = [&](bool found, const std::string& tab, const std::string& url, const std::string& why) {
    json out = {{"found", found}, {"goal", goal.describe()}, {"graph", {{"nodes", nodes}, {"edges", edges}}}, {"pagesVisited", nodes.size()}};
    if (found) out["tab"] = tab, out["url"] = url, out["why"] = why;
    return out;
  };
  if (first.holds) return result(true, start, start_url, first.why);

  struct Open {
    std::string tab, url;
    double score;
  };
  std::vector<Open> level = {{start, start_url, first.score}};
  std::vector<std::string> opened;  // every tab explore opened, for closing the losers
  auto close_all_but = [&](const std::string& keep) {
    for (const auto& t : opened)
      if (t != keep) (void)call_capability(ctx, "closeTab", json::array({t}));
  };
  std::string last_error;
  for (int d = 1; d <= depth; ++d) {
    // The next level's candidates: every open page's links, ranked by the goal's words.
    std::vector<std::pair<Link, std::string>> candidates;  // link, from url
    for (const auto& o : level) {
      auto ls = links_of(ctx, o.tab, goal, seen);
      if (!ls) continue;
      for (auto& l : *ls) candidates.push_back({l, o.url});
    }
    std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) { return a.first.score > b.first.score; });
    std::vector<Open> next;
    for (const auto& [link, from] : candidates) {
      if (static_cast<int>(next.size()) >= beam || nodes.size() >= kMaxPages) break;
      if (!seen.insert(link.href).second) continue;
      auto tab = call_capability(ctx, "openTab", json::array({link.href}));
      edges.push_back({{"from", from}, {"to", link.href}, {"label", clip_text(link.text, 80)}, {"opened", static_cast<bool>(tab)}});
      if (!tab) {
        last_error = tab.error().message;  // e.g. a site the run may not reach
        continue;
      }
      std::string id = tab->get<std::string>();
      opened.push_back(id);
      auto t = test_goal(ctx, id, goal);
      auto ti = ctx.browser().tab_info(id);
      nodes.push_back({{"url", link.href}, {"title", ti ? ti->title : ""}, {"depth", d}, {"score", t ? t->score : 0}, {"goal", t && t->holds}});
      if (t && t->holds) {
        close_all_but(id);
        (void)call_capability(ctx, "switchTab", json::array({id}));
        return result(true, id, link.href, t->why);
      }
      next.push_back({id, link.href, t ? t->score + link.score : link.score});
    }
    // Pages of this level that are not kept for the next one are closed now.
    std::stable_sort(next.begin(), next.end(), [](const Open& a, const Open& b) { return a.score > b.score; });
    for (const auto& o : level)
      if (o.tab != start) (void)call_capability(ctx, "closeTab", json::array({o.tab}));
    opened.erase(std::remove_if(opened.begin(), opened.end(),
                                [&](const std::string& t) { return std::none_of(next.begin(), next.end(), [&](const Open& o) { return o.tab == t; }); }),
                 opened.end());
    level = next;
    if (level.empty()) break;
  }
  close_all_but("");
  (void)call_capability(ctx, "switchTab", json::array({start}));
  json out = result(false, "", "", "");
  out["error"] = "explore: " + goal.describe() + " was not found within depth " + std::to_string(depth) + " (" + std::to_string(nodes.size()) +
                 " pages)" + (last_error.empty() ? "" : "; a link could not be opened: " + clip_text(last_error, 200));
  return out;
}

}  // namespace ouro::actions::impl
