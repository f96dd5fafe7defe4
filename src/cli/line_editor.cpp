#include "cli/line_editor.h"
#include "base/text.h"

#include <histedit.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace ouro::cli {

namespace {

constexpr int kHistorySize = 1000;

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }

}  // namespace

std::string common_prefix(const std::vector<std::string>& words) {
  if (words.empty()) return "";
  std::string prefix = words.front();
  for (const auto& w : words) {
    size_t n = 0;
    while (n < prefix.size() && n < w.size() && prefix[n] == w[n]) ++n;
    prefix.resize(n);
  }
  // Whole characters only: "café" and "cafè" share "caf", not the first byte of é.
  size_t keep = prefix.size();
  for (const auto& w : words) keep = std::min(keep, utf8_boundary(w, keep));
  prefix.resize(keep);
  return prefix;
}

struct LineEditor::Impl {
  std::string history_file;
  Completer complete;
  std::string prompt;
  EditLine* el = nullptr;
  History* hist = nullptr;
  HistEvent ev{};
  bool interrupted = false;

  static char* prompt_of(EditLine* el) {
    void* data = nullptr;
    el_get(el, EL_CLIENTDATA, &data);
    return const_cast<char*>(static_cast<Impl*>(data)->prompt.c_str());
  }

  // Tab: one candidate is inserted whole, several insert their common part and, when that adds
  // nothing, are listed under the line.
  static unsigned char on_tab(EditLine* el, int) {
    void* data = nullptr;
    el_get(el, EL_CLIENTDATA, &data);
    auto* self = static_cast<Impl*>(data);
    const LineInfo* li = el_line(el);
    std::string before(li->buffer, static_cast<size_t>(li->cursor - li->buffer));
    size_t start = before.size();
    while (start > 0 && word_char(before[start - 1])) --start;
    std::string word = before.substr(start);
    std::vector<std::string> found = self->complete ? self->complete(before, word) : std::vector<std::string>{};
    if (found.empty()) return CC_REFRESH_BEEP;
    std::string prefix = common_prefix(found);
    if (prefix.size() > word.size()) {
      el_insertstr(el, prefix.substr(word.size()).c_str());
      return CC_REFRESH;
    }
    if (found.size() == 1) return CC_REFRESH;
    std::string list = "\n";
    for (size_t i = 0; i < found.size() && i < 200; ++i) list += found[i] + (i + 1 < found.size() ? "  " : "");
    if (found.size() > 200) list += " … (" + std::to_string(found.size() - 200) + " more)";
    list += "\n";
    (void)!write(STDERR_FILENO, list.data(), list.size());
    return CC_REDISPLAY;
  }

  // Ctrl-C while a line is being typed: the line is dropped (it stays on the screen, marked ^C,
  // as a shell shows it) and read() ends with interrupted set, so the next prompt starts empty.
  static unsigned char on_interrupt(EditLine* el, int) {
    void* data = nullptr;
    el_get(el, EL_CLIENTDATA, &data);
    static_cast<Impl*>(data)->interrupted = true;
    const LineInfo* li = el_line(el);
    el_cursor(el, static_cast<int>(li->lastchar - li->cursor));  // past the end of what was typed
    (void)!write(STDERR_FILENO, "^C\n", 3);
    return CC_NEWLINE;
  }
};

LineEditor::LineEditor(std::string history_file, Completer complete) : m(std::make_unique<Impl>()) {
  m->history_file = std::move(history_file);
  m->complete = std::move(complete);
  m->hist = history_init();
  history(m->hist, &m->ev, H_SETSIZE, kHistorySize);
  history(m->hist, &m->ev, H_SETUNIQUE, 1);
  if (!m->history_file.empty()) history(m->hist, &m->ev, H_LOAD, m->history_file.c_str());
  // The prompt and the echo go to standard error, as the REPL's other messages: stdout holds
  // only the values, so `ouro repl > values.txt` still works.
  m->el = el_init("ouro", stdin, stderr, stderr);
  el_set(m->el, EL_CLIENTDATA, m.get());
  el_set(m->el, EL_PROMPT, &Impl::prompt_of);
  el_set(m->el, EL_EDITOR, "emacs");
  el_set(m->el, EL_HIST, history, m->hist);
  el_set(m->el, EL_ADDFN, "ouro-complete", "Complete an API name or an env key", &Impl::on_tab);
  el_set(m->el, EL_BIND, "^I", "ouro-complete", nullptr);
  // While a line is edited, the terminal's interrupt character (Ctrl-C) is a key libedit reads,
  // not SIGINT: the line is cleared where it is typed (a SIGINT taken elsewhere left it in
  // libedit's buffer, hidden, in front of the next input). Ctrl-Z and Ctrl-\ keep their signals;
  // while code runs the terminal is in its own mode again and Ctrl-C interrupts it.
  el_set(m->el, EL_SETTY, "-d", "intr=", "-intr", nullptr);
  el_set(m->el, EL_ADDFN, "ouro-interrupt", "Drop the line being typed", &Impl::on_interrupt);
  el_set(m->el, EL_BIND, "^C", "ouro-interrupt", nullptr);
  // The user's ~/.editrc, as every libedit program reads it.
  el_source(m->el, nullptr);
}

LineEditor::~LineEditor() {
  if (m->el) el_end(m->el);
  if (m->hist) history_end(m->hist);
}

std::optional<std::string> LineEditor::read(const std::string& prompt) {
  m->prompt = prompt;
  m->interrupted = false;
  int count = 0;
  const char* line = el_gets(m->el, &count);
  if (m->interrupted) return std::string(line && count > 0 ? std::string(line, static_cast<size_t>(count)) : std::string());
  if (!line || count <= 0) return std::nullopt;
  std::string out(line, static_cast<size_t>(count));
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

bool LineEditor::interrupted() const { return m->interrupted; }

void LineEditor::remember(const std::string& input) {
  if (input.find_first_not_of(" \t\r\n") == std::string::npos) return;
  history(m->hist, &m->ev, H_ENTER, input.c_str());
  if (m->history_file.empty()) return;
  // Created private before libedit writes it (fopen keeps an existing file's mode).
  int fd = ::open(m->history_file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::fchmod(fd, 0600);
    ::close(fd);
  }
  history(m->hist, &m->ev, H_SAVE, m->history_file.c_str());
}

}  // namespace ouro::cli
