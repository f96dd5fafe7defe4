// Reading /proc without a stream (base/proc_file.h): a live process's files read whole, a process
// that does not exist reads as "", and one that exits between the open and the read — where a
// stream would throw — reads as "" too.
#include "base/proc_file.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace ouro {
namespace {

TEST(ProcFile, ALiveProcessesFileIsReadWhole) {
  std::string stat = read_proc_file("/proc/self/stat");
  ASSERT_FALSE(stat.empty());
  EXPECT_EQ(stat.substr(0, stat.find(' ')), std::to_string(::getpid()));
  EXPECT_EQ(read_proc_file("/proc/self/stat", 5).size(), 5u);
}

TEST(ProcFile, WhatDoesNotExistReadsAsNothing) {
  EXPECT_EQ(read_proc_file("/proc/999999999/stat"), "");
  EXPECT_EQ(read_proc_file("/nonexistent/file"), "");
}

TEST(ProcFile, AProcessThatExitsBetweenTheOpenAndTheReadReadsAsNothing) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  int fd = ::open(("/proc/" + std::to_string(child) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_EQ(read_proc_fd(fd), "");
  ::close(fd);
}

}  // namespace
}  // namespace ouro
