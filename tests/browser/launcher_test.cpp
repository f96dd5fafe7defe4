// The Chromium ouro launches gets the DevTools pipe and nothing else of ouro's: a socket ouro
// listens on (the API's, an evaluation site's) must not live on in the browser after ouro closed it.
#include "browser/launcher.h"
#include "../support/scoped_env.h"
#include "../support/scoped_temp_dir.h"

#include "base/priority.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace ouro::browser {
namespace {

TEST(Launcher, TheBrowserInheritsNoDescriptorOfOuros) {
  // A listening socket opened the way a server library might: without close-on-exec.
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  // Above the descriptors the launch gives the browser (3 and 4 are the DevTools pipe).
  int high = ::fcntl(listener, F_DUPFD, 40);
  ASSERT_GE(high, 40);
  ::close(listener);
  listener = high;
  struct stat st {};
  ASSERT_EQ(::fstat(listener, &st), 0);
  const std::string inode = "socket:[" + std::to_string(st.st_ino) + "]";

  auto chromium = ChromiumProcess::spawn(LaunchOptions{});
  ASSERT_TRUE(chromium) << chromium.error().message;
  bool inherited = false;
  int fds = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string((*chromium)->pid()) + "/fd", ec)) {
    ++fds;
    std::error_code le;
    if (std::filesystem::read_symlink(e.path(), le).string() == inode) inherited = true;
  }
  EXPECT_GT(fds, 0) << "the browser's descriptors could not be read";
  EXPECT_FALSE(inherited) << "Chromium holds ouro's listening socket " << inode;
  ::close(listener);
}

// A headless browser's pages are runs' work (base/priority.h): the browser starts at the
// background priority, which every process it forks inherits; a headed one, the person's own
// window, starts as ouro runs; and the caller's thread is left as it was. Read from the started
// program itself, a stand-in that records its nice value (Chromium, run as root, resets some of
// its own threads' values afterwards).
TEST(Launcher, AHeadlessBrowserStartsAtTheBackgroundPriorityAndTheCallerKeepsItsOwn) {
  testing::ScopedTempDir tmp;
  const std::string program = tmp.path + "/fake-chromium";
  {
    std::ofstream out(program);
    out << "#!/bin/sh\nread -r line < /proc/$$/stat\nset -- ${line##*) }\nshift 16\necho \"$1\" > \"$OURO_TEST_NICE_FILE.tmp\"\n"
           "mv \"$OURO_TEST_NICE_FILE.tmp\" \"$OURO_TEST_NICE_FILE\"\nexec sleep 30\n";
  }
  std::filesystem::permissions(program, std::filesystem::perms::owner_all);
  auto nice_of_started = [&](bool headed) -> int {
    const std::string file = tmp.path + (headed ? "/headed" : "/headless");
    testing::ScopedEnv where("OURO_TEST_NICE_FILE", file.c_str());
    testing::ScopedEnv display("DISPLAY", ":99");  // a headed launch checks that there is one
    LaunchOptions o;
    o.executable = program;
    o.headed = headed;
    auto started = ChromiumProcess::spawn(o);
    EXPECT_TRUE(started) << started.error().message;
    if (!started) return -100;
    for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20); std::chrono::steady_clock::now() < until;) {
      std::ifstream in(file);
      int nice = -100;
      if (in >> nice) return nice;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ADD_FAILURE() << "the started program never said its nice value";
    return -100;
  };
  errno = 0;
  const int mine = getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
  if (mine >= kBrowserNice) GTEST_SKIP() << "this test runs at nice " << mine << " already: a background launch would look the same";
  const int headless = nice_of_started(false);
  EXPECT_EQ(headless, kBrowserNice);
  EXPECT_EQ(nice_of_started(true), mine);
  EXPECT_EQ(getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())), mine);
}

}  // namespace
}  // namespace ouro::browser
