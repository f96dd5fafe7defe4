#include "cli/cli.h"

#include <csignal>
#include <cstdio>

int main(int argc, char** argv) {
  // SIGINT is taken by a watcher thread (InterruptWatcher, cli/terminal.h), so block it before any thread starts.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGUSR2);  // wakes the watcher to stop it
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  auto r = ouro::cli::run(argc, argv);
  if (!r) {
    std::fprintf(stderr, "ouro: %s\n", r.error().message.c_str());
    return 2;
  }
  return *r;
}
