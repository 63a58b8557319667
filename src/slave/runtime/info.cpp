#include "slave/runtime/info.h"

#include <cstring>

#include "common/error.h"
#include "common/handles.h"
#include "slave/runtime/handle_table.h"

namespace bdmpi {
namespace {

static_assert(MPI_INFO_ENV == MakeHandle(HandleKind::kInfo, 0));

// MPI_INFO_ENV (index 0, empty: BDMPI has nothing to report there) is not
// in the table.
HandleTable<InfoEntries>& Infos() {
  static HandleTable<InfoEntries> infos(HandleKind::kInfo, 1);
  return infos;
}

std::string CheckedKey(const char* key) {
  std::size_t length = std::strlen(key);
  if (length == 0 || length > MPI_MAX_INFO_KEY)
    throw Error(MPI_ERR_INFO_KEY, "info keys have 1 to MPI_MAX_INFO_KEY characters");
  return key;
}

}  // namespace

MPI_Info NewInfo(InfoEntries entries) { return Infos().Add(std::move(entries)); }

InfoEntries& LookupInfo(MPI_Info info) {
  static InfoEntries env;
  if (info == MPI_INFO_ENV) return env;
  InfoEntries* entries = Infos().Find(info);
  if (entries == nullptr) throw Error(MPI_ERR_INFO, "invalid info object");
  return *entries;
}

void CheckInfoArgument(MPI_Info info) {
  if (info != MPI_INFO_NULL) LookupInfo(info);
}

void FreeInfo(MPI_Info* info) {
  LookupInfo(*info);
  if (*info == MPI_INFO_ENV) throw Error(MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed");
  Infos().Remove(*info);
  *info = MPI_INFO_NULL;
}

void SetInfo(MPI_Info info, const char* key, const char* value) {
  InfoEntries& entries = LookupInfo(info);
  std::string name = CheckedKey(key);
  if (std::strlen(value) > MPI_MAX_INFO_VAL)
    throw Error(MPI_ERR_INFO_VALUE, "info values have at most MPI_MAX_INFO_VAL characters");
  for (auto& [existing, old_value] : entries) {
    if (existing == name) {
      old_value = value;
      return;
    }
  }
  entries.emplace_back(name, value);
}

const std::string* FindInfo(MPI_Info info, const char* key) {
  std::string name = CheckedKey(key);
  for (const auto& [existing, value] : LookupInfo(info)) {
    if (existing == name) return &value;
  }
  return nullptr;
}

void DeleteInfo(MPI_Info info, const char* key) {
  InfoEntries& entries = LookupInfo(info);
  std::string name = CheckedKey(key);
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if (it->first == name) {
      entries.erase(it);
      return;
    }
  }
  throw Error(MPI_ERR_INFO_NOKEY, "no such info key: " + name);
}

}  // namespace bdmpi
