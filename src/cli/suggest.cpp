#include "cli/suggest.h"

#include "base/text.h"

#include <CLI/CLI.hpp>

#include <algorithm>

namespace ouro::cli {

namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps
// ("rnu" → "run" is one edit), case-insensitive.
size_t edit_distance(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// "ouro", "ouro memory", "ouro schedule add".
std::string command_path(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::App* a = app; a; a = a->get_parent()) names.push_back(a->get_parent() ? a->get_name() : "ouro");
  std::string out;
  for (auto it = names.rbegin(); it != names.rend(); ++it) out += (out.empty() ? "" : " ") + *it;
  return out;
}

// The deepest command the parse reached ("ouro memory" for `ouro memory lst`).
CLI::App* reached(CLI::App& app) {
  CLI::App* cur = &app;
  while (true) {
    auto parsed = cur->get_subcommands();
    if (parsed.empty()) return cur;
    cur = parsed.back();
  }
}

std::vector<std::string> visible_subcommands(CLI::App* app) {
  std::vector<std::string> names;
  for (auto* sub : app->get_subcommands([](CLI::App* s) { return !s->get_group().empty(); })) names.push_back(sub->get_name());
  return names;
}

std::vector<std::string> long_options(CLI::App* app) {
  std::vector<std::string> names;
  for (const auto* opt : app->get_options())
    for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
  return names;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// What is wrong with `word` at command `at`, and its likely meaning; nullopt for the meaning
// when no command or option is close.
struct Unknown {
  std::string message;
  bool guessed = false;
};

Unknown unknown_word(CLI::App* at, const std::string& given) {
  std::string where = command_path(at);
  const std::string word = clip_text(given, 80);  // said back clipped: an argument can be a pasted page
  if (given.size() > 1 && given[0] == '-') {
    auto guess = closest(given.substr(0, given.find('=')), long_options(at));
    std::string name = clip_text(given.substr(0, given.find('=')), 80);
    return {where + ": there is no option " + name + (guess ? ". Did you mean " + *guess + "?" : ".") + " (" + where +
                " --help lists the options)",
            guess.has_value()};
  }
  auto subs = visible_subcommands(at);
  if (!subs.empty() && at->get_subcommands().empty()) {
    auto guess = closest(word, subs);
    return {where + ": there is no command \"" + word + "\"" + (guess ? ". Did you mean \"" + *guess + "\"?" : ".") + " (" + where +
                " --help says what each does: " + joined(subs) + ")",
            guess.has_value()};
  }
  return {where + ": \"" + word + "\" is one argument too many (quote a value that has spaces: " + where + " '…'; " + where +
          " --help shows the arguments)"};
}

// The first unexpected word that looks like a typo of something, else the first one, in the
// order the user wrote them.
std::optional<std::string> explain_extras(CLI::App& app, CLI::App* at, int argc, char** argv) {
  auto extras = app.remaining(true);
  for (auto* a = at; a && extras.empty(); a = a->get_parent()) extras = a->remaining(true);
  std::vector<Unknown> found;
  for (int i = 1; i < argc; ++i)
    if (std::find(extras.begin(), extras.end(), argv[i]) != extras.end()) found.push_back(unknown_word(at, argv[i]));
  if (found.empty() && !extras.empty()) found.push_back(unknown_word(at, extras.front()));
  for (const auto& u : found)
    if (u.guessed) return u.message;
  if (!found.empty()) return found.front().message;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_d = std::string::npos;
  // A typo is a small part of the word: one edit in a short word, about a third of a long one.
  size_t limit = std::max<size_t>(1, (word.size() + 1) / 3);
  // No command or option is this long: a pasted blob is not a typo (and the table stays small).
  if (word.size() > 64) return std::nullopt;
  // Between equally close ones, the one of the word's length: "--modle" is "--model" with two
  // letters swapped rather than "--mode" with one added.
  size_t best_len = std::string::npos;
  for (const auto& c : candidates) {
    size_t len = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
    if (len > limit) continue;
    size_t d = edit_distance(word, c);
    if (d <= limit && (d < best_d || (d == best_d && len < best_len))) {
      best = c;
      best_d = d;
      best_len = len;
    }
  }
  // A prefix the user stopped typing ("sched" for "schedule") is a likely meaning too.
  if (!best && word.size() >= 3)
    for (const auto& c : candidates)
      if (c.size() > word.size() && edit_distance(word, std::string_view(c).substr(0, word.size())) == 0) return c;
  return best;
}

std::optional<std::string> explain_parse_error(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  CLI::App* at = reached(app);
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) return explain_extras(app, at, argc, argv);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    // CLI11 says "--port: 1 required INT missing": said as what to give, with the option's help.
    std::string what = e.what();
    const CLI::Option* option = what.find(':') == std::string::npos ? nullptr : at->get_option_no_throw(what.substr(0, what.find(':')));
    if (option && what.find(" missing") != std::string::npos)
      return command_path(at) + ": " + option->get_name() + " needs a value after it — " + option->get_description() + " (" +
             command_path(at) + " --help lists the options)";
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) && at->get_require_subcommand_min() > 0 && at->get_subcommands().empty()) {
    // `ouro memory lst`: the word given is the news, not that a subcommand is missing.
    if (auto typo = explain_extras(app, at, argc, argv)) return typo;
    std::string where = command_path(at);
    return where + " needs one of: " + joined(visible_subcommands(at)) + " (" + where + " --help says what each does)";
  }
  return std::nullopt;
}

HelpTopic help_topic(CLI::App& app, const std::vector<std::string>& words) {
  CLI::App* at = &app;
  for (const auto& w : words) {
    CLI::App* next = nullptr;
    for (auto* sub : at->get_subcommands([](CLI::App* s) { return !s->get_group().empty(); }))
      if (sub->check_name(w)) next = sub;
    if (!next) {
      auto subs = visible_subcommands(at);
      auto guess = closest(w, subs);
      std::string where = command_path(at);
      if (subs.empty()) return {false, "ouro help: " + where + " has no subcommand \"" + w + "\" (" + where + " --help shows what it takes)"};
      return {false, "ouro help: \"" + w + "\" is not a command of " + where + (guess ? ". Did you mean \"" + *guess + "\"?" : ".") +
                         " Topics: " + joined(subs)};
    }
    at = next;
  }
  // The usage line names the command as it is typed: `ouro run`, not `run`.
  return {true, at->get_parent() ? at->help(command_path(at->get_parent())) : at->help("ouro")};
}

}  // namespace ouro::cli
