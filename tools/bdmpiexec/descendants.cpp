#include "bdmpiexec/descendants.h"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "bdmpiexec/proc_files.h"

namespace bdmpi {
namespace {

// Reaps every child that has ended; false once no child is left at all.
bool ReapEnded() {
  for (;;) {
    pid_t pid = waitpid(-1, nullptr, WNOHANG);
    if (pid > 0) continue;
    if (pid == 0) return true;
    if (errno == EINTR) continue;
    return false;  // ECHILD
  }
}

// The parent pid in /proc/<pid>/stat, whose second field (the command
// name, in parentheses) may hold spaces: it follows the last ')'.
pid_t ParentOf(const std::string& pid) {
  std::vector<std::string> stat = StatFieldsAfterCommand(ReadProcFile("/proc/" + pid + "/stat"));
  return stat.size() < 2 ? -1 : static_cast<pid_t>(std::atol(stat[1].c_str()));
}

std::string CommandLine(const std::string& pid) {
  std::string line = ReadProcFile("/proc/" + pid + "/cmdline");
  while (!line.empty() && line.back() == '\0') line.pop_back();
  for (char& c : line) {
    if (c == '\0') c = ' ';
  }
  return line;
}

// This process's children, alive or ended but not yet reaped.
std::vector<pid_t> Children() {
  std::vector<pid_t> children;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return children;
  pid_t self = getpid();
  while (dirent* entry = readdir(proc)) {
    std::string pid = entry->d_name;
    if (pid.find_first_not_of("0123456789") == std::string::npos && ParentOf(pid) == self)
      children.push_back(static_cast<pid_t>(std::atoi(pid.c_str())));
  }
  closedir(proc);
  return children;
}

void Pause(int ms) {
  timespec pause{0, ms * 1'000'000L};
  nanosleep(&pause, nullptr);
}

constexpr int kPollMs = 10;

}  // namespace

void AdoptOrphanedDescendants() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

std::vector<std::string> WaitForDescendants(int wait_ms) {
  for (int waited = 0; ReapEnded(); waited += kPollMs) {
    if (waited < wait_ms) {
      Pause(kPollMs);
      continue;
    }
    std::vector<std::string> alive;
    for (pid_t pid : Children()) {
      std::string id = std::to_string(pid);
      alive.push_back("pid " + id + " (" + CommandLine(id) + ")");
    }
    return alive;
  }
  return {};
}

void KillDescendants() {
  // The orphans of those killed become children in turn: a few rounds.
  for (int round = 0; round < 100 && ReapEnded(); ++round) {
    for (pid_t pid : Children()) kill(pid, SIGKILL);
    Pause(kPollMs);
  }
}

}  // namespace bdmpi
