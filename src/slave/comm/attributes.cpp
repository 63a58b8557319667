// Keyvals and attributes; see attributes.h.
#include "slave/comm/attributes.h"

#include <climits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "slave/runtime/errhandlers.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

// Keyval handles share the top byte of the predefined keys (MPI_TAG_UB is
// 0x64400001); user keyvals count up from 1, far below the predefined ones.
constexpr int kKeyvalTag = 0x64000000;
constexpr int kPredefinedKeyvalBit = 0x00400000;

struct Keyval {
  AttrKind kind;
  CopyAttrFunction* copy;
  DeleteAttrFunction* del;
  void* extra_state;
  bool freed = false;
  int uses = 0;  // attributes set with it; a freed keyval lives until 0
};

// An object's attributes in the order they were set.
using AttrList = std::vector<std::pair<int, void*>>;

struct AttrState {
  std::map<int, Keyval> keyvals;
  int next_keyval = 1;
  std::map<std::pair<AttrKind, int>, AttrList> attrs;
};

AttrState& State() {
  static AttrState state;
  return state;
}

const char* KindName(AttrKind kind) {
  switch (kind) {
    case AttrKind::kComm:
      return "communicator";
    case AttrKind::kType:
      return "datatype";
    case AttrKind::kWin:
      return "window";
  }
  return "object";
}

// The live keyval `keyval` of kind `kind`, or MPI_ERR_KEYVAL.
Keyval& CheckedKeyval(AttrKind kind, int keyval, bool allow_freed = false) {
  auto found = State().keyvals.find(keyval);
  if (found == State().keyvals.end() || (found->second.freed && !allow_freed))
    throw Error(MPI_ERR_KEYVAL, "invalid keyval " + std::to_string(keyval));
  if (found->second.kind != kind)
    throw Error(MPI_ERR_KEYVAL,
                "keyval " + std::to_string(keyval) + " was not made for a " + KindName(kind));
  return found->second;
}

void ReleaseUse(int keyval) {
  auto found = State().keyvals.find(keyval);
  if (found == State().keyvals.end()) return;
  if (--found->second.uses == 0 && found->second.freed) State().keyvals.erase(found);
}

AttrList::iterator FindAttr(AttrList& list, int keyval) {
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (it->first == keyval) return it;
  }
  return list.end();
}

// Runs keyval's delete callback on `value`; throws its error code.
void RunDelete(AttrKind kind, int object, int keyval, void* value) {
  Keyval& key = CheckedKeyval(kind, keyval, /*allow_freed=*/true);
  if (key.del == nullptr) return;
  int code = key.del(object, keyval, value, key.extra_state);
  if (code != MPI_SUCCESS)
    throw Error(code,
                std::string("the delete callback of a ") + KindName(kind) + " attribute failed");
}

// Removes the attribute (keyval) of object without running callbacks.
void Forget(AttrKind kind, int object, int keyval) {
  auto list = State().attrs.find({kind, object});
  if (list == State().attrs.end()) return;
  auto it = FindAttr(list->second, keyval);
  if (it == list->second.end()) return;
  list->second.erase(it);
  if (list->second.empty()) State().attrs.erase(list);
  ReleaseUse(keyval);
}

}  // namespace

int CreateKeyval(AttrKind kind, CopyAttrFunction* copy, DeleteAttrFunction* del,
                 void* extra_state) {
  AttrState& state = State();
  if (state.next_keyval >= kPredefinedKeyvalBit) throw Error(MPI_ERR_KEYVAL, "too many keyvals");
  int keyval = kKeyvalTag | state.next_keyval++;
  state.keyvals.emplace(keyval, Keyval{kind, copy, del, extra_state});
  return keyval;
}

void FreeKeyval(AttrKind kind, int* keyval) {
  if (IsPredefinedKeyval(*keyval))
    throw Error(MPI_ERR_KEYVAL, "a predefined keyval cannot be freed");
  // Freeing again while attributes still use it is harmless (MPICH counts
  // those uses as references, and programs free keyvals in delete
  // callbacks); once the last attribute is gone the keyval is.
  Keyval& key = CheckedKeyval(kind, *keyval, /*allow_freed=*/true);
  key.freed = true;
  if (key.uses == 0) State().keyvals.erase(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
}

void SetAttr(AttrKind kind, int object, int keyval, void* value) {
  if (IsPredefinedKeyval(keyval))
    throw Error(MPI_ERR_KEYVAL, "a predefined attribute cannot be set");
  Keyval& key = CheckedKeyval(kind, keyval);
  AttrList& list = State().attrs[{kind, object}];
  auto it = FindAttr(list, keyval);
  if (it == list.end()) {
    list.emplace_back(keyval, value);
    ++key.uses;
    return;
  }
  void* old = it->second;
  RunDelete(kind, object, keyval, old);
  // The callback may have changed the list: look the attribute up again.
  AttrList& again = State().attrs[{kind, object}];
  auto still = FindAttr(again, keyval);
  if (still != again.end()) {
    still->second = value;
  } else {
    again.emplace_back(keyval, value);
    ++CheckedKeyval(kind, keyval, true).uses;
  }
}

bool GetAttr(AttrKind kind, int object, int keyval, void** value) {
  // A freed keyval still names the attributes set with it (MPI-3.1 6.7.2).
  CheckedKeyval(kind, keyval, /*allow_freed=*/true);
  auto list = State().attrs.find({kind, object});
  if (list == State().attrs.end()) return false;
  auto it = FindAttr(list->second, keyval);
  if (it == list->second.end()) return false;
  *value = it->second;
  return true;
}

void DeleteAttr(AttrKind kind, int object, int keyval) {
  if (IsPredefinedKeyval(keyval))
    throw Error(MPI_ERR_KEYVAL, "a predefined attribute cannot be deleted");
  CheckedKeyval(kind, keyval, /*allow_freed=*/true);
  void* value = nullptr;
  if (!GetAttr(kind, object, keyval, &value))
    throw Error(MPI_ERR_KEYVAL, "no attribute is set with keyval " + std::to_string(keyval));
  RunDelete(kind, object, keyval, value);
  Forget(kind, object, keyval);
}

void CopyAttrs(AttrKind kind, int from, int to) {
  auto list = State().attrs.find({kind, from});
  if (list == State().attrs.end()) return;
  AttrList snapshot = list->second;  // callbacks may set attributes
  for (const auto& [keyval, value] : snapshot) {
    Keyval& key = CheckedKeyval(kind, keyval, /*allow_freed=*/true);
    if (key.copy == nullptr) continue;
    void* copied = nullptr;
    int flag = 0;
    int code = key.copy(from, keyval, key.extra_state, value, &copied, &flag);
    if (code != MPI_SUCCESS)
      throw Error(code,
                  std::string("the copy callback of a ") + KindName(kind) + " attribute failed");
    if (!flag) continue;
    AttrList& target = State().attrs[{kind, to}];
    target.emplace_back(keyval, copied);
    ++CheckedKeyval(kind, keyval, true).uses;
  }
}

void DeleteAllAttrs(AttrKind kind, int object) {
  for (;;) {
    auto list = State().attrs.find({kind, object});
    if (list == State().attrs.end() || list->second.empty()) {
      if (list != State().attrs.end()) State().attrs.erase(list);
      return;
    }
    auto [keyval, value] = list->second.back();
    RunDelete(kind, object, keyval, value);
    Forget(kind, object, keyval);
  }
}

bool IsPredefinedKeyval(int keyval) {
  return (keyval & ~0x00ffffff) == kKeyvalTag && (keyval & kPredefinedKeyvalBit) != 0;
}

bool GetPredefinedAttr(int keyval, void** value) {
  // The values of MPI_COMM_WORLD's predefined attributes (MPI-3.1 8.1.2),
  // which programs read through the pointer they get.
  static int tag_ub = INT_MAX;
  static int host = MPI_PROC_NULL;  // no rank is "the host"
  static int io = MPI_ANY_SOURCE;   // every rank can do I/O
  static int wtime_is_global = 0;   // clocks are per process
  static int universe_size = 0;
  static int appnum = 0;
  static int last_used_code = 0;
  switch (keyval) {
    case MPI_TAG_UB: *value = &tag_ub; return true;
    case MPI_HOST: *value = &host; return true;
    case MPI_IO: *value = &io; return true;
    case MPI_WTIME_IS_GLOBAL: *value = &wtime_is_global; return true;
    case MPI_UNIVERSE_SIZE:
      // How many ranks the job may hold, spawned ones included (--universe).
      universe_size = Runtime::Instance() != nullptr ? Runtime::Instance()->universe_size()
                                                     : LookupComm(MPI_COMM_WORLD).size;
      *value = &universe_size;
      return true;
    case MPI_APPNUM:
      // A spawned rank's command index; MPI_Comm_spawn_multiple's first is 0.
      appnum = Runtime::Instance() != nullptr && Runtime::Instance()->spawned()
                   ? Runtime::Instance()->spawned()->appnum
                   : 0;
      *value = &appnum;
      return true;
    case MPI_LASTUSEDCODE:
      last_used_code = LastUsedErrorCode();
      *value = &last_used_code;
      return true;
    default: return false;
  }
}

}  // namespace bdmpi
