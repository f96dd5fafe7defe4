// The Chromium ouro launches gets the DevTools pipe and nothing else of ouro's: a socket ouro
// listens on (the API's, an evaluation site's) must not live on in the browser after ouro closed it.
#include "browser/launcher.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

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

}  // namespace
}  // namespace ouro::browser
