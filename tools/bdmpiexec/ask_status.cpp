#include "bdmpiexec/ask_status.h"

#include <signal.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <vector>

#include "bdmpiexec/rank_states.h"
#include "common/error.h"
#include "common/status_reply.h"

namespace bdmpi {
namespace {

// Alive and not a zombie (bdmpiexec's own child is reaped only later).
bool ProcessLives(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  std::size_t paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() || text[paren + 2] != 'Z';
}

}  // namespace

int AskStatus(const std::string& job_id, pid_t fallback_master, std::FILE* out) {
  std::vector<LocalMaster> masters = LocalMasters(job_id);
  if (masters.empty()) {
    if (fallback_master > 0) {
      kill(fallback_master, SIGUSR1);
      return 0;
    }
    std::fprintf(stderr, "bdmpiexec: job %s has no rank on this host (it has ended, has not "
                         "started its ranks yet, or runs elsewhere)\n", job_id.c_str());
    return 1;
  }
  auto master = static_cast<pid_t>(masters.front().pid);
  std::optional<StatusRequest> request;
  try {
    request.emplace(masters.front().job_dir);
  } catch (const Error& error) {
    std::fprintf(stderr, "bdmpiexec: cannot ask job %s for its status: %s\n", job_id.c_str(),
                 error.what());
    return 1;
  }
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
