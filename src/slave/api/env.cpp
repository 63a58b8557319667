// The extern "C" entry points of MPI's environment (MPI-3.1 chapter 8):
// MPI_Init ... MPI_Finalize, MPI_Abort, the queries that need no master,
// the clock, MPI_Alloc_mem and MPI-4.1's MPI_Get_hw_resource_info.
#include <mpi.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "common/error.h"
#include "slave/comm/attributes.h"
#include "slave/comm/hw_resources.h"
#include "slave/memory/allocation_route.h"
#include "slave/runtime/environment.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/info.h"

using bdmpi::Error;
using bdmpi::Guard;

namespace {

// MPI_Alloc_mem's alignment: the hint mpi_minimum_memory_alignment (MPI-4.1
// 9.2) when it is a power of two above malloc's own, else malloc's.
std::size_t AllocMemAlignment(MPI_Info info) {
  const std::string* hint =
      info == MPI_INFO_NULL ? nullptr : bdmpi::FindInfo(info, "mpi_minimum_memory_alignment");
  if (hint == nullptr) return 0;
  char* end = nullptr;
  unsigned long long alignment = std::strtoull(hint->c_str(), &end, 10);
  bool power_of_two = alignment != 0 && (alignment & (alignment - 1)) == 0;
  if (end == hint->c_str() || *end != '\0' || !power_of_two ||
      alignment <= alignof(std::max_align_t))
    return 0;
  return static_cast<std::size_t>(alignment);
}

// The level MPI_VERSION/MPI_SUBVERSION claim; what is left out is in
// README's "Left out".
const char kLibraryVersion[] =
    "BDMPI 0.1 (MPI 4.1 with MPI_THREAD_MULTIPLE: sessions, partitioned communication, "
    "large counts, tool events and every other 4.1 call; out-of-core runtime)";

}  // namespace

extern "C" {

#pragma weak MPI_Init = PMPI_Init
int PMPI_Init(int*, char***) {
  return Guard("MPI_Init", MPI_COMM_WORLD, [] { bdmpi::Initialize(MPI_THREAD_SINGLE, nullptr); });
}

#pragma weak MPI_Init_thread = PMPI_Init_thread
int PMPI_Init_thread(int*, char***, int required, int* provided) {
  return Guard("MPI_Init_thread", MPI_COMM_WORLD,
               [&] { bdmpi::Initialize(required, provided); });
}

#pragma weak MPI_Initialized = PMPI_Initialized
int PMPI_Initialized(int* flag) {
  *flag = bdmpi::IsInitialized();
  return MPI_SUCCESS;
}

#pragma weak MPI_Finalized = PMPI_Finalized
int PMPI_Finalized(int* flag) {
  *flag = bdmpi::IsFinalized();
  return MPI_SUCCESS;
}

#pragma weak MPI_Finalize = PMPI_Finalize
int PMPI_Finalize(void) {
  return Guard("MPI_Finalize", MPI_COMM_WORLD, [] {
    // MPI-3.1 8.7.1: MPI_COMM_SELF is freed first, its attributes deleted.
    if (bdmpi::IsInitialized() && !bdmpi::IsFinalized())
      bdmpi::DeleteAllAttrs(bdmpi::AttrKind::kComm, MPI_COMM_SELF);
    bdmpi::Finalize();
  });
}

#pragma weak MPI_Abort = PMPI_Abort
int PMPI_Abort(MPI_Comm, int errorcode) {
  std::fflush(stdout);
  std::fflush(stderr);
  bdmpi::AbortJob(errorcode);
}

#pragma weak MPI_Query_thread = PMPI_Query_thread
int PMPI_Query_thread(int* provided) {
  *provided = bdmpi::ThreadLevel();
  return MPI_SUCCESS;
}

#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
int PMPI_Is_thread_main(int* flag) {
  *flag = bdmpi::IsThreadMain();
  return MPI_SUCCESS;
}

#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
int PMPI_Get_processor_name(char* name, int* resultlen) {
  char host[MPI_MAX_PROCESSOR_NAME];
  if (gethostname(host, sizeof host) != 0) std::strcpy(host, "localhost");
  host[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
  std::strcpy(name, host);
  *resultlen = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
}

#pragma weak MPI_Get_version = PMPI_Get_version
int PMPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

#pragma weak MPI_Get_library_version = PMPI_Get_library_version
int PMPI_Get_library_version(char* version, int* resultlen) {
  std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "%s", kLibraryVersion);
  *resultlen = static_cast<int>(std::strlen(version));
  return MPI_SUCCESS;
}

#pragma weak MPI_Wtime = PMPI_Wtime
double PMPI_Wtime(void) { return bdmpi::Wtime(); }

#pragma weak MPI_Wtick = PMPI_Wtick
double PMPI_Wtick(void) { return bdmpi::Wtick(); }

#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int, ...) { return MPI_SUCCESS; }  // no profiler to control

#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  return Guard("MPI_Alloc_mem", MPI_COMM_WORLD, [&] {
    bdmpi::CheckInfoArgument(info);
    if (size < 0) throw Error(bdmpi::kErrArg, "negative size");
    std::size_t bytes = size > 0 ? static_cast<std::size_t>(size) : 1;
    std::size_t alignment = AllocMemAlignment(info);
    void* memory = nullptr;
    bdmpi::memory::ProgramAllocations program_memory;
    if (alignment == 0) {
      memory = std::malloc(bytes);
    } else if (posix_memalign(&memory, alignment, bytes) != 0) {
      memory = nullptr;
    }
    if (memory == nullptr) throw Error(bdmpi::kErrNoMem, "MPI_Alloc_mem: out of memory");
    *static_cast<void**>(baseptr) = memory;
  });
}

#pragma weak MPI_Free_mem = PMPI_Free_mem
int PMPI_Free_mem(void* base) {
  std::free(base);
  return MPI_SUCCESS;
}

// MPI-4.1 9.1.2: a key per resource type, "true" when the rank runs within
// one instance of it (comm/hw_resources.h says why that means: its node has
// one). Like MPI_Info_create, callable before MPI_Init.
#pragma weak MPI_Get_hw_resource_info = PMPI_Get_hw_resource_info
int PMPI_Get_hw_resource_info(MPI_Info* hw_info) {
  return Guard("MPI_Get_hw_resource_info", MPI_COMM_WORLD, [&] {
    if (hw_info == nullptr) throw Error(bdmpi::kErrArg, "no place for the info given");
    bdmpi::InfoEntries entries;
    for (const bdmpi::HwResource& resource : bdmpi::HwResources())
      entries.emplace_back(resource.name, resource.single ? "true" : "false");
    *hw_info = bdmpi::NewInfo(std::move(entries));
  });
}

}  // extern "C"
