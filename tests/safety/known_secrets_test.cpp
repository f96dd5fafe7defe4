// Secrets of earlier runs: only salted digests are kept (0600, the value nowhere in the file),
// and what is read back later is masked where a digest matches, also when encoded, in work
// bounded by the number of known lengths.
#include "safety/known_secrets.h"
#include "safety/spellings.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <vector>
#include <unistd.h>

namespace ouro::safety {
namespace {

std::string temp_file() {
  auto dir = std::filesystem::temp_directory_path() / ("known-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  std::filesystem::create_directories(dir);
  return (dir / "secret-digests").string();
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(KnownSecrets, KeepsSaltedDigestsOnlyInAnOwnerOnlyFile) {
  std::string path = temp_file();
  auto known = KnownSecrets::open(path);
  ASSERT_TRUE(known) << known.error().message;
  ASSERT_TRUE((*known)->record("vault", "vault-pass-8841"));
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string file = read(path);
  EXPECT_EQ(file.find("vault-pass-8841"), std::string::npos) << file;
  EXPECT_EQ(file.find("vaultpass8841"), std::string::npos) << file;
  // Another data directory has another salt: the digests of the same value differ.
  std::string other = temp_file();
  ASSERT_TRUE((*KnownSecrets::open(other))->record("vault", "vault-pass-8841"));
  EXPECT_NE(read(other).substr(0, 87), file.substr(0, 87));
  // A file others can read is refused, not used.
  ::chmod(path.c_str(), 0644);
  auto wide = KnownSecrets::open(path);
  ASSERT_FALSE(wide);
  EXPECT_EQ(wide.error().code, Code::PermissionDenied);
}

// Sessions that start together (ouro eval's task runs) open a data directory's file at once: each
// gets it whole, with the one salt, and no stray file is left beside it.
TEST(KnownSecrets, OpenedTogetherTheFileIsMadeOnceAndReadWhole) {
  for (int round = 0; round < 20; ++round) {
    std::string path = temp_file();
    std::vector<std::thread> threads;
    std::vector<std::string> errors(8);
    std::vector<std::shared_ptr<KnownSecrets>> opened(8);
    for (int i = 0; i < 8; ++i)
      threads.emplace_back([&, i] {
        auto k = KnownSecrets::open(path);
        if (k) opened[i] = *k;
        else errors[i] = k.error().message;
      });
    for (auto& t : threads) t.join();
    for (int i = 0; i < 8; ++i) ASSERT_TRUE(opened[i]) << errors[i];
    // What one records, another (opened at the same moment) recognises: the same salt.
    for (int i = 0; i < 8; ++i) ASSERT_TRUE(opened[i]->record("vault", "vault-pass-884" + std::to_string(i)));
    auto later = KnownSecrets::open(path);
    ASSERT_TRUE(later);
    for (int i = 0; i < 8; ++i) {
      const std::string value = "vault-pass-884" + std::to_string(i);
      EXPECT_EQ((*later)->scrub_text("token " + value + " here").find(value), std::string::npos) << "opened " << i;
    }
    size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) files += e.is_regular_file();
    EXPECT_EQ(files, 1u);
  }
}

TEST(KnownSecrets, ALaterReaderMasksTheValueAndItsSpellings) {
  std::string path = temp_file();
  ASSERT_TRUE((*KnownSecrets::open(path))->record("vault", "vault-pass-8841"));
  auto later = KnownSecrets::open(path);  // a later run: the value is not given, only the file
  ASSERT_TRUE(later);
  const auto& k = **later;
  EXPECT_EQ(k.scrub_text("the pass is vault-pass-8841."), "the pass is [SECRET:vault].");
  EXPECT_EQ(k.scrub_text("VAULT-PASS-8841"), "[SECRET:vault]");
  EXPECT_EQ(k.scrub_text("v a u l t p a s s 8 8 4 1!"), "[SECRET:vault]!");
  EXPECT_EQ(k.scrub_text("x dmF1bHQtcGFzcy04ODQx y"), "x [SECRET:vault] y") << "base64";
  EXPECT_EQ(k.scrub_text("x 7661756c742d706173732d38383431 y"), "x [SECRET:vault] y") << "hex";
  EXPECT_EQ(k.scrub_text("vault pass 8840 is another"), "vault pass 8840 is another");
  json v = {{"note", "vault-pass-8841"}, {"vault-pass-8841", {1, "x vault-pass-8841"}}};
  k.scrub(v);
  EXPECT_EQ(v.dump().find("8841"), std::string::npos) << v.dump();
}

// A damaged file is an error value or a line skipped, never an exception or a huge allocation.
TEST(KnownSecrets, ADamagedFileIsNamedOrItsBadLinesSkipped) {
  std::string path = temp_file();
  {
    auto known = KnownSecrets::open(path);
    ASSERT_TRUE(known) << known.error().message;
    ASSERT_TRUE((*known)->record("vault", "vault-pass-8841"));
  }
  std::string good = read(path);
  // Lines that are not hex, or name a length no secret has (a window of 4 GB), are skipped.
  std::ofstream(path, std::ios::app) << "e 4000000000 0000abcd " << std::string(64, 'a') << " huge\n"
                                     << "e 15 zzzzzzzz " << std::string(64, 'b') << " nothex\n";
  auto again = KnownSecrets::open(path);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ((*again)->scrub_text("the pass is vault-pass-8841"), "the pass is [SECRET:vault]");
  // A salt that is not hex: a clear error naming the file and what to do.
  std::string broken = good;
  broken.replace(broken.find('\n') - 2, 2, "zz");
  std::ofstream(path, std::ios::trunc) << broken;
  auto damaged = KnownSecrets::open(path);
  ASSERT_FALSE(damaged);
  EXPECT_NE(damaged.error().message.find(path), std::string::npos) << damaged.error().message;
  EXPECT_NE(damaged.error().message.find("remove it"), std::string::npos) << damaged.error().message;
}

TEST(KnownSecrets, HostileTextIsBoundedWork) {
  std::string path = temp_file();
  auto known = *KnownSecrets::open(path);
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(known->record("s" + std::to_string(i), "secret-value-" + std::string(i, 'x')));
  std::string text(1 << 20, 'x');  // every window of every length is all 'x': no digest matches
  spellings::Work work;
  EXPECT_EQ(known->scrub_text(text, &work), text);
  EXPECT_LE(work.bytes_scanned, (spellings::kDecodeDepth + 1) * text.size());
}

}  // namespace
}  // namespace ouro::safety
