#include "slave/info.h"

#include <cstring>
#include <optional>

#include "common/error.h"
#include "common/handles.h"

namespace bdmpi {
namespace {

static_assert(MPI_INFO_ENV == MakeHandle(HandleKind::kInfo, 0));

// Index 0 is MPI_INFO_ENV (empty: BDMPI has nothing to report there).
std::vector<std::optional<InfoEntries>>& Infos() {
  static std::vector<std::optional<InfoEntries>> infos(1, InfoEntries{});
  return infos;
}

std::string CheckedKey(const char* key) {
  std::size_t length = std::strlen(key);
  if (length == 0 || length > MPI_MAX_INFO_KEY)
    throw Error(MPI_ERR_INFO_KEY, "info keys have 1 to MPI_MAX_INFO_KEY characters");
  return key;
}

}  // namespace

MPI_Info NewInfo(InfoEntries entries) {
  std::vector<std::optional<InfoEntries>>& infos = Infos();
  std::size_t slot = 1;
  while (slot < infos.size() && infos[slot]) ++slot;
  if (slot == infos.size()) infos.emplace_back();
  if (slot > static_cast<std::size_t>(kHandleIndexMask))
    throw Error(kErrNoMem, "too many info objects");
  infos[slot] = std::move(entries);
  return MakeHandle(HandleKind::kInfo, static_cast<int>(slot));
}

InfoEntries& LookupInfo(MPI_Info info) {
  std::vector<std::optional<InfoEntries>>& infos = Infos();
  std::size_t slot = static_cast<std::size_t>(HandleIndex(info));
  if (!HandleIs(info, HandleKind::kInfo) || slot >= infos.size() || !infos[slot])
    throw Error(MPI_ERR_INFO, "invalid info object");
  return *infos[slot];
}

void CheckInfoArgument(MPI_Info info) {
  if (info != MPI_INFO_NULL) LookupInfo(info);
}

void FreeInfo(MPI_Info* info) {
  LookupInfo(*info);
  if (*info == MPI_INFO_ENV) throw Error(MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed");
  Infos()[static_cast<std::size_t>(HandleIndex(*info))].reset();
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
