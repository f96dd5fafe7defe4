#include "cli/reference.h"
#include "base/text.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace ouro::cli {

namespace {

// One option or positional argument, as the generators need it.
struct Arg {
  std::vector<std::string> names;  // "-h", "--help"; empty for a positional
  std::string positional;          // its name, upper case
  std::string metavar;             // what the value is called: URL, N, DIR, careful|autonomous
  std::string kind;                // "file", "dir" or "" (what the shell completes for its value)
  std::vector<std::string> choices;
  std::string desc;
  bool takes_value = false;
  bool required = false;
  bool repeatable = false;
  std::string key() const { return names.empty() ? positional : names.back() + "\n" + desc; }
};

struct Cmd {
  std::string path;  // "" for ouro itself, "auth set"
  std::string name;
  std::string desc;
  std::string footer;
  std::vector<Arg> options;
  std::vector<Arg> positionals;
  std::vector<Cmd> subs;
  bool requires_sub = false;
};

std::string upper(std::string s) {
  for (auto& c : s) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

Arg describe(const CLI::Option& o) {
  Arg a;
  for (const auto& s : o.get_snames()) a.names.push_back("-" + s);
  for (const auto& l : o.get_lnames()) a.names.push_back("--" + l);
  if (a.names.empty()) a.positional = upper(o.get_name());
  a.desc = o.get_description();
  a.takes_value = o.get_expected_min() != 0;
  a.required = o.get_required();
  a.repeatable = o.get_expected_max() > 1;
  std::string type = o.get_type_name();
  if (auto open = type.find('{'), close = type.rfind('}'); open != std::string::npos && close > open) {
    std::stringstream list(type.substr(open + 1, close - open - 1));
    for (std::string item; std::getline(list, item, ',');)
      if (!item.empty()) a.choices.push_back(item);
  }
  std::string lname = o.get_lnames().empty() ? "" : o.get_lnames().front();
  static const std::map<std::string, std::string> metavars = {
      {"config", "FILE"}, {"trace", "FILE"}, {"browser-pool", "FILE"}, {"secret", "NAME@DOMAIN"}, {"var", "NAME=VALUE"},
      {"param", "NAME=VALUE"}, {"option", "NAME=VALUE"}, {"at", "TIME"}, {"every", "DURATION"}, {"cron", "EXPR"},
      {"tz", "ZONE"}, {"resume", "ID"}, {"continue", "ID"}, {"api-key", "KEY"}, {"thinking", "BUDGET|off"},
      {"browser", "ws://…|auto"}, {"save-script", "NAME"}};
  static const std::set<std::string> dirs = {"data-dir", "profile", "browser-dir", "upload-dir"};
  static const std::set<std::string> files = {"config", "trace", "browser-pool"};
  if (dirs.count(lname)) a.kind = "dir";
  if (files.count(lname)) a.kind = "file";
  if (!a.choices.empty()) {
    for (size_t i = 0; i < a.choices.size(); ++i) a.metavar += (i ? "|" : "") + a.choices[i];
  } else if (auto m = metavars.find(lname); m != metavars.end()) {
    a.metavar = m->second;
  } else if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0 || type.rfind("FLOAT", 0) == 0) {
    a.metavar = "N";
  } else if (a.kind == "dir") {
    a.metavar = "DIR";
  } else {
    auto dash = lname.rfind('-');
    a.metavar = upper(dash == std::string::npos ? lname : lname.substr(dash + 1));
  }
  return a;
}

Cmd describe(const CLI::App& app, const std::string& path) {
  Cmd c;
  c.path = path;
  c.name = app.get_name().empty() ? "ouro" : app.get_name();
  c.desc = app.get_description();
  c.footer = app.get_footer();
  c.requires_sub = app.get_require_subcommand_min() > 0;
  for (const auto* o : app.get_options()) {
    if (o->get_group().empty()) continue;  // hidden
    (o->nonpositional() ? c.options : c.positionals).push_back(describe(*o));
  }
  for (const auto* s : app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); }))
    c.subs.push_back(describe(*s, path.empty() ? s->get_name() : path + " " + s->get_name()));
  return c;
}

void walk(const Cmd& c, const std::function<void(const Cmd&)>& f) {
  f(c);
  for (const auto& s : c.subs) walk(s, f);
}

// Options that four or more commands share word for word (the browser options of exec, do, run, …):
// the man page and the Markdown list them once.
struct Shared {
  std::vector<Arg> options;
  std::set<std::string> keys;
  std::vector<std::string> commands;  // those that take all of them
};

Shared shared_options(const Cmd& top) {
  std::map<std::string, int> count;
  for (const auto& s : top.subs)
    for (const auto& o : s.options) {
      ++count[o.key()];
    }
  Shared sh;
  // In the order the first command that has them declares them.
  for (const auto& s : top.subs)
    for (const auto& o : s.options)
      if (count[o.key()] >= 4 && o.names.back() != "--help" && sh.keys.insert(o.key()).second) sh.options.push_back(o);
  for (const auto& s : top.subs) {
    size_t n = std::count_if(s.options.begin(), s.options.end(), [&](const Arg& o) { return sh.keys.count(o.key()) > 0; });
    if (!sh.keys.empty() && n == sh.keys.size()) sh.commands.push_back(s.name);
  }
  return sh;
}

std::string usage(const Cmd& c) {
  std::string u = c.path.empty() ? "ouro" : "ouro " + c.path;
  if (!c.subs.empty()) return u + (c.requires_sub ? " COMMAND" : " [COMMAND]") + " [OPTIONS]";
  if (!c.options.empty()) u += " [OPTIONS]";
  for (const auto& p : c.positionals) u += p.required ? " " + p.positional : " [" + p.positional + "]";
  return u;
}

std::string option_title(const Arg& a) {
  std::string t;
  for (size_t i = 0; i < a.names.size(); ++i) t += (i ? ", " : "") + a.names[i];
  if (a.takes_value) t += " " + a.metavar;
  return t;
}

std::string join(const std::vector<std::string>& v, std::string_view last_sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i == 0 ? "" : i + 1 == v.size() ? std::string(last_sep) : ", ") + v[i];
  return out;
}

// --- Markdown ---------------------------------------------------------------------------------------

std::string md_anchor(const std::string& heading) {
  std::string a;
  for (char ch : heading) {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_') a += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    else if (ch == ' ') a += '-';
  }
  return a;
}

// Markdown's special characters escaped, except inside `code spans` (where a backslash would show).
std::string md_escape(const std::string& s) {
  std::string out;
  bool code = false;
  for (char ch : s) {
    if (ch == '`') code = !code;
    if (!code && (ch == '|' || ch == '<' || ch == '>' || ch == '*' || ch == '_')) out += '\\';
    out += ch;
  }
  return out;
}

void md_args(std::ostringstream& out, const std::vector<Arg>& args, const Shared* skip) {
  for (const auto& a : args) {
    if (skip && skip->keys.count(a.key())) continue;
    std::string title = a.names.empty() ? a.positional : option_title(a);
    out << "- `" << title << "`" << (a.required ? " (required)" : "") << (a.repeatable && !a.names.empty() ? " (repeatable)" : "")
        << " — " << md_escape(a.desc) << "\n";
  }
}

std::string markdown(const Cmd& top) {
  Shared sh = shared_options(top);
  std::ostringstream out;
  out << "# Commands and options\n\n"
         "Every command and option of `ouro`, generated from its command line by `ouro __reference markdown` "
         "(`make docs` writes this file; a test fails when it is stale). `ouro COMMAND --help` prints the same.\n\n";
  out << "Usage: `ouro [--version] [--help] [COMMAND] [OPTIONS]`. With no command, `ouro` starts the Command Center "
         "(`ouro serve`) with a kept browser profile, headed when there is a display.\n\n";
  out << "| command | what it does |\n|---|---|\n";
  walk(top, [&](const Cmd& c) {
    if (c.path.empty()) return;
    out << "| [`ouro " << c.path << "`](#" << md_anchor("ouro " + c.path) << ") | " << md_escape(c.desc) << " |\n";
  });
  out << "\n## Shared options\n\nTaken by " << join(sh.commands, " and ") << ":\n\n";
  md_args(out, sh.options, nullptr);
  walk(top, [&](const Cmd& c) {
    if (c.path.empty()) return;
    out << "\n## ouro " << c.path << "\n\n" << md_escape(c.desc) << "\n\nUsage: `" << usage(c) << "`\n";
    if (!c.positionals.empty()) {
      out << "\nArguments:\n\n";
      md_args(out, c.positionals, nullptr);
    }
    bool takes_shared = std::find(sh.commands.begin(), sh.commands.end(), c.path) != sh.commands.end();
    std::vector<Arg> own;
    for (const auto& o : c.options)
      if (o.names.back() != "--help" && !(takes_shared && sh.keys.count(o.key()))) own.push_back(o);
    if (!own.empty() || takes_shared) {
      out << "\nOptions" << (takes_shared ? " (and the [shared options](#shared-options))" : "") << ":\n\n";
      md_args(out, own, nullptr);
    }
    if (!c.subs.empty()) {
      out << "\nCommands: ";
      std::vector<std::string> links;
      for (const auto& s : c.subs) links.push_back("[`" + s.name + "`](#" + md_anchor("ouro " + s.path) + ")");
      out << join(links, ", ") << ".\n";
    }
    if (!c.footer.empty()) out << "\n```text\n" << c.footer << (c.footer.back() == '\n' ? "" : "\n") << "```\n";
  });
  return out.str();
}

// --- man page ---------------------------------------------------------------------------------------

std::string roff(const std::string& s) {
  static const std::vector<std::pair<std::string, std::string>> glyphs = {
      {"—", "\\(em"}, {"–", "\\(en"}, {"…", "..."}, {"≤", "\\(<="}, {"≥", "\\(>="}, {"→", "\\(->"}, {"÷", "\\(di"},
      {"“", "\\(lq"}, {"”", "\\(rq"}, {"’", "\\(aq"}, {"×", "\\(mu"}};
  std::string out;
  for (size_t i = 0; i < s.size();) {
    bool done = false;
    for (const auto& [from, to] : glyphs)
      if (s.compare(i, from.size(), from) == 0) {
        // "…" becomes "...": at a line's start, a '.' would make the line a request.
        if (to[0] == '.' && (out.empty() || out.back() == '\n')) out += "\\&";
        out += to;
        i += from.size();
        done = true;
        break;
      }
    if (done) continue;
    char ch = s[i++];
    if (ch == '\\') out += "\\e";
    else if (ch == '-') out += "\\-";
    else if (ch == '\n') out += "\n.br\n";
    else out += ch;
    if ((ch == '.' || ch == '\'') && (out.size() == 1 || out[out.size() - 2] == '\n')) out.insert(out.size() - 1, "\\&");
  }
  return out;
}

void man_args(std::ostringstream& out, const std::vector<Arg>& args, const std::set<std::string>& skip) {
  for (const auto& a : args) {
    if (skip.count(a.key()) || (!a.names.empty() && a.names.back() == "--help")) continue;
    out << ".TP\n";
    if (a.names.empty()) {
      out << "\\fI" << roff(a.positional) << "\\fR\n";
    } else {
      for (size_t i = 0; i < a.names.size(); ++i) out << (i ? ", " : "") << "\\fB" << roff(a.names[i]) << "\\fR";
      if (a.takes_value) out << " \\fI" << roff(a.metavar) << "\\fR";
      out << "\n";
    }
    out << roff(a.desc) << "\n";
  }
}

std::string man(const Cmd& top, std::string_view version) {
  Shared sh = shared_options(top);
  std::ostringstream out;
  out << ".\\\" Generated by `ouro __reference man` from ouro's own command line; do not edit.\n"
      << ".TH OURO 1 \"\" \"ouro " << roff(std::string(version)) << "\" \"User Commands\"\n"
      << ".SH NAME\nouro \\- a browser you can script, and an agent that scripts it\n"
      << ".SH SYNOPSIS\n.B ouro\n[\\fB\\-\\-version\\fR] [\\fB\\-\\-help\\fR]\n.br\n"
      << ".B ouro\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]\n"
      << ".SH DESCRIPTION\n" << roff(top.desc) << "\n.PP\n"
      << "With no command, \\fBouro\\fR starts the Command Center (as \\fBouro serve\\fR) with a browser profile it keeps in the "
         "data directory, headed when there is a display, and opens it there; without a display it prints the URL to open.\n"
      << ".PP\n\\fBouro\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR prints a command's options.\n"
      << ".SH COMMANDS\n";
  walk(top, [&](const Cmd& c) {
    if (c.path.empty()) return;
    out << ".SS \"" << roff(usage(c)) << "\"\n" << roff(c.desc) << "\n";
    bool takes_shared = std::find(sh.commands.begin(), sh.commands.end(), c.path) != sh.commands.end();
    if (takes_shared) out << ".PP\nIt takes the options under \\fBSHARED OPTIONS\\fR" << (c.options.size() > sh.keys.size() + 1 ? ", and:" : ".") << "\n";
    man_args(out, c.positionals, {});
    man_args(out, c.options, takes_shared ? sh.keys : std::set<std::string>{});
    if (!c.footer.empty()) out << ".PP\n" << roff(c.footer) << "\n";
  });
  out << ".SH SHARED OPTIONS\nTaken by " << roff(join(sh.commands, " and ")) << ".\n";
  man_args(out, sh.options, {});
  out << ".SH ENVIRONMENT\n"
         ".TP\n\\fBANTHROPIC_API_KEY\\fR, \\fBOPENAI_API_KEY\\fR, \\fBOPENROUTER_API_KEY\\fR, \\fBOURO_API_KEY\\fR, ...\n"
         "API keys; they win over keys stored with \\fBouro auth set\\fR. Local servers (Ollama, llama.cpp, LM Studio, vLLM) need none.\n"
         ".TP\n\\fBOURO_PROVIDER\\fR, \\fBOURO_MODEL\\fR, \\fBOURO_SUB_MODEL\\fR, \\fBOURO_BASE_URL\\fR, \\fBOURO_MAX_TOKENS\\fR, "
         "\\fBOURO_TEMPERATURE\\fR, \\fBOURO_THINKING\\fR\n"
         "Model settings, between the command's flags and the settings file in precedence.\n"
         ".TP\n\\fBOURO_CONFIG\\fR\nThe settings file (default \\fI~/.config/ouroboros/config.json\\fR).\n"
         ".TP\n\\fBOURO_DATA_DIR\\fR\nThe data directory (default \\fI~/.local/share/ouroboros\\fR).\n"
         ".TP\n\\fBOURO_WORKSPACE\\fR\nA workspace, as \\fB\\-\\-workspace\\fR.\n"
         ".TP\n\\fBOURO_SECRET_\\fR\\fINAME\\fR\nThe value of the secret \\fB\\-\\-secret\\fR \\fINAME\\fR@\\fIDOMAIN\\fR names.\n"
         ".TP\n\\fBOURO_CHROMIUM\\fR\nThe Chromium binary (default \\fI/usr/bin/chromium\\fR).\n"
         ".TP\n\\fBOURO_LOG\\fR\nLog level: debug, info, warn (default), error.\n"
         ".SH FILES\n"
         ".TP\n\\fI~/.config/ouroboros/config.json\\fR\nThe settings file: provider, model, safety settings, hooks.\n"
         ".TP\n\\fI~/.local/share/ouroboros/ouro.db\\fR\nRuns, events, checkpoints, store, memory, schedules and scripts (SQLite, mode 0600).\n"
         ".TP\n\\fI~/.local/share/ouroboros/secrets.json\\fR\nAPI keys when no OS keyring answers (mode 0600).\n"
         ".SH EXIT STATUS\n0 on success; 1 when the command ran and failed (a run without a final answer, a step that failed); "
         "2 for a usage or configuration error; 130 when interrupted.\n"
         ".SH SEE ALSO\n\\fBchromium\\fR(1). The guides and references in the docs/ folder of ouro's source.\n";
  return out.str();
}

// --- shell completions ------------------------------------------------------------------------------

std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string first_sentence(std::string s, size_t max = 70) {
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  if (auto colon = s.find(": "); colon != std::string::npos && colon < max) s.resize(colon);
  if (s.size() > max) {
    s = clip_head(s, max - 1);
  }
  return s;
}

// The per-command tables every shell's script is built from, as bash `case` arms.
std::string bash(const Cmd& top) {
  std::ostringstream subs, opts, values;
  walk(top, [&](const Cmd& c) {
    if (!c.subs.empty()) {
      subs << "    " << sh_quote(c.path) << ") echo";
      for (const auto& s : c.subs) subs << " " << s.name;
      subs << " ;;\n";
    }
    opts << "    " << sh_quote(c.path) << ") echo";
    for (const auto& o : c.options)
      for (const auto& n : o.names) opts << " " << n;
    opts << " ;;\n";
    for (const auto& o : c.options) {
      if (!o.takes_value) continue;
      std::string what = !o.choices.empty() ? "words " + join(o.choices, " ") : o.kind.empty() ? "none" : o.kind;
      for (const auto& n : o.names) values << "    " << sh_quote(c.path + " " + n) << ") echo " << sh_quote(what) << " ;;\n";
    }
  });
  std::ostringstream out;
  out << "# bash completion for ouro. Generated by `ouro __reference bash` from ouro's own command line; do not edit.\n"
         "_ouro_subcommands() {\n  case \"$1\" in\n" << subs.str() << "  esac\n}\n"
         "_ouro_options() {\n  case \"$1\" in\n" << opts.str() << "  esac\n}\n"
         "# What an option's value is: none (free text), file, dir, or words W…; nothing when it takes no value.\n"
         "_ouro_value() {\n  case \"$1 $2\" in\n" << values.str() << "  esac\n}\n"
         "_ouro() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" path=\"\" i w value\n"
         "  COMPREPLY=()\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    w=\"${COMP_WORDS[i]}\"\n"
         "    if [[ $w == -* ]]; then\n"
         "      [[ $w != *=* && -n \"$(_ouro_value \"$path\" \"$w\")\" ]] && ((i++))\n"
         "    elif [[ \" $(_ouro_subcommands \"$path\") \" == *\" $w \"* ]]; then\n"
         "      path=\"${path:+$path }$w\"\n"
         "    fi\n"
         "  done\n"
         "  if ((COMP_CWORD > 1)); then\n"
         "    value=$(_ouro_value \"$path\" \"${COMP_WORDS[COMP_CWORD-1]}\")\n"
         "    case \"$value\" in\n"
         "      none) return 0 ;;\n"
         "      file) COMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;\n"
         "      dir) COMPREPLY=($(compgen -d -- \"$cur\")); return 0 ;;\n"
         "      words\\ *) COMPREPLY=($(compgen -W \"${value#words }\" -- \"$cur\")); return 0 ;;\n"
         "    esac\n"
         "  fi\n"
         "  if [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$(_ouro_options \"$path\")\" -- \"$cur\"))\n"
         "  else\n"
         "    COMPREPLY=($(compgen -W \"$(_ouro_subcommands \"$path\")\" -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -F _ouro ouro\n";
  return out.str();
}

std::string zsh_item(const std::string& name, const std::string& desc) {
  std::string d;
  for (char ch : first_sentence(desc)) {
    if (ch == ':' || ch == '\\') d += '\\';
    d += ch;
  }
  return sh_quote(name + ":" + d);
}

std::string zsh(const Cmd& top) {
  std::ostringstream subs, opts, values;
  walk(top, [&](const Cmd& c) {
    if (!c.subs.empty()) {
      subs << "    " << sh_quote(c.path) << ") items=(";
      for (const auto& s : c.subs) subs << " " << zsh_item(s.name, s.desc);
      subs << " ) ;;\n";
    }
    opts << "    " << sh_quote(c.path) << ") items=(";
    for (const auto& o : c.options)
      for (const auto& n : o.names) opts << " " << zsh_item(n, o.desc);
    opts << " ) ;;\n";
    for (const auto& o : c.options) {
      if (!o.takes_value) continue;
      std::string what = !o.choices.empty() ? "words " + join(o.choices, " ") : o.kind.empty() ? "none" : o.kind;
      for (const auto& n : o.names) values << "    " << sh_quote(c.path + " " + n) << ") REPLY=" << sh_quote(what) << " ;;\n";
    }
  });
  std::ostringstream out;
  out << "#compdef ouro\n# zsh completion for ouro. Generated by `ouro __reference zsh` from ouro's own command line; do not edit.\n"
         "_ouro_subcommands() {\n  items=()\n  case \"$1\" in\n" << subs.str() << "  esac\n}\n"
         "_ouro_options() {\n  items=()\n  case \"$1\" in\n" << opts.str() << "  esac\n}\n"
         "_ouro_value() {\n  REPLY=''\n  case \"$1 $2\" in\n" << values.str() << "  esac\n}\n"
         "_ouro() {\n"
         "  local cmdpath='' w REPLY i\n"
         "  local -a items names\n"
         "  for ((i = 2; i < CURRENT; i++)); do\n"
         "    w=${words[i]}\n"
         "    if [[ $w == -* ]]; then\n"
         "      _ouro_value \"$cmdpath\" \"$w\"\n"
         "      [[ $w != *=* && -n $REPLY ]] && ((i++))\n"
         "    else\n"
         "      _ouro_subcommands \"$cmdpath\"\n"
         "      names=(${items%%:*})\n"
         "      (( ${names[(Ie)$w]} )) && cmdpath=${cmdpath:+$cmdpath }$w\n"
         "    fi\n"
         "  done\n"
         "  if (( CURRENT > 2 )); then\n"
         "    _ouro_value \"$cmdpath\" \"${words[CURRENT-1]}\"\n"
         "    case $REPLY in\n"
         "      none) return 0 ;;\n"
         "      file) _files; return ;;\n"
         "      dir) _files -/; return ;;\n"
         "      words\\ *) compadd -- ${=REPLY#words }; return ;;\n"
         "    esac\n"
         "  fi\n"
         "  if [[ $PREFIX == -* ]]; then\n"
         "    _ouro_options \"$cmdpath\"\n"
         "    _describe -t options 'option' items\n"
         "  else\n"
         "    _ouro_subcommands \"$cmdpath\"\n"
         "    (( ${#items} )) && _describe -t commands 'command' items\n"
         "  fi\n"
         "}\n"
         "_ouro \"$@\"\n";
  return out.str();
}

std::string fish(const Cmd& top) {
  std::ostringstream out;
  out << "# fish completion for ouro. Generated by `ouro __reference fish` from ouro's own command line; do not edit.\n"
         "complete -c ouro -f\n";
  // A command's condition: its path's words seen, and none of its own subcommands yet.
  walk(top, [&](const Cmd& c) {
    std::string cond;
    std::istringstream words(c.path);
    for (std::string w; words >> w;) cond += (cond.empty() ? "" : "; and ") + std::string("__fish_seen_subcommand_from ") + w;
    if (c.path.empty()) cond = "__fish_use_subcommand";
    std::string here = cond;
    if (!c.subs.empty() && !c.path.empty()) {
      here += "; and not __fish_seen_subcommand_from";
      for (const auto& s : c.subs) here += " " + s.name;
    }
    for (const auto& s : c.subs)
      out << "complete -c ouro -n " << sh_quote(here) << " -a " << s.name << " -d " << sh_quote(first_sentence(s.desc)) << "\n";
    for (const auto& o : c.options) {
      if (c.path.empty() && o.names.back() == "--help") continue;
      out << "complete -c ouro -n " << sh_quote(c.path.empty() ? "__fish_use_subcommand" : here);
      for (const auto& n : o.names) out << (n.rfind("--", 0) == 0 ? " -l " + n.substr(2) : " -s " + n.substr(1));
      if (o.takes_value) {  // -r -F: a file; -x: a value, no files (its choices, or directories)
        if (o.kind == "file") out << " -r -F";
        else out << " -x";
        if (!o.choices.empty()) out << " -a " << sh_quote(join(o.choices, " "));
        else if (o.kind == "dir") out << " -a '(__fish_complete_directories)'";
      }
      out << " -d " << sh_quote(first_sentence(o.desc)) << "\n";
    }
  });
  return out.str();
}

}  // namespace

std::optional<std::string> cli_reference(const CLI::App& app, std::string_view format, std::string_view version) {
  Cmd top = describe(app, "");
  if (format == "markdown") return markdown(top);
  if (format == "man") return man(top, version);
  if (format == "bash") return bash(top);
  if (format == "zsh") return zsh(top);
  if (format == "fish") return fish(top);
  return std::nullopt;
}

}  // namespace ouro::cli
