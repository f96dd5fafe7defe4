// act(): the command language run without a model (docs/guides/without-a-model.md). The
// text is read by commands/sentence (a command per line, or plain sentences turned into commands
// by the request parser and planner); each command's target is bound on the page by the binder
// (browser/page/binding.js) — never below its confidence threshold — and carried out through the
// registry's own capabilities (their permissions and the safety gate included). Each step checks
// its effect (the text is in the field, the box is checked, the option selected), and the result
// says what each step did, which success criteria hold, and where the page is now.
#include "actions/impl.h"
#include "base/steady_clock.h"

#include "actions/action_cache.h"

#include "base/text.h"
#include "browser/browser.h"
#include "commands/sentence.h"
#include "commands/words.h"

#include <optional>
#include <set>
#include <thread>

namespace ouro::actions::impl {

namespace {

using commands::Command;
using commands::Target;
using commands::Verb;
using Clock = ouro::SteadyClock;

struct Run {
  Context& ctx;
  std::string tab;
  Clock::time_point deadline;          // of the current step
  std::string last_field;              // the ref typed into last (submit, type without a target)
  std::chrono::milliseconds step_timeout;
  std::string instruction;             // the request: its own text shown on the page is never a target
  bool form_filled = false;            // a search went into a form's own fields: Enter means its submit control
};

// A capability through the registry: its permission, then its implementation.
Result<json> use(Run& run, const char* name, json args) { return call_capability(run.ctx, name, std::move(args)); }

std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

std::string describe(const json& m) {
  std::string role = get_str(m, "role"), name = get_str(m, "name");
  return (role.empty() ? std::string("element") : role) + (name.empty() ? "" : " " + in_quotes(name)) + " (" + get_str(m, "ref") + ")";
}

std::string list_candidates(const json& cands) {
  std::string out;
  if (!cands.is_array()) return out;
  for (const auto& c : cands) {
    if (!out.empty()) out += ", ";
    out += get_str(c, "ref") + " " + get_str(c, "role") + " " + in_quotes(get_str(c, "name"));
    if (std::string item = get_str(c, "item"); !item.empty()) out += " of " + in_quotes(item);
    if (c.contains("score") && c["score"].is_number() && c["score"].get<double>() > 0) out += fmt::format(" ({:.2f})", c["score"].get<double>());
  }
  return out;
}

const char* verb_key(Verb v) {
  switch (v) {
    case Verb::Type: return "type";
    case Verb::Clear: return "clear";
    case Verb::Check: return "check";
    case Verb::Uncheck: return "uncheck";
    case Verb::Select: return "select";
    case Verb::Focus: return "focus";
    case Verb::Expand: return "expand";
    case Verb::Collapse: return "collapse";
    case Verb::Hover: return "hover";
    case Verb::Wait: case Verb::ScrollTo: case Verb::Extract: return "any";
    default: return "click";
  }
}

struct Bound {
  json matches = json::array();  // [{ref, role, name, confidence, how}]
  std::string revealed;          // what was clicked to show a hidden target
};

// The page engine's function `fn` with `args`, in the run's tab (Browser::call).
Result<json> page(Run& run, const char* fn, json args = json::array()) {
  return run.ctx.browser().call(run.tab, fn, std::move(args), "", run.ctx.limits().exec_timeout);
}

// One binding's use of the action cache (actions/action_cache.h): the kept resolutions of the
// target's words on the tab's site, and, from the page's answer, a hit (counted, marked used), a
// kept one that failed (dropped), or a fresh binding to keep. Counted once, as a hit or a miss.
// Failures of the cache itself never fail the command: it binds as if there were none.
class CacheUse {
 public:
  CacheUse(Run& run, const Target& t, const std::string& verb) : m_run(run) {
    if (!run.ctx.db()) return;
    m_key = action_cache_key(verb, t);
    if (m_key.empty()) return;
    auto info = run.ctx.browser().tab_info(run.tab);
    if (!info) return;
    m_site = action_cache_site(info->url);
    if (m_site.empty()) return;
    m_cache.emplace(*run.ctx.db());
  }
  ~CacheUse() {
    if (!on()) return;
    if (m_hit) ++m_run.ctx.action_cache().hits;
    else ++m_run.ctx.action_cache().misses;
  }
  bool on() const { return m_cache.has_value(); }
  json kept() {
    json out = json::array();
    if (auto list = m_cache->lookup(m_site, m_key))
      for (const auto& e : *list) out.push_back(e.to_json());
    return out;
  }
  void heard(const json& r) {
    if (r.contains("dropped") && r["dropped"].is_string()) (void)m_cache->drop(m_site, m_key, r["dropped"].get<std::string>());
    std::string shape = get_str(r, "shape");
    if (r.value("cached", false)) {
      m_hit = true;
      (void)m_cache->touch(m_site, m_key, shape);
    } else if (r.value("ok", false) && r.contains("keep") && r["keep"].is_object() && !shape.empty()) {
      const json& k = r["keep"];
      ActionCache::Entry e{shape, get_str(k, "selector"), get_str(k, "role"), get_str(k, "name"), k.value("confidence", 0.0)};
      (void)m_cache->put(m_site, m_key, e);
    }
  }

 private:
  Run& m_run;
  std::string m_key, m_site;
  std::optional<ActionCache> m_cache;
  bool m_hit = false;
};

// Binds a target on the page: refs and selectors as written; words through the binder, waiting
// (until the step's deadline) for a target that is not there yet, and showing one that is hidden
// in a closed tab panel or section by clicking what reveals it.
Result<Bound> bind_target(Run& run, const Target& t, Verb verb, const std::string& what, const std::string& verb_override = "") {
  Bound b;
  if (t.kind == Target::Kind::Ref || t.kind == Target::Kind::Selector) {
    b.matches.push_back({{"ref", t.text}, {"confidence", 1.0}, {"how", "as written"}});
    return b;
  }
  json spec = {{"verb", verb_key(verb)}, {"name", t.name}, {"exact", t.exact}, {"roles", t.roles}, {"ordinal", t.ordinal}, {"all", t.all}};
  if (!run.instruction.empty()) spec["instruction"] = run.instruction;
  if (!verb_override.empty()) spec["verb"] = verb_override;
  if (!t.within.empty()) spec["within"] = t.within;
  if (!t.near.empty()) spec["near"] = t.near;
  // The action cache: a resolution of these words kept on this site, for a page of this shape, is
  // tried before ranking; a fresh single binding is kept.
  CacheUse cache(run, t, spec["verb"].get<std::string>());
  if (cache.on()) {
    spec["kept"] = cache.kept();
    spec["keep"] = true;
  }
  const char* binder = cache.on() ? "bindKept" : "bind";
  int reveals = 0;
  while (true) {
    auto r = TRY(page(run, binder, json::array({spec})));
    if (!r.is_object()) return errorf(Code::Internal, "{}: the page's binder gave no answer (the page may block scripts)", what);
    if (cache.on()) {
      cache.heard(r);
      spec.erase("kept");  // tried once: a dropped one is not tried again, and a kept one is in the answer
    }
    if (r.value("ok", false)) {
      b.matches = r["matches"];
      return b;
    }
    std::string reason = get_str(r, "reason");
    if (reason == "ambiguous")
      return errorf(Code::FailedPrecondition, "{}: '{}' matches several elements about equally: {}; name one by its ref (e.g. {} {}) or add words",
                    what, t.text, list_candidates(r["candidates"]), commands::verb_name(verb), r["candidates"].empty() ? "e1" : get_str(r["candidates"][0], "ref"));
    if (reason == "hidden" && reveals < 2 && r.contains("reveal") && r["reveal"].is_string()) {
      std::string rv = r["reveal"].get<std::string>();
      TRY(use(run, "click", json::array({run.tab, rv})));
      b.revealed = rv;
      ++reveals;
      continue;
    }
    if (Clock::now() >= run.deadline && spec.contains("near") && reason == "none") {
      // "delete the filter": no "delete" beside the word filter, but maybe a "Delete filter" control.
      spec["name"] = t.name + " " + t.near;
      spec.erase("near");
      run.deadline = Clock::now() + std::chrono::milliseconds(300);
      continue;
    }
    if (Clock::now() >= run.deadline) {
      std::string near = list_candidates(r.value("candidates", json::array()));
      std::string msg = r.contains("message") && r["message"].is_string() ? " (" + r["message"].get<std::string>() + ")" : "";
      if (reason == "hidden")
        return errorf(Code::NotFound, "{}: '{}' is on the page but hidden{}, and nothing shows it; {}", what, t.text, msg, near.empty() ? "" : "it is " + near);
      return errorf(Code::NotFound, "{}: nothing on tab {} matches '{}' well enough{}{}; take a snapshot() or name it by ref", what, run.tab, t.text, msg,
                    near.empty() ? "" : (near.find(" (0.") == std::string::npos && near.find(" (1.") == std::string::npos ? " — there are: " : " — closest: ") + near);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
  }
}

Result<json> state(Run& run, const std::string& ref) { return page(run, "state", json::array({ref})); }

json text_value(const Command& c) { return c.secret.empty() ? json(c.text) : json{{"__ouroSecret", c.secret}}; }

// The field a type/submit without a target means: the focused one, else the page's only text field.
Result<std::string> focused_field(Run& run) {
  auto r = TRY(page(run, "focusedEditable"));
  if (r.is_string()) return r.get<std::string>();
  Target t;
  t.kind = Target::Kind::Words;
  t.text = "the text field";
  t.roles = {"textbox"};
  auto b = TRY(bind_target(run, t, Verb::Type, "type"));
  return get_str(b.matches[0], "ref");
}

bool is_date_kind(const std::string& type) { return type == "date" || type == "time" || type == "datetime-local" || type == "month" || type == "week"; }

Result<json> do_select(Run& run, const Command& c, json& step);

// "Search for comedy movies directed by Lucas from year 1994" on a form with Genre, Director and
// Year fields: each part into its field — only when every one of them is on the page, each its own.
std::optional<json> fill_facets(Run& run, const Command& c) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::set<std::string> refs;
  for (const auto& f : c.fields) {
    auto eq = f.find('=');
    if (eq == std::string::npos) return std::nullopt;
    Target t;
    t.kind = Target::Kind::Words;
    t.text = t.name = f.substr(0, eq);
    t.roles = {"textbox"};
    json spec = {{"verb", "type"}, {"name", t.name}, {"exact", false}, {"roles", t.roles}, {"ordinal", 0}, {"all", false}, {"instruction", run.instruction}};
    auto r = page(run, "bind", json::array({spec}));
    if (!r || !r->is_object() || !r->value("ok", false) || (*r)["matches"].empty()) return std::nullopt;
    const json& m = (*r)["matches"][0];
    if (m.value("confidence", 0.0) < 0.8 || !refs.insert(get_str(m, "ref")).second) return std::nullopt;
    pairs.emplace_back(get_str(m, "ref"), f.substr(eq + 1));
  }
  std::string did;
  for (const auto& [ref, value] : pairs) {
    auto before = state(run, ref);
    if (before && before->is_object() && !get_str(*before, "value").empty()) {
      if (!use(run, "fill", json::array({run.tab, json{{ref, ""}}}))) return std::nullopt;
    }
    if (!use(run, "type", json::array({run.tab, ref, value}))) return std::nullopt;
    did += (did.empty() ? "typed " : ", ") + in_quotes(value) + " into " + ref;
    run.last_field = ref;
  }
  run.form_filled = true;
  return json(did + " (the search's parts, each into its own field)");
}

Result<json> do_type(Run& run, const Command& c, json& step) {
  if (!c.fields.empty() && c.secret.empty())
    if (auto done = fill_facets(run, c)) return *done;
  json refs = json::array();
  if (c.target.empty()) {
    refs.push_back({{"ref", TRY(focused_field(run))}, {"how", "focused field"}});
  } else {
    auto b = TRY(bind_target(run, c.target, Verb::Type, "type", c.or_select ? "set" : ""));
    refs = b.matches;
  }
  if (c.or_select && refs.size() == 1) {
    // "Set Language to French": a list takes the text as its option.
    auto st = state(run, get_str(refs[0], "ref"));
    if (st && st->is_object() && (get_str(*st, "tag") == "select" || get_str(*st, "role") == "listbox" || get_str(*st, "role") == "combobox" ||
                                  get_str(*st, "role") == "button")) {
      if (get_str(*st, "tag") != "input" && get_str(*st, "tag") != "textarea") {
        Command sel = c;
        sel.verb = Verb::Select;
        Target t;
        t.kind = Target::Kind::Ref;
        t.text = get_str(refs[0], "ref");
        sel.target = t;
        return do_select(run, sel, step);
      }
    }
  }
  std::string did;
  for (const auto& m : refs) {
    std::string ref = get_str(m, "ref");
    auto before = state(run, ref);
    if (c.secret.empty() && before && before->is_object() && is_date_kind(get_str(*before, "type"))) {
      // A date/time picker takes what it holds in its own format, whatever the locale shows: set it.
      const Capability* fill_cap = find("fill");
      if (fill_cap) TRY(permit(run.ctx, *fill_cap, json::array({run.tab, json{{ref, c.text}}})));
      auto r = TRY(page(run, "setDate", json::array({ref, c.text})));
      if (!r.is_object() || !r.value("ok", false))
        return errorf(Code::InvalidArgument, "type: {} is a {} field and '{}' is not a {} it takes ({}); write it like {}", describe(m),
                      get_str(*before, "type"), c.text, get_str(*before, "type"), get_str(r, "reason"), get_str(r, "example"));
      run.last_field = ref;
      did += (did.empty() ? "" : "; ") + std::string("set ") + describe(m) + " to " + get_str(r, "value");
      continue;
    }
    if (before && before->is_object() && !get_str(*before, "value").empty()) TRY(use(run, "fill", json::array({run.tab, json{{ref, ""}}})));
    TRY(use(run, "type", json::array({run.tab, ref, text_value(c)})));
    // Effect: the field holds the text (a secret or a password field: its length).
    auto after = TRY(state(run, ref));
    std::string value = get_str(after, "value");
    if (c.secret.empty() && value != c.text && get_str(after, "role") == "spinbutton") {
      // A spinner that eats keys (it steps on arrows only): set its value as a person's paste would.
      TRY(use(run, "fill", json::array({run.tab, json{{ref, c.text}}})));
      after = TRY(state(run, ref));
      value = get_str(after, "value");
    }
    if (c.secret.empty() && !value.empty() && value[0] != '(' && value != c.text) {
      // Fields that reformat (dates, masks, max length) keep what they accept; say what it holds.
      step["note"] = "the field now holds " + in_quotes(value.substr(0, 80));
    }
    run.last_field = ref;
    // What went into a password field is not repeated in the result.
    bool hidden = before && before->is_object() && get_str(*before, "type") == "password";
    std::string what = !c.secret.empty() ? "secret " + c.secret : hidden ? fmt::format("{} characters", c.text.size()) : in_quotes(c.text);
    if (hidden) step.erase("note");
    did += (did.empty() ? "" : "; ") + std::string("typed ") + what + " into " + (m.contains("role") ? describe(m) : ref);
  }
  step["target"] = refs.size() == 1 ? refs[0] : refs;
  return json(did);
}

Result<json> set_checked(Run& run, const std::string& ref, bool want, const json& m) {
  auto s = TRY(state(run, ref));
  bool now = s.contains("checked") && s["checked"].is_boolean() && s["checked"].get<bool>();
  if (now == want) return json((want ? "already checked: " : "already unchecked: ") + describe(m));
  TRY(use(run, "click", json::array({run.tab, ref})));
  auto after = TRY(state(run, ref));
  bool is = after.contains("checked") && after["checked"].is_boolean() && after["checked"].get<bool>();
  if (is != want)
    return errorf(Code::FailedPrecondition, "{} {}: clicking it did not {} it (the page may not let it change)", want ? "check" : "uncheck", describe(m),
                  want ? "check" : "uncheck");
  return json((want ? "checked " : "unchecked ") + describe(m));
}

Result<json> do_choose(Run& run, const Command& c, json& step) {
  auto r = TRY(page(run, "choose", json::array({c.text})));
  auto deadline = run.deadline;
  while (r.is_object() && !r.value("ok", false) && get_str(r, "reason") == "none" && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    r = TRY(page(run, "choose", json::array({c.text})));
  }
  if (!r.is_object() || !r.value("ok", false)) {
    if (get_str(r, "reason") == "ambiguous")
      return errorf(Code::FailedPrecondition, "choose: {} is offered in several places about equally: {}; say where (select \"{}\" from TARGET)",
                    in_quotes(c.text), list_candidates(r["candidates"]), c.text);
    return errorf(Code::NotFound, "choose: nothing on tab {} offers {} (no option, checkbox, radio button or item by that name){}", run.tab,
                  in_quotes(c.text), r.is_object() && !r.value("candidates", json::array()).empty() ? " — closest: " + list_candidates(r["candidates"]) : "");
  }
  step["target"] = {{"ref", r["ref"]}, {"role", r["role"]}, {"name", r["name"]}, {"confidence", r["confidence"]}, {"how", r["how"]}};
  std::string kind = get_str(r, "kind"), ref = get_str(r, "ref");
  if (kind == "option") {
    auto sel = TRY(use(run, "select", json::array({run.tab, ref, get_str(r, "option")})));
    return json("selected " + in_quotes(get_str(r, "option")) + " in " + describe(r));
  }
  if (kind == "control") {
    if (get_str(r, "role") == "radio" || get_str(r, "role") == "checkbox" || get_str(r, "role") == "switch") return set_checked(run, ref, true, r);
  }
  TRY(use(run, "click", json::array({run.tab, ref})));
  return json("clicked " + describe(r));
}

Result<json> do_select(Run& run, const Command& c, json& step) {
  if (c.target.empty()) return do_choose(run, c, step);
  auto b = bind_target(run, c.target, Verb::Select, "select");
  if (!b) {
    // "from the list" on a page whose list is not a <select>: the value's own control.
    if (c.target.kind == Target::Kind::Words && c.target.name.empty() && b.error().code == Code::NotFound) return do_choose(run, c, step);
    return tl::make_unexpected(b.error());
  }
  const json& m = b->matches[0];
  std::string ref = get_str(m, "ref");
  step["target"] = m;
  json value = c.text;
  if (c.fields.size() > 1) value = c.fields;  // several options of one (multiple) list
  if (c.text.size() > 1 && c.text[0] == '#') {
    // "the third option": the option at that place.
    int n = std::atoi(c.text.c_str() + 1);
    auto label = TRY(page(run, "optionLabel", json::array({ref, n})));
    if (!label.is_string()) return errorf(Code::NotFound, "select: {} has no option {}", describe(m), n);
    value = label;
  }
  auto r = use(run, "select", json::array({run.tab, ref, value}));
  if (!r && value.is_array()) return tl::make_unexpected(r.error());
  if (!r) {
    // A list that is not a <select> (role=listbox): pick the item inside it.
    auto inside = TRY(page(run, "choose", json::array({value.get<std::string>(), json{{"within", ref}}})));
    if (!inside.is_object() || !inside.value("ok", false)) {
      // A button that opens its list: open it, then pick the item in the list it shows.
      auto st = TRY(state(run, ref));
      if (get_str(st, "tag") != "select" && get_str(st, "tag") != "input" && (get_str(st, "role") == "button" || get_str(st, "role") == "combobox")) {
        TRY(use(run, "click", json::array({run.tab, ref})));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        auto list = TRY(page(run, "openedList", json::array({ref})));
        if (list.is_string())
          inside = TRY(page(run, "choose", json::array({value.get<std::string>(), json{{"within", list.get<std::string>()}}})));
      }
    }
    if (!inside.is_object() || !inside.value("ok", false)) return tl::make_unexpected(r.error());
    TRY(use(run, "click", json::array({run.tab, get_str(inside, "ref")})));
    return json("clicked " + describe(inside) + " in " + describe(m));
  }
  return json("selected " + (value.is_array() ? value.dump() : in_quotes(value.get<std::string>())) + " in " + describe(m));
}

// use the page's NAME tool with INPUT: a quoted text goes to the tool's one text parameter (its
// only required one, else its only one).
Result<json> use_page_tool(Run& run, const Command& c, json& step) {
  json input = c.input.is_null() ? json::object() : c.input;
  if (input.is_string()) {
    json tools = TRY(use(run, "tools", json::array({run.tab})));
    json schema;
    for (const auto& t : tools)
      if (get_str(t, "name") == c.text) schema = t.value("inputSchema", json::object());
    std::vector<std::string> text_params, required;
    for (auto it = get_field(schema, "properties").begin(); schema.contains("properties") && it != schema["properties"].end(); ++it)
      if (get_str(it.value(), "type").empty() || get_str(it.value(), "type") == "string") text_params.push_back(it.key());
    for (const auto& r : get_array(schema, "required"))
      if (r.is_string() && std::find(text_params.begin(), text_params.end(), r.get<std::string>()) != text_params.end()) required.push_back(r);
    const auto& pick = required.size() == 1 ? required : text_params;
    if (pick.size() != 1)
      return errorf(Code::InvalidArgument, "use: the page's {} tool takes {} text parameters; name it: with name=\"…\" (its parameters: {})", c.text,
                    pick.size(), schema.contains("properties") ? dump_json(schema["properties"]).substr(0, 300) : std::string("none"));
    input = json{{pick[0], input.get<std::string>()}};
  }
  json output = TRY(use(run, "callTool", json::array({run.tab, c.text, input})));
  step["data"] = output;
  return json("the page's " + c.text + " tool answered");
}

Result<json> do_submit(Run& run, const Command& c, json& step) {
  std::string near = run.last_field;
  if (!c.target.empty()) {
    auto b = TRY(bind_target(run, c.target, Verb::Click, "submit"));
    near = get_str(b.matches[0], "ref");
  }
  auto s = TRY(page(run, "submitFor", json::array({near.empty() ? json(nullptr) : json(near)})));
  if (s.is_object() && s["ref"].is_string()) {
    std::string ref = s["ref"].get<std::string>();
    step["target"] = {{"ref", ref}, {"role", "button"}, {"name", get_str(s, "name")}};
    TRY(use(run, "click", json::array({run.tab, ref})));
    return json("clicked the form's " + in_quotes(get_str(s, "name")) + " (" + ref + ")");
  }
  if (near.empty()) near = TRY(focused_field(run));
  TRY(use(run, "click", json::array({run.tab, near})));
  TRY(use(run, "keyPress", json::array({run.tab, "Enter"})));
  return json("pressed Enter in " + near + " (the form has no submit button)");
}

// The tab's history as the browser keeps it, once it has caught up with the page: a same-document
// navigation the last step made (a fragment link, pushState) is the page's at once but enters the
// browser's list a moment later, and stepping from the list before then would skip it. Waits up
// to 2 s for the current entry to be the page's own address (location.href, which no page script
// can redefine).
Result<json> settled_history(Run& run) {
  std::string here;
  if (auto v = run.ctx.browser().send(run.tab, "Runtime.evaluate", {{"expression", "location.href"}, {"returnByValue", true}},
                                      run.ctx.limits().exec_timeout))
    here = get_str(get_field(*v, "result"), "value");
  const auto until = Clock::now() + std::chrono::seconds(2);
  while (true) {
    auto h = TRY(run.ctx.browser().send(run.tab, "Page.getNavigationHistory", json::object(), run.ctx.limits().exec_timeout));
    const json& entries = get_field(h, "entries");
    const int current = get_int(h, "currentIndex");
    const bool caught_up = here.empty() || (entries.is_array() && current >= 0 && current < static_cast<int>(entries.size()) &&
                                            get_str(entries[static_cast<size_t>(current)], "url") == here);
    if (caught_up || Clock::now() >= until) return h;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Result<json> history_step(Run& run, int delta) {
  auto h = TRY(settled_history(run));
  int index = h.value("currentIndex", 0) + delta;
  if (!h.contains("entries") || index < 0 || index >= static_cast<int>(h["entries"].size()))
    return errorf(Code::FailedPrecondition, "{}: tab {} has no page to go {} to", delta < 0 ? "back" : "forward", run.tab, delta < 0 ? "back" : "forward");
  std::string url = get_str(h["entries"][static_cast<size_t>(index)], "url");
  TRY(run.ctx.browser().send(run.tab, "Page.navigateToHistoryEntry", {{"entryId", h["entries"][static_cast<size_t>(index)]["id"]}}, run.ctx.limits().exec_timeout));
  for (int i = 0; i < 50; ++i) {
    auto info = run.ctx.browser().tab_info(run.tab);
    if (info && info->url == url) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  TRY(use(run, "waitForLoad", json::array({run.tab})));
  return json(std::string(delta < 0 ? "went back to " : "went forward to ") + url);
}

Result<json> run_step(Run& run, const Command& c, json& step) {
  switch (c.verb) {
    case Verb::Navigate: {
      std::string url = c.text;
      if (url.find("://") == std::string::npos && url.rfind("about:", 0) != 0 && url.rfind("data:", 0) != 0) url = "https://" + url;
      auto info = TRY(use(run, "navigate", json::array({run.tab, url})));
      return json("loaded " + get_str(info, "url"));
    }
    case Verb::Back: return history_step(run, -1);
    case Verb::Forward: return history_step(run, 1);
    case Verb::Reload: {
      TRY(run.ctx.browser().send(run.tab, "Page.reload", json::object(), run.ctx.limits().exec_timeout));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      TRY(use(run, "waitForLoad", json::array({run.tab})));
      return json("reloaded");
    }
    case Verb::Click: case Verb::DoubleClick: case Verb::Hover: case Verb::Focus: {
      auto b = TRY(bind_target(run, c.target, c.verb, std::string(commands::verb_name(c.verb))));
      std::string did;
      for (const auto& m : b.matches) {
        std::string ref = get_str(m, "ref");
        // Into view inside its own scrolling box too (a feed or a list that scrolls by itself).
        (void)page(run, "scrollToRef", json::array({ref, "nearest"}));
        if (c.verb == Verb::Hover) TRY(use(run, "hover", json::array({run.tab, ref})));
        else if (c.verb == Verb::DoubleClick) TRY(use(run, "click", json::array({run.tab, ref, json{{"double", true}}})));
        else TRY(use(run, "click", json::array({run.tab, ref})));
        if (c.verb == Verb::Focus) run.last_field = ref;
        did += (did.empty() ? "" : "; ") + std::string(c.verb == Verb::Hover ? "hovered over " : c.verb == Verb::Focus ? "focused " : "clicked ") +
               (m.contains("role") ? describe(m) : ref);
        if (!c.target.all) break;
      }
      step["target"] = b.matches.size() == 1 ? b.matches[0] : b.matches;
      if (!b.revealed.empty()) did = "showed it by clicking " + b.revealed + ", then " + did;
      return json(did);
    }
    case Verb::Expand: case Verb::Collapse: {
      auto b = TRY(bind_target(run, c.target, c.verb, std::string(commands::verb_name(c.verb))));
      const json& m = b.matches[0];
      step["target"] = m;
      TRY(use(run, "click", json::array({run.tab, get_str(m, "ref")})));
      return json(std::string(c.verb == Verb::Expand ? "expanded " : "collapsed ") + describe(m));
    }
    case Verb::Type: return do_type(run, c, step);
    case Verb::Clear: {
      auto b = TRY(bind_target(run, c.target, Verb::Clear, "clear"));
      const json& m = b.matches[0];
      step["target"] = m;
      TRY(use(run, "fill", json::array({run.tab, json{{get_str(m, "ref"), ""}}})));
      return json("cleared " + describe(m));
    }
    case Verb::Select: return do_select(run, c, step);
    case Verb::Choose: return do_choose(run, c, step);
    case Verb::Check: case Verb::Uncheck: {
      auto bound = bind_target(run, c.target, c.verb, std::string(commands::verb_name(c.verb)));
      if (!bound && c.or_click && bound.error().code == Code::NotFound) {
        // "accept the terms" on a page with an Accept button rather than a box.
        Command click = c;
        click.verb = Verb::Click;
        click.target = commands::parse_target(c.text);
        return run_step(run, click, step);
      }
      auto b = TRY(std::move(bound));
      std::string did;
      for (const auto& m : b.matches) did += (did.empty() ? "" : "; ") + TRY(set_checked(run, get_str(m, "ref"), c.verb == Verb::Check, m)).get<std::string>();
      step["target"] = b.matches.size() == 1 ? b.matches[0] : b.matches;
      return json(did);
    }
    case Verb::Press: {
      if (run.form_filled && c.text == "Enter") {
        // The form's own submit control (a styled div as often as a button).
        run.form_filled = false;
        for (const char* name : {"search", "submit", "go", "find"}) {
          Target t;
          t.kind = Target::Kind::Words;
          t.text = t.name = name;
          json spec = {{"verb", "click"}, {"name", name}, {"exact", false}, {"roles", json::array()}, {"ordinal", 0}, {"all", false}, {"instruction", run.instruction}};
          auto r = TRY(page(run, "bind", json::array({spec})));
          if (r.is_object() && r.value("ok", false) && !r["matches"].empty() && r["matches"][0].value("confidence", 0.0) >= 0.85) {
            std::string ref = get_str(r["matches"][0], "ref");
            TRY(use(run, "click", json::array({run.tab, ref})));
            step["target"] = r["matches"][0];
            return json("clicked " + describe(r["matches"][0]) + " to send the form");
          }
        }
      }
      std::string key = c.text;
      json mods = json::array();
      for (size_t p; (p = key.find('+')) != std::string::npos && key.size() > 1;) {
        mods.push_back(key.substr(0, p));
        key = key.substr(p + 1);
      }
      TRY(use(run, "keyPress", mods.empty() ? json::array({run.tab, key}) : json::array({run.tab, key, mods})));
      return json("pressed " + c.text);
    }
    case Verb::Scroll: {
      auto s = TRY(use(run, "scroll", c.amount > 0 ? json::array({run.tab, c.direction, c.amount}) : json::array({run.tab, c.direction})));
      step["data"] = s;
      return json("scrolled " + c.direction);
    }
    case Verb::ScrollTo: {
      auto b = TRY(bind_target(run, c.target, Verb::ScrollTo, "scroll to"));
      const json& m = b.matches[0];
      step["target"] = m;
      TRY(page(run, "scrollToRef", json::array({get_str(m, "ref"), "center"})));
      return json("scrolled to " + describe(m));
    }
    case Verb::Wait: {
      if (c.wait_load) {
        TRY(use(run, "waitForLoad", json::array({run.tab})));
        return json("the page has loaded");
      }
      if (!c.target.empty()) {
        auto b = TRY(bind_target(run, c.target, Verb::Wait, "wait for"));
        step["target"] = b.matches[0];
        return json(describe(b.matches[0]) + " is there");
      }
      if (!c.text.empty()) {
        while (true) {
          auto r = TRY(page(run, "pageIncludes", json::array({commands::lower(c.text)})));
          if (r.is_boolean() && r.get<bool>()) return json(in_quotes(c.text) + " is on the page");
          if (Clock::now() >= run.deadline) return errorf(Code::DeadlineExceeded, "wait for {}: not on tab {} after {} ms", in_quotes(c.text), run.tab, run.step_timeout.count());
          std::this_thread::sleep_for(std::chrono::milliseconds(150));
        }
      }
      auto ms = std::chrono::milliseconds(static_cast<long>(std::min(c.amount, 10000.0)));
      std::this_thread::sleep_for(ms);
      return json("waited " + std::to_string(ms.count()) + " ms");
    }
    case Verb::Extract: {
      json opts = json::object();
      if (!c.fields.empty()) opts["fields"] = c.fields;
      if (c.target.kind == Target::Kind::Ref) opts["collection"] = c.target.text;
      else if (c.target.kind == Target::Kind::Words && !c.target.name.empty()) opts["text"] = c.target.name;
      auto rows = TRY(use(run, "extract", json::array({run.tab, opts})));
      size_t n = rows.contains("rows") && rows["rows"].is_array() ? rows["rows"].size() : 0;
      std::string name = get_str(rows, "name");
      step["data"] = std::move(rows);
      return json("extracted " + std::to_string(n) + " rows" + (name.empty() ? "" : " of " + in_quotes(name)));
    }
    case Verb::Submit: return do_submit(run, c, step);
    case Verb::UseTool: return use_page_tool(run, c, step);
  }
  return errorf(Code::Internal, "act: no step for '{}'", commands::to_line(c));
}

}  // namespace

Result<json> act(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0);
  std::string text;
  if (args.size() > 1 && args[1].is_array()) {
    for (const auto& l : args[1])
      if (l.is_string()) text += l.get<std::string>() + "\n";
  } else {
    text = arg_string(args, 1);
  }
  json opts = args.size() > 2 && args[2].is_object() ? args[2] : json::object();
  auto r = commands::parse_request(text);
  json parsed = commands::to_json(r);
  if (!r.not_understood.empty()) {
    std::string list;
    for (const auto& n : r.not_understood) list += (list.empty() ? "'" : ", '") + clip_text(n, 200) + "'";
    return make_error(Code::InvalidArgument,
                      fmt::format("act: I do not understand {} — nothing was done. Write it as commands (click TARGET; type \"TEXT\" into TARGET; "
                                  "select \"OPTION\" from TARGET; check TARGET; press KEY; navigate URL; …) or say it with those verbs",
                                  list),
                      json{{"parsed", parsed}});
  }
  if (r.plan.empty()) return make_error(Code::InvalidArgument, "act: nothing to do in '" + clip_text(text, 200) + "'", json{{"parsed", parsed}});
  if (r.plan.size() > 100) return make_error(Code::InvalidArgument, fmt::format("act: {} steps in one call; at most 100", r.plan.size()));
  auto step_timeout = opts.contains("timeout") && opts["timeout"].is_number()
                          ? std::chrono::milliseconds(static_cast<long>(std::clamp(opts["timeout"].get<double>(), 0.0, 120000.0)))
                          : ctx.limits().action_timeout;
  Run run{ctx, tab, Clock::now(), "", step_timeout, clip_text(text, 2000)};
  json steps = json::array();
  json criteria = json::array();
  bool ok = true;
  std::string failure;
  auto t0 = Clock::now();
  for (size_t i = 0; i < r.plan.size(); ++i) {
    const auto& c = r.plan[i];
    json step = {{"command", commands::to_line(c)}};
    if (!ok || opts.value("dryRun", false)) {
      step["status"] = ok ? "planned" : "skipped";
      steps.push_back(step);
      criteria.push_back({{"criterion", r.success_criteria[i]}, {"met", false}});
      continue;
    }
    run.deadline = Clock::now() + step_timeout;
    auto s0 = Clock::now();
    auto did = run_step(run, c, step);
    step["ms"] = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - s0).count();
    if (did) {
      step["status"] = "done";
      step["did"] = *did;
    } else {
      ok = false;
      step["status"] = "failed";
      step["error"] = clip_text(did.error().message, kMaxErrorChars);
      failure = fmt::format("step {} ({}) failed: {}", i + 1, commands::to_line(c), clip_text(did.error().message, 600));
    }
    criteria.push_back({{"criterion", r.success_criteria[i]}, {"met", static_cast<bool>(did)}});
    steps.push_back(std::move(step));
  }
  // The evaluator's verdict: each criterion as met or not, and why it stands so.
  json marks = json::array();
  size_t met = 0;
  for (const auto& c : criteria) {
    bool m = c.value("met", false);
    met += m;
    marks.push_back(std::string(m ? "✓ " : "✗ ") + get_str(c, "criterion"));
  }
  const bool dry = opts.value("dryRun", false);
  json assessment = {{"status", dry ? "incomplete" : ok ? "complete" : "failed"},
                     {"successCriteriaMet", marks},
                     {"needsMoreWork", !ok || dry},
                     {"reasoning", dry ? "planned only (dryRun): nothing was done"
                                   : ok ? fmt::format("every step did what it said ({} of {} criteria met)", met, criteria.size())
                                        : fmt::format("{} of {} criteria met; {}", met, criteria.size(), failure)}};
  json out = {{"ok", ok}, {"steps", steps}, {"parsed", parsed}, {"criteria", criteria}, {"assessment", assessment},
              {"ms", std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count()}};
  if (!ok) out["error"] = failure;
  // A navigation its last step started (a link, a submit, Enter) is given its moment to begin and
  // then waited for, up to 10 s, so the answer names the page the tab is on now, not the one it
  // is leaving; still loading then, the answer says so.
  if (!dry && !steps.empty()) {
    auto loaded = ctx.browser().wait_for_load(tab, std::min<std::chrono::milliseconds>(ctx.limits().load_timeout, std::chrono::seconds(10)));
    if (!loaded && loaded.error().code == Code::DeadlineExceeded) out["loading"] = true;
  }
  if (auto info = ctx.browser().tab_info(tab)) {
    out["url"] = info->url;
    out["title"] = info->title;
  }
  return out;
}

}  // namespace ouro::actions::impl
