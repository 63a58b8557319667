#include "master/spawn.h"

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.h"

namespace bdmpi {

std::string ResolveProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    if (access(program.c_str(), X_OK) != 0)
      throw Error(kErrArg, "cannot execute '" + program +
                               "': " + std::strerror(errno));
    return program;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  throw Error(kErrArg, "program '" + program + "' not found in PATH");
}

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

  pid_t pid = fork();
  if (pid < 0) ThrowSystemError("fork", errno);
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the master is already gone
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (spec.cpu >= 0) sched_setaffinity(0, sizeof cpus, &cpus);
    execve(spec.path.c_str(), argv.data(), envp.data());
    static const char kMessage[] = "bdmprun: exec of the slave program failed\n";
    ssize_t ignored = write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    (void)ignored;
    _exit(127);
  }
  return pid;
}

}  // namespace bdmpi
