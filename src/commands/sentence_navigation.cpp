// Plans the steps that move about and read: go, open, visit, back, reload, search, log in, find, scroll, wait, extract (docs/guides/without-a-model.md).
#include "commands/sentence_impl.h"

#include "commands/words.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <regex>
#include <set>

namespace ouro::commands::detail {

namespace {

// "Google" in "sign in with Google", "your GitHub account": another service to sign in with, or
// nullopt when the words are credentials, a handle or not a name ("with my password", "with
// secret:pw", "with the same account").
std::optional<std::string> service_name(std::string words) {
  words = trim(words);
  for (const char* lead : {"your ", "my ", "the ", "a ", "an "})
    if (starts_with(lower(words), lead)) {
      words = trim(words.substr(strlen(lead)));
      break;
    }
  for (const char* tail : {" accounts", " account", " login"})
    if (ends_with(lower(words), tail)) {
      words = trim(words.substr(0, words.size() - strlen(tail)));
      break;
    }
  static const std::set<std::string> not_a_service = {
      "username", "user", "name", "password", "passcode", "passphrase", "pin", "email", "e-mail", "mail", "login", "credentials",
      "details", "code", "otp", "token", "key", "secret", "it", "them", "this", "that", "same", "existing", "different", "another",
      "other", "new", "and", "or"};
  auto toks = split_ws(lower(words));
  if (toks.empty() || toks.size() > 3 || words.find_first_of("\"'@:()=") != std::string::npos) return std::nullopt;
  for (const auto& w : toks)
    if (not_a_service.count(w)) return std::nullopt;
  return words;
}

}  // namespace

// "switch between the tabs to find …", "look through the tabs": the binder looks in hidden panels itself.
std::optional<bool> plan_look_through(const Clause& c, Clauses&, std::string& note) {
  const std::string& lrest = c.lrest;
  if (!(starts_with(lrest, "between ") || starts_with(lrest, "through ") || starts_with(lrest, "across ") || starts_with(lrest, "at the tabs") ||
        (c.verb == "browse" && lrest.find("tab") != std::string::npos)))
    return std::nullopt;
  note = "no step: targets in other tabs and closed sections are found and shown when needed";
  return true;
}

// "go to example.com", "go back", "open the Settings tab".
std::optional<bool> plan_go(const Clause& c, Clauses& out, std::string&) {
  std::string r = after_prep(c.rest, {"to the page ", "to the url ", "to ", "the page ", "the url ", "url ", "page "});
  std::vector<std::string> q;
  std::string left = extract_quoted(r, q);
  std::string url = !q.empty() && trim(left).empty() ? q[0] : r;
  if (looks_like_url(url)) {
    Command cmd = make(Verb::Navigate, c.source);
    cmd.text = url;
    out.push_back(cmd);
    return true;
  }
  std::string lr = lower(r);
  if (lr == "back" || c.lrest == "back" || lr == "back to the previous page" || lr == "the previous page") {
    out.push_back(make(Verb::Back, c.source));
    return true;
  }
  if (c.lrest == "forward") {
    out.push_back(make(Verb::Forward, c.source));
    return true;
  }
  // "go to the second tab", "open the Settings tab", "open the menu": a click.
  if (!trim(r).empty()) return plan_click(r, c.source, out);
  return false;
}

// "return to the previous page", "return back".
std::optional<bool> plan_return(const Clause& c, Clauses& out, std::string&) {
  if (c.lrest != "to the previous page" && c.lrest != "back") return std::nullopt;
  out.push_back(make(Verb::Back, c.source));
  return true;
}

std::optional<bool> plan_back(const Clause& c, Clauses& out, std::string&) {
  out.push_back(make(Verb::Back, c.source));
  return true;
}

std::optional<bool> plan_reload(const Clause& c, Clauses& out, std::string&) {
  out.push_back(make(Verb::Reload, c.source));
  return true;
}

// "search for "x"": typed into the search box, then Enter.
std::optional<bool> plan_search(const Clause& c, Clauses& out, std::string&) {
  std::string r = after_prep(c.rest, {"for "});
  std::vector<std::string> q;
  std::string left = extract_quoted(r, q);
  std::string what = q.empty() ? r : q[0];
  std::string lw = lower(what);
  for (const char* tail : {" on the site", " on this site", " on the page", " on this page"})
    if (ends_with(lw, tail)) what = what.substr(0, what.size() - strlen(tail));
  if (trim(what).empty()) return false;
  Command t = make(Verb::Type, c.source);
  t.text = trim(what);
  t.target = parse_target("the search box");
  if (q.empty()) {
    // "comedy movies directed by Lucas from year 1994": the parts a search form may ask for one
    // by one (Genre, Director, Year); act() uses them only when the page has those fields.
    static const std::vector<std::pair<std::regex, std::string>> facets = {
        {std::regex("^(\\w[\\w-]*)\\s+(?:movies|films|books|novels|songs|shows|series|albums|games|podcasts)\\b", std::regex::icase), "Genre"},
        {std::regex("\\bdirected\\s+by\\s+([A-Z][\\w'-]*(?:\\s+[A-Z][\\w'-]*)?)"), "Director"},
        {std::regex("\\b(?:written|authored)\\s+by\\s+([A-Z][\\w'-]*(?:\\s+[A-Z][\\w'-]*)?)"), "Author"},
        {std::regex("\\b(?:from|in|released\\s+in)\\s+(?:the\\s+)?(?:year\\s+)?((?:19|20)\\d\\d)\\b", std::regex::icase), "Year"},
    };
    std::smatch m;
    std::vector<std::string> found;
    for (const auto& [re, label] : facets)
      if (std::regex_search(t.text, m, re)) found.push_back(label + "=" + std::string(m[1]));
    if (found.size() >= 2) t.fields = found;
  }
  out.push_back(t);
  Command p = make(Verb::Press, c.source);
  p.text = "Enter";
  out.push_back(p);
  return true;
}

// "log in with username "a" and password "b"".
std::optional<bool> plan_log_in(const Clause& c, Clauses& out, std::string& note) {
  const std::string& v = c.verb;
  // "Log out", "Sign off", "Sign up": the control of that name, not the sign-in one.
  if (v != "login") {
    std::string lr = lower(trim(c.rest));
    for (const char* particle : {"out", "off", "up"}) {
      if (lr != particle && !starts_with(lr, std::string(particle) + " ")) continue;
      Command cmd = make(Verb::Click, c.source);
      cmd.target = parse_target(v + " " + particle);
      out.push_back(cmd);
      return true;
    }
  }
  std::string r = v == "login" ? c.rest : after_prep(c.rest, {"in ", "on ", "into "});
  std::string lr2 = lower(r);
  const bool with = starts_with(lr2, "with ") || starts_with(lr2, "using ");
  if (with || starts_with(lr2, "as ")) r = r.substr(r.find(' ') + 1);
  auto qs = quoted_parts(r);
  size_t before = out.size();
  if (!qs.empty() && plan_type("enter", r, c.source, out, note)) {
    Command cmd = make(Verb::Click, c.source);
    cmd.target = parse_target("log in");
    cmd.target.roles = {"button"};
    out.push_back(cmd);
    return true;
  }
  out.resize(before);
  // "Sign in with Google", "log in with your GitHub account": the control for that service, in
  // the person's words ("Sign in with Google"), not the sign-in form's own button.
  if (with && qs.empty())
    if (auto service = service_name(r)) {
      // r is the end of the clause: what stands before it is the verb as written ("Sign in with").
      std::string head = trim(c.source.substr(0, c.source.size() - std::min(c.source.size(), r.size())));
      Command cmd = make(Verb::Click, c.source);
      cmd.target = parse_target(head + " " + *service);
      out.push_back(cmd);
      return true;
    }
  if (qs.size() == 2) {
    // "log in as "ada" with password "pw"": the first value is the user, the second the password.
    for (int i = 0; i < 2; ++i) {
      Command t = make(Verb::Type, c.source);
      t.text = qs[static_cast<size_t>(i)].value;
      t.target = parse_target(i == 0 ? "the username field" : "the password field");
      out.push_back(t);
    }
  }
  Command cmd = make(Verb::Click, c.source);
  cmd.target = parse_target(v == "sign" ? "sign in" : "log in");
  if (qs.size() == 2) cmd.target.roles = {"button"};
  out.push_back(cmd);
  return true;
}

// "find the link "elit" (and click it)": one control named → wait until it is there (shown if
// hidden); "find" of anything else is read as an extract.
std::optional<bool> plan_find(const Clause& c, Clauses& out, std::string&) {
  Target t = parse_target(c.rest);
  if (t.kind != Target::Kind::Words || (!t.roles.empty() && !t.all && (t.exact || t.ordinal) && c.lrest.find(" of ") == std::string::npos)) {
    Command cmd = make(Verb::Wait, c.source);
    cmd.target = t;
    out.push_back(cmd);
    return true;
  }
  if (c.verb == "locate") return false;
  return std::nullopt;
}

// scroll / wait / extract / get / collect, and "list" / "find" as an extract: the command language's forms.
std::optional<bool> plan_read(const Clause& c, Clauses& out, std::string&) {
  std::string line = c.source;
  if (c.verb == "list" || c.verb == "find") line = "extract " + c.rest;
  auto cmd = parse_command(line);
  if (!cmd) return false;
  cmd->source = c.source;
  out.push_back(*cmd);
  return true;
}

}  // namespace ouro::commands::detail
