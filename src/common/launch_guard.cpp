#include "common/launch_guard.h"

#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstring>

namespace bdmpi {
namespace {

struct Search {
  const char* name;
  std::string found;
};

int MatchObject(dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  if (info->dlpi_name == nullptr) return 0;
  const char* slash = std::strrchr(info->dlpi_name, '/');
  const char* file = slash != nullptr ? slash + 1 : info->dlpi_name;
  if (std::strncmp(file, search->name, std::strlen(search->name)) != 0) return 0;
  search->found = info->dlpi_name;
  return 1;
}

}  // namespace

std::string LoadedLibrary(const char* name) {
  Search search{name, {}};
  dl_iterate_phdr(MatchObject, &search);
  return search.found;
}

std::string OwnExecutable() {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace bdmpi
