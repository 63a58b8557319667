#include "common/program_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.h"

namespace bdmpi {
namespace {

// Empty when `path` is a regular file we may execute, else why not.
std::string WhyNotExecutable(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "it is a directory";
  if (!S_ISREG(st.st_mode)) return "it is not a regular file";
  if (access(path.c_str(), X_OK) != 0) return std::strerror(errno);
  return "";
}

}  // namespace

std::string ResolveProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    std::string why = WhyNotExecutable(program);
    if (!why.empty()) throw Error(kErrArg, "cannot run the program '" + program + "': " + why);
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
    if (WhyNotExecutable(candidate).empty()) return candidate;
    start = end + 1;
  }
  throw Error(kErrArg, "program '" + program + "' not found in PATH");
}

}  // namespace bdmpi
