// MPI_Info objects: key/value lists local to the process. BDMPI takes no
// hints from them; they exist so that programs that pass them work.
#pragma once

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace bdmpi {

using InfoEntries = std::vector<std::pair<std::string, std::string>>;

MPI_Info NewInfo(InfoEntries entries = {});
// Throws kErrInfo for MPI_INFO_NULL, freed and non-info handles.
InfoEntries& LookupInfo(MPI_Info info);
// MPI_INFO_NULL or a valid info, as the calls that take hints accept.
void CheckInfoArgument(MPI_Info info);
// Sets the handle to MPI_INFO_NULL; MPI_INFO_ENV cannot be freed.
void FreeInfo(MPI_Info* info);
void SetInfo(MPI_Info info, const char* key, const char* value);
// The value of `key`, or nullptr.
const std::string* FindInfo(MPI_Info info, const char* key);
void DeleteInfo(MPI_Info info, const char* key);

}  // namespace bdmpi
