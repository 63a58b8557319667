// How the text of a live status (`bdmpiexec --status JOBID`, SIGUSR1 to
// bdmpiexec) reaches the shell that asked for it, through the job's private
// directory (common/private_dir.h), so that nobody but the job's user sees
// it. The asker creates the request file `status-<its pid>` there and
// signals one master of the job; the master, which learns the asker's pid
// from the signal (the kernel fills it in, nobody can forge it), writes the
// text into that file and renames it `status-<pid>.done`. A SIGUSR1 sent to
// a master without a request file (e.g. `kill -USR1` by hand) is answered
// on the job's standard error instead.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "common/unique_fd.h"

namespace bdmpi {

// Master: writes `text` as the answer to `asker` if it asked through
// `job_dir`; false when it did not (or the file is not ours), so that the
// caller prints the text elsewhere.
bool WriteStatusReply(const std::string& job_dir, pid_t asker, const std::string& text);

// Asker: its request in the job directory `job_dir` (checked private and
// ours); removed with whatever answer is left when destroyed.
class StatusRequest {
 public:
  // Throws Error naming the directory when it cannot be used.
  explicit StatusRequest(const std::string& job_dir);
  ~StatusRequest();
  StatusRequest(const StatusRequest&) = delete;
  StatusRequest& operator=(const StatusRequest&) = delete;

  // The master's text once it is there; nullopt when `wait` ran out or
  // `alive()` said the master is gone.
  std::optional<std::string> Wait(std::chrono::milliseconds wait,
                                  const std::function<bool()>& alive);

 private:
  UniqueFd dir_;
  std::string name_;
};

}  // namespace bdmpi
