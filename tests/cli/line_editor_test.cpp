// The REPL's line editor (cli/line_editor.h) without a terminal: what Tab inserts for several
// candidates (their common prefix), the history kept across sessions in a file only the user can
// read (consecutive repeats once, at most 1,000 entries, blank inputs never, a multi-line
// statement one entry), and lines read from standard input when it is not a terminal (libedit
// reads them unedited).
#include "cli/line_editor.h"
#include "../support/scoped_temp_dir.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace ouro::cli {
namespace {

using ouro::testing::ScopedTempDir;

using ouro::testing::read_file;

// The entries of a history file as libedit saves it: a cookie line, then one line per entry,
// oldest first.
std::vector<std::string> entries(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(read_file(path));
  std::string line;
  if (!std::getline(in, line)) return out;
  EXPECT_EQ(line, "_HiStOrY_V2_") << "libedit's history file starts with its cookie";
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

unsigned mode_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 0777;
}

// --- Tab's common part ------------------------------------------------------------------------------

TEST(CommonPrefix, IsWhatEveryCandidateStartsWith) {
  EXPECT_EQ(common_prefix({}), "");
  EXPECT_EQ(common_prefix({"getText"}), "getText");
  EXPECT_EQ(common_prefix({"getText", "getTitle", "getTabs"}), "getT");
  EXPECT_EQ(common_prefix({"getText", "getLinks", "goBack"}), "g");
  EXPECT_EQ(common_prefix({"env.route", "env.routes"}), "env.route") << "one candidate the prefix of another";
  EXPECT_EQ(common_prefix({"abc", "xyz"}), "");
  EXPECT_EQ(common_prefix({"abc", ""}), "");
  EXPECT_EQ(common_prefix({"same", "same"}), "same");
  EXPECT_EQ(common_prefix({std::string(100000, 'k') + "a", std::string(100000, 'k') + "b"}), std::string(100000, 'k'));
}

// Two candidates that differ only in a character's second byte (café, cafè: C3 A9 and C3 A8)
// share "caf", never half a character that Tab would insert into the line.
TEST(CommonPrefix, NeverEndsInsideACharacter) {
  EXPECT_EQ(common_prefix({"caf\xC3\xA9", "caf\xC3\xA8"}), "caf");
  EXPECT_EQ(common_prefix({"\xF0\x9F\x8C\x8D", "\xF0\x9F\x8C\x8E"}), "") << "two emoji share three bytes, no character";
}

// --- History --------------------------------------------------------------------------------------

TEST(LineEditorHistory, IsKeptAcrossSessionsInAFileOnlyTheUserCanRead) {
  ScopedTempDir dir;
  const std::string path = dir.path + "/history";
  // A file left readable by others (made by an older version, or by hand).
  dir.write("history", "");
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  {
    LineEditor first(path, nullptr);
    first.remember("alpha");
  }
  EXPECT_EQ(mode_of(path), 0600u) << "what is typed into a REPL may hold secrets";
  {
    LineEditor second(path, nullptr);
    second.remember("beta");
  }
  EXPECT_EQ(entries(path), (std::vector<std::string>{"alpha", "beta"})) << "the second session loaded the first's";
  EXPECT_EQ(mode_of(path), 0600u);
}

TEST(LineEditorHistory, BlankInputIsNotRememberedAndARepeatOnlyOnceInARow) {
  ScopedTempDir dir;
  const std::string path = dir.path + "/history";
  LineEditor editor(path, nullptr);
  editor.remember("");
  editor.remember(" \t\r\n  ");
  EXPECT_FALSE(std::filesystem::exists(path)) << "nothing to save: no file";
  for (const char* input : {"alpha", "alpha", "beta", "alpha"}) editor.remember(input);
  EXPECT_EQ(entries(path), (std::vector<std::string>{"alpha", "beta", "alpha"}));
}

TEST(LineEditorHistory, KeepsTheLatestThousandEntries) {
  ScopedTempDir dir;
  const std::string path = dir.path + "/history";
  {
    LineEditor editor(path, nullptr);
    for (int i = 0; i < 1005; ++i) editor.remember("e" + std::to_string(i));
  }
  auto kept = entries(path);
  ASSERT_EQ(kept.size(), 1000u);
  EXPECT_EQ(kept.front(), "e5");
  EXPECT_EQ(kept.back(), "e1004");
}

TEST(LineEditorHistory, AMultiLineStatementIsOneEntry) {
  ScopedTempDir dir;
  const std::string path = dir.path + "/history";
  const std::string statement = "for (const x of xs) {\n  log(x);\n}";
  {
    LineEditor editor(path, nullptr);
    editor.remember(statement);
  }
  const std::string saved = read_file(path);
  EXPECT_EQ(entries(path).size(), 1u) << saved;
  // Loaded and saved again by the next session, it is the same entry.
  {
    LineEditor editor(path, nullptr);
    editor.remember("next");
  }
  auto both = entries(path);
  ASSERT_EQ(both.size(), 2u) << read_file(path);
  EXPECT_EQ(saved, read_file(path).substr(0, saved.size()));
  EXPECT_EQ(both[1], "next");
}

// --- Reading without a terminal ------------------------------------------------------------------------

// Standard input replaced by a pipe holding `text` (closed after it, so a read ends), put back
// when the scope ends. The text must fit the pipe's buffer (64 KiB on Linux).
class StdinFrom {
 public:
  explicit StdinFrom(const std::string& text) {
    int fds[2];
    if (::pipe(fds) != 0) {
      ADD_FAILURE() << "pipe failed";
      return;
    }
    ssize_t n = ::write(fds[1], text.data(), text.size());
    EXPECT_EQ(n, static_cast<ssize_t>(text.size()));
    ::close(fds[1]);
    m_saved = ::dup(STDIN_FILENO);
    EXPECT_EQ(::dup2(fds[0], STDIN_FILENO), STDIN_FILENO);
    ::close(fds[0]);
  }
  ~StdinFrom() {
    if (m_saved >= 0) {
      ::dup2(m_saved, STDIN_FILENO);
      ::close(m_saved);
    } else {
      ::close(STDIN_FILENO);
    }
  }
  StdinFrom(const StdinFrom&) = delete;
  StdinFrom& operator=(const StdinFrom&) = delete;

 private:
  int m_saved = -1;
};

TEST(LineEditorInput, LinesComeWithoutTheirNewlineAndEndOfInputIsNothing) {
  const std::string long_line(20000, 'x');
  StdinFrom input("let a = 1\n\n" + long_line + "\nlast without a newline");
  LineEditor editor("", nullptr);
  EXPECT_FALSE(editor.interrupted());
  EXPECT_EQ(editor.read("> "), std::optional<std::string>("let a = 1"));
  EXPECT_EQ(editor.read("> "), std::optional<std::string>("")) << "an empty line is a line, not the end";
  auto big = editor.read("> ");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->size(), long_line.size()) << "a long line comes whole";
  EXPECT_EQ(editor.read("> "), std::optional<std::string>("last without a newline"));
  EXPECT_EQ(editor.read("> "), std::nullopt);
  EXPECT_EQ(editor.read("> "), std::nullopt) << "and stays at the end";
  EXPECT_FALSE(editor.interrupted());
}

}  // namespace
}  // namespace ouro::cli
