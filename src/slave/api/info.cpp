// The extern "C" entry points of MPI_Info objects (MPI-3.1 chapter 9,
// MPI-4's MPI_Info_create_env and MPI_Info_get_string); see
// runtime/info.h.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "common/error.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/info.h"

using bdmpi::Error;
using bdmpi::Guard;

extern "C" {

#pragma weak MPI_Info_create = PMPI_Info_create
int PMPI_Info_create(MPI_Info* info) {
  return Guard("MPI_Info_create", MPI_COMM_WORLD, [&] { *info = bdmpi::NewInfo(); });
}

#pragma weak MPI_Info_free = PMPI_Info_free
int PMPI_Info_free(MPI_Info* info) {
  return Guard("MPI_Info_free", MPI_COMM_WORLD, [&] { bdmpi::FreeInfo(info); });
}

#pragma weak MPI_Info_dup = PMPI_Info_dup
int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  return Guard("MPI_Info_dup", MPI_COMM_WORLD,
               [&] { *newinfo = bdmpi::NewInfo(bdmpi::LookupInfo(info)); });
}

#pragma weak MPI_Info_set = PMPI_Info_set
int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  return Guard("MPI_Info_set", MPI_COMM_WORLD, [&] { bdmpi::SetInfo(info, key, value); });
}

#pragma weak MPI_Info_get = PMPI_Info_get
int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  return Guard("MPI_Info_get", MPI_COMM_WORLD, [&] {
    if (valuelen < 0) throw Error(bdmpi::kErrArg, "negative valuelen");
    const std::string* found = bdmpi::FindInfo(info, key);
    *flag = found != nullptr;
    if (found == nullptr) return;
    // MPI: at most valuelen characters, plus the terminating null.
    std::size_t length = std::min<std::size_t>(found->size(), static_cast<std::size_t>(valuelen));
    std::memcpy(value, found->data(), length);
    value[length] = '\0';
  });
}

#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  return Guard("MPI_Info_get_valuelen", MPI_COMM_WORLD, [&] {
    const std::string* found = bdmpi::FindInfo(info, key);
    *flag = found != nullptr;
    if (found != nullptr) *valuelen = static_cast<int>(found->size());
  });
}

#pragma weak MPI_Info_delete = PMPI_Info_delete
int PMPI_Info_delete(MPI_Info info, const char* key) {
  return Guard("MPI_Info_delete", MPI_COMM_WORLD, [&] { bdmpi::DeleteInfo(info, key); });
}

#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  return Guard("MPI_Info_get_nkeys", MPI_COMM_WORLD, [&] {
    *nkeys = static_cast<int>(bdmpi::LookupInfo(info).size());
  });
}

#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  return Guard("MPI_Info_get_nthkey", MPI_COMM_WORLD, [&] {
    const bdmpi::InfoEntries& entries = bdmpi::LookupInfo(info);
    if (n < 0 || n >= static_cast<int>(entries.size()))
      throw Error(bdmpi::kErrArg, "no info key number " + std::to_string(n));
    std::snprintf(key, MPI_MAX_INFO_KEY + 1, "%s", entries[n].first.c_str());
  });
}

#pragma weak MPI_Info_create_env = PMPI_Info_create_env
int PMPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  (void)argc;
  (void)argv;
  // MPI-4.0 9.3: a copy of MPI_INFO_ENV, callable before MPI_Init too.
  return Guard("MPI_Info_create_env", MPI_COMM_WORLD,
               [&] { *info = bdmpi::NewInfo(bdmpi::LookupInfo(MPI_INFO_ENV)); });
}

#pragma weak MPI_Info_get_string = PMPI_Info_get_string
int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  return Guard("MPI_Info_get_string", MPI_COMM_WORLD, [&] {
    const std::string* found = bdmpi::FindInfo(info, key);
    *flag = found != nullptr;
    if (found == nullptr) return;
    // MPI-4.0 9.4: at most *buflen - 1 characters and the null; *buflen
    // becomes the length the whole value needs.
    int room = *buflen;
    if (room > 0) {
      std::size_t length = std::min<std::size_t>(found->size(), static_cast<std::size_t>(room - 1));
      std::memcpy(value, found->data(), length);
      value[length] = '\0';
    }
    *buflen = static_cast<int>(found->size()) + 1;
  });
}

}  // extern "C"
