#include "master/spawn.h"

#include <sched.h>
#include <signal.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.h"

namespace bdmpi {

pid_t SpawnSlave(const SpawnSpec& spec) {
  // Everything the child needs is prepared before fork.
  std::vector<char*> argv;
  for (const std::string& arg : spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& var : spec.env) envp.push_back(const_cast<char*>(var.c_str()));
  envp.push_back(nullptr);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (spec.cpu >= 0) CPU_SET(spec.cpu, &cpus);
  pid_t parent = getpid();
  // For kernels without close_range's CLOEXEC flag (before 5.11).
  long max_fd = sysconf(_SC_OPEN_MAX);
  if (max_fd < 0 || max_fd > 65536) max_fd = 65536;
  // The child reports a failed exec's errno through this pipe; a
  // successful exec closes it (O_CLOEXEC), so the parent reads nothing.
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) ThrowSystemError("pipe2", errno);

  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(report[0]);
    close(report[1]);
    ThrowSystemError("fork", err);
  }
  if (pid == 0) {
    close(report[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the master is already gone
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (spec.cpu >= 0) sched_setaffinity(0, sizeof cpus, &cpus);
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
      for (int fd = 3; fd < max_fd; ++fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    for (int fd : spec.keep_fds) fcntl(fd, F_SETFD, 0);
    execve(spec.path.c_str(), argv.data(), envp.data());
    int err = errno;
    ssize_t ignored = write(report[1], &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
  close(report[1]);
  int exec_errno = 0;
  ssize_t got;
  while ((got = read(report[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  close(report[0]);
  if (got == sizeof exec_errno) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    throw Error(kErrOther, "cannot start the slave program: exec " + spec.path + ": " +
                               std::strerror(exec_errno));
  }
  return pid;
}

}  // namespace bdmpi
