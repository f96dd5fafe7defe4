// Files only their owner may read, written whole or not at all: mode 0600 whatever the umask or
// the old file's mode, the old content replaced in one step, no temporary left behind on success
// or failure, and a link at the path replaced rather than followed.
#include "base/private_file.h"
#include "../support/scoped_temp_dir.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ouro {
namespace {

using TempDir = ouro::testing::ScopedTempDir;

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct stat status_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename().string());
  return out;
}

TEST(PrivateFile, AMissingDirectoryIsAnErrorAndNothingIsMade) {
  TempDir dir;
  const std::string path = dir.path + "/no/such/key";
  auto r = write_private_file(path, "secret");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Internal);
  EXPECT_NE(r.error().message.find(path), std::string::npos) << r.error().message;
  EXPECT_TRUE(names_in(dir.path).empty());
}

TEST(PrivateFile, ADirectoryAtThePathStaysAndNoTemporaryIsLeft) {
  TempDir dir;
  const std::string path = dir.path + "/settings.json";
  ASSERT_TRUE(std::filesystem::create_directory(path));
  auto r = write_private_file(path, "{}");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Internal);
  EXPECT_TRUE(std::filesystem::is_directory(path));
  EXPECT_EQ(names_in(dir.path), std::vector<std::string>{"settings.json"}) << "the temporary file is removed";
}

TEST(PrivateFile, ADirectoryThatCannotBeWrittenIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into any directory";
  TempDir dir;
  ASSERT_EQ(::chmod(dir.path.c_str(), 0500), 0);
  auto r = write_private_file(dir.path + "/key", "secret");
  ASSERT_EQ(::chmod(dir.path.c_str(), 0700), 0);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Internal);
  EXPECT_TRUE(names_in(dir.path).empty());
}

TEST(PrivateFile, ALinkAtThePathIsReplacedAndWhatItPointedAtIsUntouched) {
  TempDir dir;
  const std::string target = dir.path + "/elsewhere", link = dir.path + "/key";
  std::ofstream(target) << "keep me";
  ASSERT_EQ(::chmod(target.c_str(), 0644), 0);
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  auto r = write_private_file(link, "new key");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(contents(target), "keep me");
  EXPECT_EQ(status_of(target).st_mode & 07777, 0644u);
  struct stat st = status_of(link);
  EXPECT_TRUE(S_ISREG(st.st_mode)) << "the link itself was replaced by a file";
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(contents(link), "new key");
}

TEST(PrivateFile, ANewFileIsTheOwnersOnlyWhateverTheUmask) {
  TempDir dir;
  const std::string path = dir.path + "/key";
  mode_t old_mask = ::umask(0);
  auto r = write_private_file(path, "sk-123");
  ::umask(old_mask);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(status_of(path).st_mode & 07777, 0600u);
  EXPECT_EQ(contents(path), "sk-123");
}

TEST(PrivateFile, AFileOthersCouldReadIsReplacedByAPrivateOneInOneStep) {
  TempDir dir;
  const std::string path = dir.path + "/secrets.json";
  std::ofstream(path) << "old";
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  const ino_t old_inode = status_of(path).st_ino;
  int reader = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // a reader that opened it before the write
  ASSERT_GE(reader, 0);
  auto r = write_private_file(path, "new");
  ASSERT_TRUE(r) << r.error().message;
  char buf[16] = {};
  ssize_t n = ::read(reader, buf, sizeof buf);
  ::close(reader);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "old") << "the old file is not rewritten in place";
  struct stat st = status_of(path);
  EXPECT_NE(st.st_ino, old_inode);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(contents(path), "new");
  EXPECT_EQ(names_in(dir.path), std::vector<std::string>{"secrets.json"});
}

TEST(PrivateFile, EmptyBinaryAndLargeContentIsWrittenWhole) {
  TempDir dir;
  const std::string path = dir.path + "/blob";
  ASSERT_TRUE(write_private_file(path, ""));
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(std::filesystem::file_size(path), 0u);
  const std::string binary("\0\xff\n\r\x01 end", 9);
  ASSERT_TRUE(write_private_file(path, binary));
  EXPECT_EQ(contents(path), binary);
  std::string large(3 << 20, 'x');
  for (size_t i = 0; i < large.size(); i += 4093) large[i] = static_cast<char>('a' + i % 26);
  ASSERT_TRUE(write_private_file(path, large));
  EXPECT_EQ(contents(path), large);
  EXPECT_EQ(names_in(dir.path), std::vector<std::string>{"blob"});
}

}  // namespace
}  // namespace ouro
