#include "common/status_reply.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "common/error.h"
#include "common/file_io.h"
#include "common/private_dir.h"

namespace bdmpi {
namespace {

std::string RequestName(pid_t asker) { return "status-" + std::to_string(asker); }

constexpr char kDoneSuffix[] = ".done";

}  // namespace

bool WriteStatusReply(const std::string& job_dir, pid_t asker, const std::string& text) {
  if (asker <= 0) return false;
  try {
    UniqueFd dir = OpenPrivateDir(job_dir);
    std::string name = RequestName(asker);
    UniqueFd file(openat(dir.get(), name.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC));
    struct stat info {};
    if (!file || fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode) ||
        info.st_uid != geteuid() || info.st_nlink != 1)
      return false;
    WriteAll(file.get(), job_dir + "/" + name, text.data(), text.size());
    return renameat(dir.get(), name.c_str(), dir.get(), (name + kDoneSuffix).c_str()) == 0;
  } catch (const Error&) {
    return false;
  }
}

StatusRequest::StatusRequest(const std::string& job_dir)
    : dir_(OpenPrivateDir(job_dir)), name_(RequestName(getpid())) {
  unlinkat(dir_.get(), (name_ + kDoneSuffix).c_str(), 0);  // a dead asker's with our pid
  UniqueFd file(openat(dir_.get(), name_.c_str(),
                       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!file) ThrowSystemError("create " + job_dir + "/" + name_, errno);
}

StatusRequest::~StatusRequest() {
  unlinkat(dir_.get(), name_.c_str(), 0);
  unlinkat(dir_.get(), (name_ + kDoneSuffix).c_str(), 0);
}

std::optional<std::string> StatusRequest::Wait(std::chrono::milliseconds wait,
                                               const std::function<bool()>& alive) {
  auto deadline = std::chrono::steady_clock::now() + wait;
  std::string done = name_ + kDoneSuffix;
  for (;;) {
    UniqueFd file(openat(dir_.get(), done.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (file) {
      std::string text;
      char buffer[4096];
      for (;;) {
        ssize_t n = read(file.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;  // bdmpiexec's own signals
        if (n <= 0) return text;
        text.append(buffer, static_cast<std::size_t>(n));
      }
    }
    if (std::chrono::steady_clock::now() >= deadline || !alive()) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace bdmpi
