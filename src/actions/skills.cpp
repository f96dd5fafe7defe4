// Skills (docs/reference/api.md): login, search, fillForm, paginate, navigateByMenu — each
// deterministic over the page's snapshot: it matches the slots it needs (the login form's user
// and password fields and its submit; the search field; …), binds them to refs, acts through the
// registry's own capabilities (permissions, the safety gate), and checks its effects (the password
// field is gone or the URL changed; the results changed; each field holds its value). Each returns
// {ok, skill, bound: {slot: {ref, name, confidence}}, did: [..], effects: [{effect, met}], url,
// title, error?} — what it bound, what it did, and what holds now.
#include "actions/impl.h"
#include "base/steady_clock.h"

#include "base/text.h"
#include "browser/browser.h"
#include "commands/words.h"

#include <regex>
#include <set>
#include <thread>

namespace ouro::actions::impl {

namespace {

using Clock = ouro::SteadyClock;

struct Skill {
  Context& ctx;
  std::string tab;
  std::string name;
  json bound = json::object();
  json did = json::array();
  json effects = json::array();

  // A capability through the registry: its permission, then its implementation.
  Result<json> use(const char* cap_name, json args) { return call_capability(ctx, cap_name, std::move(args)); }
  Result<json> snap(json options = json::object()) { return snapshot(ctx, options.empty() ? json::array({tab}) : json::array({tab, options})); }
  // The page engine's function `fn` with `args` (Browser::call).
  Result<json> page(const char* fn, json args = json::array()) { return ctx.browser().call(tab, fn, std::move(args), "", ctx.limits().exec_timeout); }
  Result<json> bind_page(json spec) { return page("bind", json::array({std::move(spec)})); }
  void bind(const std::string& slot, const json& el, double confidence) {
    // A field is known by its label (its name attribute is for the server); a control by its name.
    bound[slot] = {{"ref", get_str(el, "ref")}, {"name", get_str(el, "label").empty() ? get_str(el, "name") : get_str(el, "label")}, {"confidence", confidence}};
  }
  void effect(const std::string& what, bool met) { effects.push_back({{"effect", what}, {"met", met}}); }
  std::string url() {
    auto info = ctx.browser().tab_info(tab);
    return info ? info->url : "";
  }
  // Waits (up to the action timeout) until pred() holds; false when it never did.
  template <class Pred>
  bool wait_until(Pred pred, std::chrono::milliseconds within = {}) {
    auto deadline = Clock::now() + (within.count() ? within : ctx.limits().action_timeout);
    while (true) {
      if (pred()) return true;
      if (Clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(120));
    }
  }
  json result(bool ok, const std::string& error = "") {
    json out = {{"ok", ok}, {"skill", name}, {"bound", bound}, {"did", did}, {"effects", effects}, {"url", url()}};
    if (auto info = ctx.browser().tab_info(tab)) out["title"] = info->title;
    if (!error.empty()) out["error"] = error;
    return out;
  }
};

bool matches(const std::string& text, const char* pattern) {
  return std::regex_search(text, std::regex(pattern, std::regex::icase));
}

std::string label_of(const json& field) { return get_str(field, "label") + " " + get_str(field, "name") + " " + get_str(field, "placeholder"); }

bool is_user(const json& f);

// The login form of a snapshot: purpose login, else a form with a password field, else (the first
// step of a two-step sign-in) a small form asking for an e-mail or user name only.
std::optional<json> login_form(const json& snap) {
  std::optional<json> with_password, user_only;
  for (const auto& f : snap.value("forms", json::array())) {
    if (get_str(f, "purpose") == "login") return f;
    const json fields = f.value("fields", json::array());
    for (const auto& field : fields)
      if (get_str(field, "type") == "password" && !with_password) with_password = f;
    if (!user_only && get_str(f, "purpose") != "search" && fields.size() <= 2 && !fields.empty() &&
        (get_str(fields[0], "type") == "email" || get_str(fields[0], "autocomplete") == "username" || is_user(fields[0])))
      user_only = f;
  }
  return with_password ? with_password : user_only;
}

std::optional<json> field_where(const json& form, const std::function<bool(const json&)>& pred) {
  for (const auto& field : form.value("fields", json::array()))
    if (pred(field)) return field;
  return std::nullopt;
}

bool is_password(const json& f) { return get_str(f, "type") == "password"; }
bool is_user(const json& f) {
  std::string t = get_str(f, "type");
  if (t == "password" || t == "checkbox" || t == "radio" || t == "hidden" || t == "submit") return false;
  return t == "email" || matches(label_of(f), "user|e-?mail|login|account|phone|member|customer|id\\b|name");
}

Result<bool> has_password_field(Skill& s) {
  auto r = TRY(s.page("hasVisiblePassword"));
  return r.is_boolean() && r.get<bool>();
}

}  // namespace

Result<json> login(Context& ctx, const json& args) {
  Skill s{ctx, arg_string(args, 0), "login"};
  const json creds = args.size() > 1 ? args[1] : json();
  json user = creds.contains("username") ? creds["username"] : creds.contains("email") ? creds["email"] : json();
  json password = creds.contains("password") ? creds["password"] : json();
  if (password.is_null()) return make_error(Code::InvalidArgument, "login(tabId, {username, password}): password is missing (a string, or secret('name'))");
  const std::string start_url = s.url();
  auto snap = TRY(s.snap());
  auto form = login_form(snap);
  if (!form) {
    // A page with a "Sign in" link rather than the form: follow it once.
    auto link = s.bind_page({{"verb", "click"}, {"name", "sign in"}});
    if (!link || !link->value("ok", false)) link = s.bind_page({{"verb", "click"}, {"name", "log in"}});
    if (!link || !link->value("ok", false)) return s.result(false, "login: no login form on the page, and no Sign in / Log in link to one");
    const json& m = (*link)["matches"][0];
    s.bind("signInLink", m, m.value("confidence", 0.0));
    TRY(s.use("click", json::array({s.tab, get_str(m, "ref")})));
    s.did.push_back("clicked " + get_str(m, "name"));
    s.wait_until([&] {
      auto next = s.snap();
      if (next) form = login_form(*next);
      return form.has_value();
    });
    if (!form) return s.result(false, "login: followed the sign-in link, but no login form appeared");
  }
  s.bind("form", *form, 1.0);
  auto user_field = field_where(*form, is_user);
  auto pass_field = field_where(*form, is_password);
  if (user_field && !user.is_null()) {
    s.bind("username", *user_field, 0.9);
    TRY(s.use("fill", json::array({s.tab, json{{get_str(*user_field, "ref"), user}}})));
    s.did.push_back("entered the username into " + get_str(*user_field, "label"));
  }
  if (!pass_field) {
    // Two steps (the e-mail first, then the password on the next screen).
    if (form->contains("submit")) TRY(s.use("click", json::array({s.tab, get_str((*form)["submit"], "ref")})));
    else TRY(s.use("keyPress", json::array({s.tab, "Enter"})));
    s.did.push_back("submitted the username, waiting for the password field");
    s.wait_until([&] {
      auto next = s.snap();
      if (!next) return false;
      form = login_form(*next);
      pass_field = form ? field_where(*form, is_password) : std::nullopt;
      return pass_field.has_value();
    });
    if (!pass_field) return s.result(false, "login: no password field appeared after the username");
  }
  s.bind("password", *pass_field, 1.0);
  TRY(s.use("fill", json::array({s.tab, json{{get_str(*pass_field, "ref"), password}}})));
  s.did.push_back("entered the password into " + get_str(*pass_field, "label"));
  if (form->contains("submit") && !get_str((*form)["submit"], "ref").empty()) {
    s.bind("submit", (*form)["submit"], 0.9);
    TRY(s.use("click", json::array({s.tab, get_str((*form)["submit"], "ref")})));
    s.did.push_back("clicked " + get_str((*form)["submit"], "name"));
  } else {
    TRY(s.use("click", json::array({s.tab, get_str(*pass_field, "ref")})));
    TRY(s.use("keyPress", json::array({s.tab, "Enter"})));
    s.did.push_back("pressed Enter in the password field");
  }
  // Effects: the page moved on — the password field is gone, or the URL changed.
  bool moved = s.wait_until([&] {
    auto gone = has_password_field(s);
    return (gone && !*gone) || s.url() != start_url;
  });
  s.effect("the password field is gone or the page changed", moved);
  auto after = s.snap();
  bool logged_in = after && get_str(*after, "login") == "in";
  s.effect("the page shows a signed-in user", logged_in);
  return s.result(moved, moved ? "" : "login: the login form is still there — the credentials may be wrong (the page's message is in its text)");
}

Result<json> search(Context& ctx, const json& args) {
  Skill s{ctx, arg_string(args, 0), "search"};
  std::string query = arg_string(args, 1);
  if (query.empty()) return make_error(Code::InvalidArgument, "search(tabId, query): the query is empty");
  auto snap = TRY(s.snap());
  std::optional<json> field;
  std::optional<json> submit;
  for (const auto& f : snap.value("forms", json::array()))
    if (get_str(f, "purpose") == "search" && !f.value("fields", json::array()).empty()) {
      field = f["fields"][0];
      if (f.contains("submit")) submit = f["submit"];
      break;
    }
  double confidence = 1.0;
  if (!field) {
    auto r = TRY(s.bind_page({{"verb", "type"}, {"name", "search"}, {"roles", json::array({"searchbox"})}}));
    if (!r.value("ok", false)) return s.result(false, "search: no search field on the page (no search form, nothing named search)");
    field = r["matches"][0];
    confidence = field->value("confidence", 0.6);
  }
  s.bind("field", *field, confidence);
  const std::string before_url = s.url();
  auto before_text = s.page("textLength");
  TRY(s.use("fill", json::array({s.tab, json{{get_str(*field, "ref"), query}}})));
  s.did.push_back("entered " + json(query).dump() + " into " + (get_str(*field, "label").empty() ? get_str(*field, "name") : get_str(*field, "label")));
  TRY(s.use("keyPress", json::array({s.tab, "Enter"})));
  s.did.push_back("pressed Enter");
  if (submit) s.bind("submit", *submit, 0.8);
  bool changed = s.wait_until([&] {
    if (s.url() != before_url) return true;
    auto now = s.page("textLength");
    return now && before_text && *now != *before_text;
  });
  if (s.url() != before_url) (void)s.use("waitForLoad", json::array({s.tab}));
  s.effect("the page changed (results or a new address)", changed);
  auto after = s.snap();
  json out = s.result(changed, changed ? "" : "search: nothing on the page changed after the search");
  if (after)
    for (const auto& c : after->value("collections", json::array())) {
      out["results"] = {{"ref", get_str(c, "ref")}, {"name", get_str(c, "name")}, {"count", c.value("count", 0)}};
      break;
    }
  if (changed && !out.contains("results")) {
    // Too few rows for the snapshot to call them a collection: the page's repeated rows, if any.
    auto rows = s.use("extract", json::array({s.tab, json::object()}));
    if (rows && !rows->value("rows", json::array()).empty())
      out["results"] = {{"ref", get_str(*rows, "collection")}, {"name", get_str(*rows, "collection")}, {"count", rows->value("total", 0)}};
  }
  return out;
}

Result<json> fill_form(Context& ctx, const json& args) {
  Skill s{ctx, arg_string(args, 0), "fillForm"};
  const json values = args.size() > 1 ? args[1] : json();
  const json opts = args.size() > 2 && args[2].is_object() ? args[2] : json::object();
  // {label: value} or [{field, value}] (a schema's fields with their values).
  std::vector<std::pair<std::string, json>> items;
  if (values.is_object()) {
    for (auto it = values.begin(); it != values.end(); ++it) items.emplace_back(it.key(), it.value());
  } else if (values.is_array()) {
    for (const auto& v : values)
      if (v.is_object() && v.contains("field") && v["field"].is_string()) items.emplace_back(v["field"].get<std::string>(), v.value("value", json()));
  }
  if (items.empty()) return make_error(Code::InvalidArgument, "fillForm(tabId, values): values must be {label: value, …} or [{field, value}, …]");
  bool all = true;
  std::string first_error;
  for (const auto& [label, value] : items) {
    // The field by its words: a text field, a list, a box — whichever the value fits.
    std::string verb = value.is_boolean() ? "check" : "type";
    auto r = TRY(s.bind_page({{"verb", verb}, {"name", label}}));
    if (!r.value("ok", false) && !value.is_boolean()) r = TRY(s.bind_page({{"verb", "select"}, {"name", label}}));
    if (!r.value("ok", false) && value.is_string()) {
      // A group of radio buttons named by the label: the value is the choice.
      auto c = TRY(s.page("choose", json::array({value.get<std::string>()})));
      if (c.value("ok", false)) r = json{{"ok", true}, {"matches", json::array({c})}};
    }
    if (!r.value("ok", false)) {
      all = false;
      std::string why = get_str(r, "reason") == "ambiguous" ? "several fields match" : "no field matches";
      s.effect(label + " filled", false);
      if (first_error.empty()) first_error = "fillForm: " + why + " '" + label + "'";
      continue;
    }
    const json& m = r["matches"][0];
    s.bind(label, m, m.value("confidence", 0.0));
    std::string ref = get_str(m, "ref");
    auto filled = s.use("fill", json::array({s.tab, json{{ref, value}}}));
    if (!filled) {
      all = false;
      s.effect(label + " filled", false);
      if (first_error.empty()) first_error = "fillForm: " + label + ": " + filled.error().message;
      continue;
    }
    auto st = TRY(s.page("state", json::array({ref})));
    bool holds = value.is_boolean() ? st.value("checked", false) == value.get<bool>()
                 : st.contains("selected") ? !st["selected"].empty()
                 : st.contains("value") ? ((value.is_object() && value.contains("__ouroSecret")) || get_str(st, "value") == value.get<std::string>() || get_str(st, "value").rfind("(", 0) == 0)
                 : st.value("checked", false);
    s.effect(label + " holds its value", holds);
    all = all && holds;
    s.did.push_back("filled " + label);
  }
  if (opts.value("submit", false) && all) {
    auto sub = TRY(s.page("submitFor", json::array({s.bound.empty() ? "" : get_str(s.bound.begin().value(), "ref")})));
    if (sub.is_object() && sub["ref"].is_string()) {
      TRY(s.use("click", json::array({s.tab, sub["ref"]})));
      s.did.push_back("clicked " + get_str(sub, "name"));
    } else {
      TRY(s.use("keyPress", json::array({s.tab, "Enter"})));
      s.did.push_back("pressed Enter");
    }
  }
  return s.result(all, first_error);
}

Result<json> paginate(Context& ctx, const json& args) {
  Skill s{ctx, arg_string(args, 0), "paginate"};
  const json opts = args.size() > 1 && args[1].is_object() ? args[1] : json::object();
  int max_pages = opts.contains("maxPages") && opts["maxPages"].is_number_integer() ? std::clamp(opts["maxPages"].get<int>(), 1, 50) : 5;
  json ex_opts = json::object();
  for (const char* k : {"collection", "fields", "text", "limit"})
    if (opts.contains(k)) ex_opts[k] = opts[k];
  json rows = json::array();
  std::set<std::string> seen;
  std::string stopped = "maxPages reached";
  int pages = 0;
  std::string last_first;
  for (; pages < max_pages;) {
    auto ex = TRY(s.use("extract", json::array({s.tab, ex_opts})));
    ++pages;
    size_t added = 0;
    std::string first;
    for (auto row : ex.value("rows", json::array())) {
      if (row.is_object()) row.erase("ref");  // refs differ from page to page; the content is the row
      std::string key = row.dump();
      if (first.empty()) first = key;
      if (seen.insert(key).second && rows.size() < 20000) {
        rows.push_back(row);
        ++added;
      }
    }
    if (pages == 1) s.bind("collection", json{{"ref", get_str(ex, "collection")}, {"name", get_str(ex, "collection")}}, 1.0);
    s.did.push_back(fmt::format("page {}: {} rows ({} new)", pages, ex.value("rows", json::array()).size(), added));
    if (added == 0 && pages > 1) {
      stopped = "the next page had no new rows";
      break;
    }
    if (pages >= max_pages) break;
    // The next-page control.
    auto nav = TRY(s.snap(json{{"kind", "next"}}));
    std::optional<json> next;
    for (const auto& a : nav.value("actions", json::array()))
      if (get_str(a, "kind") == "next" || get_str(a, "kind") == "load-more") {
        next = a;
        break;
      }
    if (!next) {
      stopped = "no next-page control";
      break;
    }
    if (pages == 1) s.bind("next", *next, 0.9);
    const std::string before_url = s.url();
    TRY(s.use("click", json::array({s.tab, get_str(*next, "ref")})));
    last_first = first;
    // The page turned: a new address, or the rows changed in place.
    bool turned = s.wait_until([&] {
      if (s.url() != before_url) return true;
      auto again = s.use("extract", json::array({s.tab, ex_opts}));
      if (!again) return false;
      const json& r = again->value("rows", json::array());
      if (r.empty()) return false;
      json row = r[0];
      if (row.is_object()) row.erase("ref");
      return row.dump() != last_first || r.size() != ex.value("rows", json::array()).size();
    });
    if (s.url() != before_url) (void)s.use("waitForLoad", json::array({s.tab}));
    if (!turned) {
      stopped = "clicking next changed nothing";
      break;
    }
  }
  s.effect("rows collected from " + std::to_string(pages) + " pages", !rows.empty());
  json out = s.result(!rows.empty(), rows.empty() ? "paginate: no rows found" : "");
  out["rows"] = std::move(rows);
  out["pages"] = pages;
  out["stoppedBecause"] = stopped;
  return out;
}

Result<json> navigate_by_menu(Context& ctx, const json& args) {
  Skill s{ctx, arg_string(args, 0), "navigateByMenu"};
  std::vector<std::string> path;
  const json p = args.size() > 1 ? args[1] : json();
  if (p.is_string()) {
    std::string all = p.get<std::string>();
    for (size_t at = 0; at <= all.size();) {
      size_t end = all.find_first_of(">/›»", at);
      std::string part = commands::trim(all.substr(at, end == std::string::npos ? std::string::npos : end - at));
      if (!part.empty()) path.push_back(part);
      if (end == std::string::npos) break;
      at = end + 1;
      while (at < all.size() && (static_cast<unsigned char>(all[at]) & 0xC0) == 0x80) ++at;  // the rest of a multi-byte separator
    }
  } else if (p.is_array()) {
    for (const auto& x : p)
      if (x.is_string() && !x.get<std::string>().empty()) path.push_back(x.get<std::string>());
  }
  if (path.empty() || path.size() > 8)
    return make_error(Code::InvalidArgument, "navigateByMenu(tabId, path): a path of 1 to 8 menu items, 'Products > Laptops' or ['Products', 'Laptops']");
  const std::string start_url = s.url();
  for (size_t i = 0; i < path.size(); ++i) {
    const std::string& item = path[i];
    const bool last = i + 1 == path.size();
    json spec = {{"verb", "click"}, {"name", item}};
    json r;
    bool found = s.wait_until([&] {
      auto b = s.bind_page(spec);
      if (!b) return false;
      r = *b;
      return r.value("ok", false) || get_str(r, "reason") == "ambiguous";
    });
    if (!found && get_str(r, "reason") == "hidden" && r.contains("reveal") && r["reveal"].is_string()) {
      TRY(s.use("click", json::array({s.tab, r["reveal"]})));
      auto b = TRY(s.bind_page(spec));
      r = b;
      found = r.value("ok", false);
    }
    if (!r.value("ok", false))
      return s.result(false, fmt::format("navigateByMenu: '{}' ({} of {}) is {}", item, i + 1, path.size(),
                                         get_str(r, "reason") == "ambiguous" ? "ambiguous on the page" : "not on the page"));
    const json& m = r["matches"][0];
    s.bind(item, m, m.value("confidence", 0.0));
    std::string ref = get_str(m, "ref");
    if (!last) {
      // A menu that opens on hover shows the next item without a click (a click could leave the page).
      TRY(s.use("hover", json::array({s.tab, ref})));
      auto next = s.bind_page({{"verb", "click"}, {"name", path[i + 1]}});
      if (next && next->value("ok", false)) {
        s.did.push_back("hovered " + item);
        continue;
      }
    }
    const std::string before = s.url();
    TRY(s.use("click", json::array({s.tab, ref})));
    s.did.push_back("clicked " + item);
    if (last) s.wait_until([&] { return s.url() != before; }, std::chrono::milliseconds(1500));
    if (s.url() != before) TRY(s.use("waitForLoad", json::array({s.tab})));
  }
  bool moved = s.url() != start_url;
  s.effect("the page changed to the menu item's", moved);
  return s.result(true);
}

}  // namespace ouro::actions::impl
