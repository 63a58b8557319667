// libbdmpi.so: jemalloc is libbdmpi_heap.so, loaded next to this library
// when first needed (heap_link.h says why).
#include "slave/memory/heap_link.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace bdmpi::memory {
namespace {

// One line on stderr, written at once (the heap is not there yet).
void ReportUnavailable(const std::string& why) {
  std::string line = "bdmpi: " + why +
                     "; small allocations of this rank are not storage-backed\n";
  ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

template <typename Fn>
bool Find(void* library, const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(library, name));
  return *out != nullptr;
}

}  // namespace

const HeapEntries* LoadHeap() {
  static HeapEntries entries;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&LoadHeap), &info) == 0 || info.dli_fname == nullptr) {
    ReportUnavailable("cannot find the directory of libbdmpi.so");
    return nullptr;
  }
  std::string path = info.dli_fname;
  std::size_t slash = path.rfind('/');
  path = (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) +
         "libbdmpi_heap.so";
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    ReportUnavailable("cannot load " + path + " (" + (error != nullptr ? error : "?") + ")");
    return nullptr;
  }
  if (!Find(library, "bdmpi_je_mallocx", &entries.mallocx) ||
      !Find(library, "bdmpi_je_free", &entries.free) ||
      !Find(library, "bdmpi_je_rallocx", &entries.rallocx) ||
      !Find(library, "bdmpi_je_sallocx", &entries.sallocx) ||
      !Find(library, "bdmpi_je_mallctl", &entries.mallctl)) {
    ReportUnavailable(path + " lacks jemalloc's entry points");
    return nullptr;
  }
  return &entries;
}

}  // namespace bdmpi::memory
