#include "bdmpiexec/ask_status.h"

#include <signal.h>

#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "bdmpiexec/proc_files.h"
#include "bdmpiexec/rank_states.h"
#include "common/error.h"
#include "common/status_reply.h"

namespace bdmpi {
namespace {

// Alive and not a zombie (bdmpiexec's own child is reaped only later).
bool ProcessLives(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  std::vector<std::string> stat =
      StatFieldsAfterCommand(ReadProcFile("/proc/" + std::to_string(pid) + "/stat"));
  return stat.empty() || stat[0] != "Z";
}

// How long a master may take from its liveness file to its job directory.
constexpr int kDirWaitMs = 1000;

// The first master of the job on this host with its job directory made
// and a request file in it. With `launched` (bdmpiexec's own job), waits for
// a master that is still starting while `launched` lives; else asks only
// what is there now (with a moment for a master between its liveness file
// and its job directory).
std::optional<LocalMaster> FindMaster(const std::string& job_id, pid_t launched,
                                      std::optional<StatusRequest>& request) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(launched > 0 ? kStatusAnswerWaitMs : kDirWaitMs);
  for (;;) {
    std::vector<LocalMaster> masters = LocalMasters(job_id);
    std::string error;
    if (!masters.empty()) {
      try {
        request.emplace(masters.front().job_dir);
        return masters.front();
      } catch (const Error& failure) {
        error = failure.what();
      }
    }
    bool wait = (launched > 0 || !masters.empty()) && std::chrono::steady_clock::now() < deadline &&
                (launched <= 0 || ProcessLives(launched));
    if (!wait) {
      if (!error.empty())
        std::fprintf(stderr, "bdmpiexec: cannot ask job %s for its status: %s\n",
                     job_id.c_str(), error.c_str());
      else
        std::fprintf(stderr, "bdmpiexec: job %s has no master on this host (it has ended, "
                             "has not started yet, or runs elsewhere)\n", job_id.c_str());
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

int AskStatus(const std::string& job_id, pid_t launched, std::FILE* out) {
  std::optional<StatusRequest> request;
  std::optional<LocalMaster> found = FindMaster(job_id, launched, request);
  if (!found) return 1;
  auto master = static_cast<pid_t>(found->pid);
  if (kill(master, SIGUSR1) != 0) {
    std::fprintf(stderr, "bdmpiexec: job %s ended before it could be asked for its status\n",
                 job_id.c_str());
    return 1;
  }
  std::optional<std::string> text = request->Wait(
      std::chrono::milliseconds(kStatusAnswerWaitMs), [master] { return ProcessLives(master); });
  if (!text) {
    if (!ProcessLives(master))
      std::fprintf(stderr, "bdmpiexec: job %s ended before it answered\n", job_id.c_str());
    else
      std::fprintf(stderr, "bdmpiexec: the master of job %s (pid %d) did not answer within "
                           "%d s\n", job_id.c_str(), static_cast<int>(master),
                   kStatusAnswerWaitMs / 1000);
    return 1;
  }
  std::fputs(text->c_str(), out);
  std::fflush(out);
  return 0;
}

}  // namespace bdmpi
