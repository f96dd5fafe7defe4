#include "jsrt/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace ouro::jsrt {

void close_other_fds(int keep_fd, int keep_fd2) {
  std::vector<int> fds;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d)) {
      int fd = atoi(e->d_name);
      if (fd > 2 && fd != keep_fd && fd != keep_fd2 && fd != dirfd(d)) fds.push_back(fd);
    }
    closedir(d);
  }
  for (int fd : fds) close(fd);
  int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    for (int fd : {0, 1})
      if (fd != keep_fd && fd != keep_fd2) dup2(null, fd);
    if (null > 2) close(null);
  }
}

Result<void> enter_sandbox() {
#if defined(__SANITIZE_ADDRESS__)
  // LeakSanitizer's check stops the process's threads from a helper it clones without CLONE_THREAD
  // and then ptraces, and reads /proc: none of which the filter allows, so at exit it could only
  // fail ("LeakSanitizer has encountered a fatal error"). Check here instead, while it can run;
  // this also turns the exit-time check off.
  __lsan_do_leak_check();
#endif
  // No core files with page data in them, few descriptors. (Writing files is stopped by the
  // filter: nothing can be opened.)
  struct rlimit zero = {0, 0};
  setrlimit(RLIMIT_CORE, &zero);
  struct rlimit nofile = {64, 64};
  setrlimit(RLIMIT_NOFILE, &nofile);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errorf(Code::Internal, "PR_SET_NO_NEW_PRIVS: {}", std::strerror(errno));

  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
  if (!ctx) return make_error(Code::Internal, "seccomp_init failed");
  const int allowed[] = {
      SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev), SCMP_SYS(pread64), SCMP_SYS(recvfrom),
      SCMP_SYS(sendto), SCMP_SYS(recvmsg), SCMP_SYS(sendmsg), SCMP_SYS(close), SCMP_SYS(fstat), SCMP_SYS(newfstatat),
      SCMP_SYS(lseek), SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mprotect), SCMP_SYS(mremap), SCMP_SYS(madvise),
      SCMP_SYS(brk), SCMP_SYS(mlock), SCMP_SYS(munlock), SCMP_SYS(mincore), SCMP_SYS(futex), SCMP_SYS(futex_waitv),
      SCMP_SYS(set_robust_list), SCMP_SYS(get_robust_list), SCMP_SYS(rseq), SCMP_SYS(clock_gettime),
      SCMP_SYS(clock_getres), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep), SCMP_SYS(gettimeofday), SCMP_SYS(time),
      SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getppid), SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid),
      SCMP_SYS(getegid), SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),
      SCMP_SYS(rt_sigtimedwait), SCMP_SYS(rt_sigsuspend), SCMP_SYS(sigaltstack),
      SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity), SCMP_SYS(sched_getparam), SCMP_SYS(sched_getscheduler),
      SCMP_SYS(sched_setscheduler), SCMP_SYS(getpriority), SCMP_SYS(getrusage),
      SCMP_SYS(getrlimit), SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(select), SCMP_SYS(pselect6),
      SCMP_SYS(epoll_wait), SCMP_SYS(epoll_pwait), SCMP_SYS(epoll_ctl), SCMP_SYS(eventfd2), SCMP_SYS(pipe2),
      SCMP_SYS(getrandom), SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(restart_syscall), SCMP_SYS(membarrier),
      SCMP_SYS(shutdown), SCMP_SYS(fcntl), SCMP_SYS(dup), SCMP_SYS(uname), SCMP_SYS(sysinfo), SCMP_SYS(prctl),
      SCMP_SYS(arch_prctl), SCMP_SYS(set_tid_address), SCMP_SYS(timerfd_create), SCMP_SYS(timerfd_settime),
      SCMP_SYS(timerfd_gettime), SCMP_SYS(mbind), SCMP_SYS(get_mempolicy), SCMP_SYS(set_mempolicy),
  };
  for (int sc : allowed)
    if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, sc, 0) != 0) {
      seccomp_release(ctx);
      return errorf(Code::Internal, "seccomp rule for syscall {} failed", sc);
    }
  // Calls that name a process act on this one only: a signal to one of its own threads
  // (raise, pthread_kill: tgkill with this process's id; tkill, which names a thread of any
  // process, not at all), its own limits (prlimit64 with 0 or its id), its own priority
  // (setpriority with 0 or its id). Any other process — ouro itself, the user's browser — is
  // EPERM, as kill() is.
  const auto self = static_cast<scmp_datum_t>(::getpid());
  bool named_ok = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, self)) == 0;
  for (scmp_datum_t who : {scmp_datum_t{0}, self}) {
    named_ok = named_ok && seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, SCMP_A0(SCMP_CMP_EQ, who)) == 0;
    named_ok = named_ok && seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(setpriority), 1, SCMP_A1(SCMP_CMP_EQ, who)) == 0;
  }
  if (!named_ok) {
    seccomp_release(ctx);
    return make_error(Code::Internal, "seccomp rules for calls that name a process failed");
  }
  // Threads yes (JSC's GC and timer threads), processes no: clone only with CLONE_THREAD; clone3
  // cannot be filtered by flags, so it reports ENOSYS and glibc falls back to clone.
  seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
  seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  int rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) return errorf(Code::Internal, "seccomp_load: {}", std::strerror(-rc));
  return {};
}

std::string probe_forbidden_syscalls() {
  std::string out;
  auto report = [&](const char* what, bool failed, int err) {
    out += std::string(what) + ": " + (failed ? std::string("denied (") + strerrorname_np(err) + ")" : "ALLOWED") + "\n";
  };
  int fd = open("/etc/hostname", O_RDONLY);
  report("open /etc/hostname", fd < 0, errno);
  if (fd >= 0) close(fd);
  fd = openat(AT_FDCWD, "/tmp/ouro-sandbox-probe", O_WRONLY | O_CREAT, 0600);
  report("create /tmp/ouro-sandbox-probe", fd < 0, errno);
  if (fd >= 0) close(fd);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  report("socket AF_INET", s < 0, errno);
  if (s >= 0) close(s);
  s = socket(AF_UNIX, SOCK_STREAM, 0);
  report("socket AF_UNIX", s < 0, errno);
  if (s >= 0) close(s);
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  if (pid > 0) waitpid(pid, nullptr, 0);
  report("fork", pid < 0, errno);
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  int rc = execve("/bin/true", argv, nullptr);
  report("execve /bin/true", rc < 0, errno);
  return out;
}

}  // namespace ouro::jsrt
