// The extern "C" entry points of the tool interface (MPI-4.1 chapter 15):
// control and performance variables, categories, enumerations, sessions
// and handles over the tables of slave/tool/variables.h, and events over
// slave/tool/events.h. Local calls that
// need no master, valid before MPI_Init and after MPI_Finalize; they return
// MPI_T_ERR_* classes and call no error handler. One lock guards the
// sessions and handles, so every thread may call them
// (MPI_THREAD_MULTIPLE for the tool interface).
#include <mpi.h>

#include <algorithm>
#include <limits>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "slave/runtime/info.h"
#include "slave/runtime/threads.h"
#include "slave/tool/events.h"
#include "slave/tool/variables.h"

// The opaque types mpi.h names.
struct bdmpi_t_enum_s {
  int index;
};
struct bdmpi_t_cvar_handle_s {
  int index;
  int count;
};
struct bdmpi_t_pvar_session_s;
struct bdmpi_t_pvar_handle_s {
  bdmpi_t_pvar_session_s* session;
  int index;
  // A counter's value through this handle: what it counted while started,
  // `accumulated` from earlier starts (or a write) plus the counter's rise
  // since `base` while started.
  bool started;
  std::uint64_t accumulated;
  std::uint64_t base;
};
struct bdmpi_t_pvar_session_s {
  std::vector<std::unique_ptr<bdmpi_t_pvar_handle_s>> handles;
};

namespace {

using bdmpi::tool::Categories;
using bdmpi::tool::ControlVariables;
using bdmpi::tool::Enumerations;
using bdmpi::tool::PerformanceVariable;
using bdmpi::tool::PerformanceVariables;

struct State {
  std::mutex lock;
  int initialized = 0;  // MPI_T_init_thread calls not yet finalized
  std::vector<bdmpi_t_enum_s> enumerations;
  std::map<bdmpi_t_cvar_handle_s*, std::unique_ptr<bdmpi_t_cvar_handle_s>> cvar_handles;
  std::map<bdmpi_t_pvar_session_s*, std::unique_ptr<bdmpi_t_pvar_session_s>> sessions;
};

State& TheState() {
  static State state;
  return state;
}

// Runs `body` under the lock when the interface is initialized; memory
// exhaustion becomes MPI_T_ERR_MEMORY.
template <typename F>
int Locked(F body) {
  State& state = TheState();
  std::lock_guard<std::mutex> hold(state.lock);
  if (state.initialized == 0) return MPI_T_ERR_NOT_INITIALIZED;
  try {
    return body(state);
  } catch (const std::bad_alloc&) {
    return MPI_T_ERR_MEMORY;
  } catch (...) {
    return MPI_T_ERR_INVALID;
  }
}

// MPI_T's strings: with no buffer (or a length of 0) only the length
// needed, with its NUL; else at most *len - 1 characters, NUL-terminated,
// and *len the characters written with the NUL.
void CopyOut(const std::string& text, char* out, int* len) {
  if (len == nullptr) return;
  if (out == nullptr || *len <= 0) {
    *len = static_cast<int>(text.size()) + 1;
    return;
  }
  std::size_t n = std::min(text.size(), static_cast<std::size_t>(*len - 1));
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
  *len = static_cast<int>(n) + 1;
}

template <typename T>
void Set(T* out, T value) {
  if (out != nullptr) *out = value;
}

template <typename Table>
bool ValidIndex(const Table& table, int index) {
  return index >= 0 && static_cast<std::size_t>(index) < table.size();
}

// The *_get_index calls: the index of the first entry of `table` named
// `name` for which `also` holds.
template <typename Table, typename Also>
int IndexByName(const Table& table, const char* name, int* index, Also also) {
  if (name == nullptr || index == nullptr) return MPI_T_ERR_INVALID;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].name == name && also(table[i])) {
      *index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}

// The *_get_num calls: how many entries `table` has.
template <typename Table>
int TableSize(const Table& table, int* count) {
  if (count == nullptr) return MPI_T_ERR_INVALID;
  *count = static_cast<int>(table.size());
  return MPI_SUCCESS;
}
template <typename Table>
int IndexByName(const Table& table, const char* name, int* index) {
  return IndexByName(table, name, index, [](const auto&) { return true; });
}

const PerformanceVariable& PvarOf(const bdmpi_t_pvar_handle_s& handle) {
  return PerformanceVariables()[static_cast<std::size_t>(handle.index)];
}

std::uint64_t Raw(const PerformanceVariable& pvar) { return pvar.read(pvar.which); }

std::uint64_t Value(const bdmpi_t_pvar_handle_s& handle) {
  const PerformanceVariable& pvar = PvarOf(handle);
  if (pvar.continuous) return Raw(pvar);
  return handle.accumulated + (handle.started ? Raw(pvar) - handle.base : 0);
}

bdmpi_t_pvar_session_s* FindSession(State& state, MPI_T_pvar_session session) {
  auto found = state.sessions.find(session);
  return found == state.sessions.end() ? nullptr : found->second.get();
}

// The session's handle, or nullptr when it is not one of the session's.
bdmpi_t_pvar_handle_s* FindHandle(bdmpi_t_pvar_session_s& session, MPI_T_pvar_handle handle) {
  for (const auto& owned : session.handles)
    if (owned.get() == handle) return owned.get();
  return nullptr;
}

// Applies `action` to one handle of a session, or to every handle with
// MPI_T_PVAR_ALL_HANDLES (where the handles it does not apply to, which
// `skip` names, are left alone).
template <typename Action, typename Skip>
int OnHandles(MPI_T_pvar_session session, MPI_T_pvar_handle handle, Action action, Skip skip) {
  return Locked([&](State& state) {
    bdmpi_t_pvar_session_s* owner = FindSession(state, session);
    if (owner == nullptr) return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
      for (const auto& each : owner->handles)
        if (!skip(*each)) action(*each);
      return MPI_SUCCESS;
    }
    bdmpi_t_pvar_handle_s* found = FindHandle(*owner, handle);
    if (found == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    return action(*found);
  });
}

bool Continuous(const bdmpi_t_pvar_handle_s& handle) { return PvarOf(handle).continuous; }

void Start(bdmpi_t_pvar_handle_s& handle) {
  if (handle.started) return;
  handle.base = Raw(PvarOf(handle));
  handle.started = true;
}

void Stop(bdmpi_t_pvar_handle_s& handle) {
  if (!handle.started) return;
  handle.accumulated += Raw(PvarOf(handle)) - handle.base;
  handle.started = false;
}

void Write(bdmpi_t_pvar_handle_s& handle, std::uint64_t value) {
  handle.accumulated = value;
  handle.base = Raw(PvarOf(handle));
}

int Indices(const std::vector<int>& from, int len, int indices[]) {
  if (len < 0 || (len > 0 && indices == nullptr)) return MPI_T_ERR_INVALID;
  std::size_t n = std::min(from.size(), static_cast<std::size_t>(len));
  std::copy_n(from.begin(), n, indices);
  return MPI_SUCCESS;
}

using bdmpi::tool::EventTypes;
using bdmpi::tool::Registration;

// MPI_Info objects live in the runtime's handle table, which at
// MPI_THREAD_MULTIPLE the rank's lock guards: these run outside the tool
// interface's lock (a callback inside an MPI call may call MPI_T).
int NewEmptyInfo(MPI_Info* info) {
  if (info == nullptr) return MPI_SUCCESS;
  try {
    bdmpi::threads::Entry entry;
    *info = bdmpi::NewInfo();
    return MPI_SUCCESS;
  } catch (const std::bad_alloc&) {
    return MPI_T_ERR_MEMORY;
  } catch (...) {
    return MPI_T_ERR_INVALID;
  }
}

// BDMPI takes no hints for events; an argument must still be an info.
bool ValidInfo(MPI_Info info) {
  try {
    bdmpi::threads::Entry entry;
    bdmpi::CheckInfoArgument(info);
    return true;
  } catch (...) {
    return false;
  }
}

bool ValidSafety(int safety) {
  return safety >= MPI_T_CB_REQUIRE_NONE && safety <= MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
}

// The one timestamp source (index 0): CLOCK_MONOTONIC in nanoseconds.
constexpr int kSources = 1;

// An event instance is valid only in its callback; nothing else can tell
// a live one from a stale pointer, so only NULL is refused.
int CheckInstance(MPI_T_event_instance instance) {
  if (instance == nullptr || instance->event < 0 || instance->event >= bdmpi::tool::kEventCount)
    return MPI_T_ERR_INVALID_HANDLE;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

#pragma weak MPI_T_init_thread = PMPI_T_init_thread
int PMPI_T_init_thread(int required, int* provided) {
  State& state = TheState();
  std::lock_guard<std::mutex> hold(state.lock);
  try {
    if (state.enumerations.empty()) {
      for (std::size_t i = 0; i < Enumerations().size(); ++i)
        state.enumerations.push_back({static_cast<int>(i)});
    }
  } catch (const std::bad_alloc&) {
    return MPI_T_ERR_MEMORY;
  }
  ++state.initialized;
  Set(provided, std::clamp(required, MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE));
  return MPI_SUCCESS;
}

#pragma weak MPI_T_finalize = PMPI_T_finalize
int PMPI_T_finalize(void) {
  return Locked([](State& state) {
    // The last matching call frees what the tool left allocated.
    if (--state.initialized == 0) {
      state.cvar_handles.clear();
      state.sessions.clear();
      // Dropped under this lock: only registrations never freed are left,
      // and those have no free callback to run.
      bdmpi::tool::TakeAllRegistrations();
    }
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_enum_get_info = PMPI_T_enum_get_info
int PMPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  return Locked([&](State& state) {
    if (enumtype == nullptr || !ValidIndex(state.enumerations, enumtype->index) ||
        enumtype != &state.enumerations[static_cast<std::size_t>(enumtype->index)])
      return MPI_T_ERR_INVALID_HANDLE;
    const auto& enumeration = Enumerations()[static_cast<std::size_t>(enumtype->index)];
    Set(num, static_cast<int>(enumeration.items.size()));
    CopyOut(enumeration.name, name, name_len);
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_enum_get_item = PMPI_T_enum_get_item
int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name,
                         int* name_len) {
  return Locked([&](State& state) {
    if (enumtype == nullptr || !ValidIndex(state.enumerations, enumtype->index) ||
        enumtype != &state.enumerations[static_cast<std::size_t>(enumtype->index)])
      return MPI_T_ERR_INVALID_HANDLE;
    const auto& enumeration = Enumerations()[static_cast<std::size_t>(enumtype->index)];
    // MPI-4 deprecates MPI_T_ERR_INVALID_ITEM for this; Open MPI gives INVALID_INDEX.
    if (!ValidIndex(enumeration.items, index)) return MPI_T_ERR_INVALID_INDEX;
    Set(value, index);
    CopyOut(enumeration.items[static_cast<std::size_t>(index)], name, name_len);
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_cvar_get_num = PMPI_T_cvar_get_num
int PMPI_T_cvar_get_num(int* num_cvar) {
  return Locked([&](State&) { return TableSize(ControlVariables(), num_cvar); });
}

#pragma weak MPI_T_cvar_get_info = PMPI_T_cvar_get_info
int PMPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity,
                         MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc,
                         int* desc_len, int* bind, int* scope) {
  return Locked([&](State& state) {
    if (!ValidIndex(ControlVariables(), cvar_index)) return MPI_T_ERR_INVALID_INDEX;
    const auto& cvar = ControlVariables()[static_cast<std::size_t>(cvar_index)];
    CopyOut(cvar.name, name, name_len);
    Set(verbosity, MPI_T_VERBOSITY_USER_BASIC);
    Set(datatype, bdmpi::tool::DatatypeOf(cvar));
    Set(enumtype, cvar.enumeration >= 0
                      ? &state.enumerations[static_cast<std::size_t>(cvar.enumeration)]
                      : MPI_T_ENUM_NULL);
    CopyOut(cvar.description, desc, desc_len);
    Set(bind, MPI_T_BIND_NO_OBJECT);
    // Set when the job starts and the same on every rank of a node.
    Set(scope, MPI_T_SCOPE_CONSTANT);
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_cvar_get_index = PMPI_T_cvar_get_index
int PMPI_T_cvar_get_index(const char* name, int* cvar_index) {
  return Locked([&](State&) { return IndexByName(ControlVariables(), name, cvar_index); });
}

#pragma weak MPI_T_cvar_handle_alloc = PMPI_T_cvar_handle_alloc
int PMPI_T_cvar_handle_alloc(int cvar_index, void*, MPI_T_cvar_handle* handle, int* count) {
  return Locked([&](State& state) {
    if (!ValidIndex(ControlVariables(), cvar_index)) return MPI_T_ERR_INVALID_INDEX;
    if (handle == nullptr || count == nullptr) return MPI_T_ERR_INVALID;
    const auto& cvar = ControlVariables()[static_cast<std::size_t>(cvar_index)];
    auto owned = std::make_unique<bdmpi_t_cvar_handle_s>(
        bdmpi_t_cvar_handle_s{cvar_index, bdmpi::tool::CountOf(cvar)});
    *handle = owned.get();
    *count = owned->count;
    state.cvar_handles.emplace(owned.get(), std::move(owned));
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_cvar_handle_free = PMPI_T_cvar_handle_free
int PMPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  return Locked([&](State& state) {
    if (handle == nullptr || state.cvar_handles.erase(*handle) == 0)
      return MPI_T_ERR_INVALID_HANDLE;
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_cvar_read = PMPI_T_cvar_read
int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  return Locked([&](State& state) {
    if (state.cvar_handles.count(handle) == 0) return MPI_T_ERR_INVALID_HANDLE;
    if (buf == nullptr) return MPI_T_ERR_INVALID;
    const auto& cvar = ControlVariables()[static_cast<std::size_t>(handle->index)];
    bdmpi::tool::ReadControl(cvar, buf, handle->count);
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_cvar_write = PMPI_T_cvar_write
int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void*) {
  return Locked([&](State& state) {
    if (state.cvar_handles.count(handle) == 0) return MPI_T_ERR_INVALID_HANDLE;
    // A job's settings are fixed when its ranks start: bdmpiexec's options.
    return MPI_T_ERR_CVAR_SET_NEVER;
  });
}

#pragma weak MPI_T_pvar_get_num = PMPI_T_pvar_get_num
int PMPI_T_pvar_get_num(int* num_pvar) {
  return Locked([&](State&) { return TableSize(PerformanceVariables(), num_pvar); });
}

#pragma weak MPI_T_pvar_get_info = PMPI_T_pvar_get_info
int PMPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity,
                         int* var_class, MPI_Datatype* datatype, MPI_T_enum* enumtype,
                         char* desc, int* desc_len, int* bind, int* readonly, int* continuous,
                         int* atomic) {
  return Locked([&](State&) {
    if (!ValidIndex(PerformanceVariables(), pvar_index)) return MPI_T_ERR_INVALID_INDEX;
    const auto& pvar = PerformanceVariables()[static_cast<std::size_t>(pvar_index)];
    CopyOut(pvar.name, name, name_len);
    Set(verbosity, MPI_T_VERBOSITY_USER_BASIC);
    Set(var_class, pvar.var_class);
    Set(datatype, MPI_UNSIGNED_LONG_LONG);
    Set(enumtype, MPI_T_ENUM_NULL);
    CopyOut(pvar.description, desc, desc_len);
    Set(bind, MPI_T_BIND_NO_OBJECT);
    // A counter's value is the handle's own, which may be written; a
    // level is the rank's, read only.
    Set(readonly, pvar.continuous ? 1 : 0);
    Set(continuous, pvar.continuous ? 1 : 0);
    Set(atomic, 1);  // under the interface's lock
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_pvar_get_index = PMPI_T_pvar_get_index
int PMPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  return Locked([&](State&) {
    return IndexByName(PerformanceVariables(), name, pvar_index,
                       [&](const auto& pvar) { return pvar.var_class == var_class; });
  });
}

#pragma weak MPI_T_pvar_session_create = PMPI_T_pvar_session_create
int PMPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  return Locked([&](State& state) {
    if (session == nullptr) return MPI_T_ERR_INVALID;
    auto owned = std::make_unique<bdmpi_t_pvar_session_s>();
    *session = owned.get();
    state.sessions.emplace(owned.get(), std::move(owned));
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_pvar_session_free = PMPI_T_pvar_session_free
int PMPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  return Locked([&](State& state) {
    if (session == nullptr || state.sessions.erase(*session) == 0)
      return MPI_T_ERR_INVALID_SESSION;
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_pvar_handle_alloc = PMPI_T_pvar_handle_alloc
int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void*,
                             MPI_T_pvar_handle* handle, int* count) {
  return Locked([&](State& state) {
    bdmpi_t_pvar_session_s* owner = FindSession(state, session);
    if (owner == nullptr) return MPI_T_ERR_INVALID_SESSION;
    if (!ValidIndex(PerformanceVariables(), pvar_index)) return MPI_T_ERR_INVALID_INDEX;
    if (handle == nullptr || count == nullptr) return MPI_T_ERR_INVALID;
    auto owned = std::make_unique<bdmpi_t_pvar_handle_s>(
        bdmpi_t_pvar_handle_s{owner, pvar_index, false, 0, 0});
    // A continuous variable counts from the start; the others from
    // MPI_T_pvar_start.
    *handle = owned.get();
    *count = 1;
    owner->handles.push_back(std::move(owned));
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_pvar_handle_free = PMPI_T_pvar_handle_free
int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  return Locked([&](State& state) {
    bdmpi_t_pvar_session_s* owner = FindSession(state, session);
    if (owner == nullptr) return MPI_T_ERR_INVALID_SESSION;
    if (handle == nullptr || FindHandle(*owner, *handle) == nullptr)
      return MPI_T_ERR_INVALID_HANDLE;
    std::erase_if(owner->handles, [&](const auto& owned) { return owned.get() == *handle; });
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_pvar_start = PMPI_T_pvar_start
int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return OnHandles(
      session, handle,
      [](bdmpi_t_pvar_handle_s& h) {
        if (Continuous(h)) return MPI_T_ERR_PVAR_NO_STARTSTOP;
        Start(h);
        return MPI_SUCCESS;
      },
      Continuous);
}

#pragma weak MPI_T_pvar_stop = PMPI_T_pvar_stop
int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return OnHandles(
      session, handle,
      [](bdmpi_t_pvar_handle_s& h) {
        if (Continuous(h)) return MPI_T_ERR_PVAR_NO_STARTSTOP;
        Stop(h);
        return MPI_SUCCESS;
      },
      Continuous);
}

#pragma weak MPI_T_pvar_read = PMPI_T_pvar_read
int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  if (handle == MPI_T_PVAR_ALL_HANDLES) return MPI_T_ERR_INVALID_HANDLE;
  return OnHandles(
      session, handle,
      [&](bdmpi_t_pvar_handle_s& h) {
        if (buf == nullptr) return MPI_T_ERR_INVALID;
        unsigned long long value = Value(h);
        std::memcpy(buf, &value, sizeof value);
        return MPI_SUCCESS;
      },
      Continuous);
}

#pragma weak MPI_T_pvar_write = PMPI_T_pvar_write
int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  if (handle == MPI_T_PVAR_ALL_HANDLES) return MPI_T_ERR_INVALID_HANDLE;
  return OnHandles(
      session, handle,
      [&](bdmpi_t_pvar_handle_s& h) {
        if (Continuous(h)) return MPI_T_ERR_PVAR_NO_WRITE;
        if (buf == nullptr) return MPI_T_ERR_INVALID;
        unsigned long long value = 0;
        std::memcpy(&value, buf, sizeof value);
        Write(h, value);
        return MPI_SUCCESS;
      },
      Continuous);
}

#pragma weak MPI_T_pvar_reset = PMPI_T_pvar_reset
int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return OnHandles(
      session, handle,
      [](bdmpi_t_pvar_handle_s& h) {
        if (Continuous(h)) return MPI_T_ERR_PVAR_NO_WRITE;
        Write(h, 0);
        return MPI_SUCCESS;
      },
      Continuous);
}

#pragma weak MPI_T_pvar_readreset = PMPI_T_pvar_readreset
int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  if (handle == MPI_T_PVAR_ALL_HANDLES) return MPI_T_ERR_INVALID_HANDLE;
  return OnHandles(
      session, handle,
      [&](bdmpi_t_pvar_handle_s& h) {
        if (Continuous(h)) return MPI_T_ERR_PVAR_NO_WRITE;
        if (buf == nullptr) return MPI_T_ERR_INVALID;
        unsigned long long value = Value(h);
        std::memcpy(buf, &value, sizeof value);
        Write(h, 0);
        return MPI_SUCCESS;
      },
      Continuous);
}

#pragma weak MPI_T_category_get_num = PMPI_T_category_get_num
int PMPI_T_category_get_num(int* num_cat) {
  return Locked([&](State&) { return TableSize(Categories(), num_cat); });
}

#pragma weak MPI_T_category_get_info = PMPI_T_category_get_info
int PMPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc,
                             int* desc_len, int* num_cvars, int* num_pvars,
                             int* num_categories) {
  return Locked([&](State&) {
    if (!ValidIndex(Categories(), cat_index)) return MPI_T_ERR_INVALID_INDEX;
    const auto& category = Categories()[static_cast<std::size_t>(cat_index)];
    CopyOut(category.name, name, name_len);
    CopyOut(category.description, desc, desc_len);
    Set(num_cvars, static_cast<int>(category.cvars.size()));
    Set(num_pvars, static_cast<int>(category.pvars.size()));
    Set(num_categories, static_cast<int>(category.categories.size()));
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_category_get_index = PMPI_T_category_get_index
int PMPI_T_category_get_index(const char* name, int* cat_index) {
  return Locked([&](State&) { return IndexByName(Categories(), name, cat_index); });
}

#pragma weak MPI_T_category_get_cvars = PMPI_T_category_get_cvars
int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  return Locked([&](State&) {
    if (!ValidIndex(Categories(), cat_index)) return MPI_T_ERR_INVALID_INDEX;
    return Indices(Categories()[static_cast<std::size_t>(cat_index)].cvars, len, indices);
  });
}

#pragma weak MPI_T_category_get_pvars = PMPI_T_category_get_pvars
int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  return Locked([&](State&) {
    if (!ValidIndex(Categories(), cat_index)) return MPI_T_ERR_INVALID_INDEX;
    return Indices(Categories()[static_cast<std::size_t>(cat_index)].pvars, len, indices);
  });
}

#pragma weak MPI_T_category_get_categories = PMPI_T_category_get_categories
int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  return Locked([&](State&) {
    if (!ValidIndex(Categories(), cat_index)) return MPI_T_ERR_INVALID_INDEX;
    return Indices(Categories()[static_cast<std::size_t>(cat_index)].categories, len, indices);
  });
}

#pragma weak MPI_T_category_changed = PMPI_T_category_changed
int PMPI_T_category_changed(int* update_number) {
  return Locked([&](State&) {
    if (update_number == nullptr) return MPI_T_ERR_INVALID;
    *update_number = 0;  // the tables are fixed for the process's life
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_category_get_num_events = PMPI_T_category_get_num_events
int PMPI_T_category_get_num_events(int cat_index, int* num_events) {
  return Locked([&](State&) {
    if (!ValidIndex(Categories(), cat_index)) return MPI_T_ERR_INVALID_INDEX;
    if (num_events == nullptr) return MPI_T_ERR_INVALID;
    *num_events = static_cast<int>(Categories()[static_cast<std::size_t>(cat_index)].events.size());
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_category_get_events = PMPI_T_category_get_events
int PMPI_T_category_get_events(int cat_index, int len, int indices[]) {
  return Locked([&](State&) {
    if (!ValidIndex(Categories(), cat_index)) return MPI_T_ERR_INVALID_INDEX;
    return Indices(Categories()[static_cast<std::size_t>(cat_index)].events, len, indices);
  });
}

#pragma weak MPI_T_source_get_num = PMPI_T_source_get_num
int PMPI_T_source_get_num(int* num_sources) {
  return Locked([&](State&) {
    if (num_sources == nullptr) return MPI_T_ERR_INVALID;
    *num_sources = kSources;
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_source_get_info = PMPI_T_source_get_info
int PMPI_T_source_get_info(int source_index, char* name, int* name_len, char* desc,
                           int* desc_len, MPI_T_source_order* ordering,
                           MPI_Count* ticks_per_second, MPI_Count* max_ticks, MPI_Info* info) {
  int rc = Locked([&](State&) {
    if (source_index < 0 || source_index >= kSources) return MPI_T_ERR_INVALID_INDEX;
    CopyOut("bdmpi_monotonic_ns", name, name_len);
    CopyOut("this node's CLOCK_MONOTONIC in nanoseconds: the time of every BDMPI event; "
            "events reach each thread's callbacks in order, the threads among themselves "
            "in no order",
            desc, desc_len);
    // Ordered per thread only: events of two threads may reach their
    // callbacks in either order.
    Set(ordering, MPI_T_SOURCE_UNORDERED);
    Set(ticks_per_second, static_cast<MPI_Count>(1000000000));
    Set(max_ticks, std::numeric_limits<MPI_Count>::max());
    return MPI_SUCCESS;
  });
  return rc == MPI_SUCCESS ? NewEmptyInfo(info) : rc;
}

#pragma weak MPI_T_source_get_timestamp = PMPI_T_source_get_timestamp
int PMPI_T_source_get_timestamp(int source_index, MPI_Count* timestamp) {
  return Locked([&](State&) {
    if (source_index < 0 || source_index >= kSources) return MPI_T_ERR_INVALID_INDEX;
    if (timestamp == nullptr) return MPI_T_ERR_INVALID;
    *timestamp = static_cast<MPI_Count>(bdmpi::tool::EventClock());
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_event_get_num = PMPI_T_event_get_num
int PMPI_T_event_get_num(int* num_events) {
  return Locked([&](State&) { return TableSize(EventTypes(), num_events); });
}

#pragma weak MPI_T_event_get_info = PMPI_T_event_get_info
int PMPI_T_event_get_info(int event_index, char* name, int* name_len, int* verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int* num_elements, MPI_T_enum* enumtype, MPI_Info* info, char* desc,
                          int* desc_len, int* bind) {
  int rc = Locked([&](State&) {
    if (!ValidIndex(EventTypes(), event_index)) return MPI_T_ERR_INVALID_INDEX;
    const auto& type = EventTypes()[static_cast<std::size_t>(event_index)];
    CopyOut(type.name, name, name_len);
    Set(verbosity, MPI_T_VERBOSITY_USER_BASIC);
    // num_elements says on input how many the arrays hold.
    if (num_elements != nullptr) {
      std::size_t room = static_cast<std::size_t>(std::max(*num_elements, 0));
      for (std::size_t i = 0; i < type.elements.size() && i < room; ++i) {
        if (array_of_datatypes != nullptr) array_of_datatypes[i] = type.elements[i].type;
        if (array_of_displacements != nullptr)
          array_of_displacements[i] = static_cast<MPI_Aint>(type.elements[i].offset);
      }
      *num_elements = static_cast<int>(type.elements.size());
    }
    Set(enumtype, MPI_T_ENUM_NULL);
    CopyOut(type.description, desc, desc_len);
    Set(bind, MPI_T_BIND_NO_OBJECT);
    return MPI_SUCCESS;
  });
  return rc == MPI_SUCCESS ? NewEmptyInfo(info) : rc;
}

#pragma weak MPI_T_event_get_index = PMPI_T_event_get_index
int PMPI_T_event_get_index(const char* name, int* event_index) {
  return Locked([&](State&) { return IndexByName(EventTypes(), name, event_index); });
}

#pragma weak MPI_T_event_handle_alloc = PMPI_T_event_handle_alloc
int PMPI_T_event_handle_alloc(int event_index, void*, MPI_Info info,
                              MPI_T_event_registration* event_registration) {
  if (!ValidInfo(info)) return MPI_T_ERR_INVALID;
  return Locked([&](State&) {
    if (!ValidIndex(EventTypes(), event_index)) return MPI_T_ERR_INVALID_INDEX;
    if (event_registration == nullptr) return MPI_T_ERR_INVALID;
    *event_registration = bdmpi::tool::AddRegistration(event_index);
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_event_handle_set_info = PMPI_T_event_handle_set_info
int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info) {
  int rc = Locked([&](State&) {
    return bdmpi::tool::FindRegistration(event_registration) ? MPI_SUCCESS
                                                             : MPI_T_ERR_INVALID_HANDLE;
  });
  if (rc != MPI_SUCCESS) return rc;
  return ValidInfo(info) ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}

#pragma weak MPI_T_event_handle_get_info = PMPI_T_event_handle_get_info
int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration,
                                 MPI_Info* info_used) {
  int rc = Locked([&](State&) {
    if (!bdmpi::tool::FindRegistration(event_registration)) return MPI_T_ERR_INVALID_HANDLE;
    return info_used == nullptr ? MPI_T_ERR_INVALID : MPI_SUCCESS;
  });
  // No hint is used: a new, empty info.
  return rc == MPI_SUCCESS ? NewEmptyInfo(info_used) : rc;
}

#pragma weak MPI_T_event_register_callback = PMPI_T_event_register_callback
int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void* user_data,
                                   MPI_T_event_cb_function event_cb_function) {
  if (!ValidInfo(info)) return MPI_T_ERR_INVALID;
  return Locked([&](State&) {
    Registration registration = bdmpi::tool::FindRegistration(event_registration);
    if (!registration) return MPI_T_ERR_INVALID_HANDLE;
    if (!ValidSafety(cb_safety)) return MPI_T_ERR_INVALID;
    // A null function takes the level's callback away.
    bdmpi::tool::SetCallback(registration, cb_safety, event_cb_function, user_data);
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_event_callback_set_info = PMPI_T_event_callback_set_info
int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info) {
  int rc = Locked([&](State&) {
    Registration registration = bdmpi::tool::FindRegistration(event_registration);
    if (!registration) return MPI_T_ERR_INVALID_HANDLE;
    return ValidSafety(cb_safety) ? MPI_SUCCESS : MPI_T_ERR_INVALID;
  });
  if (rc != MPI_SUCCESS) return rc;
  return ValidInfo(info) ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}

#pragma weak MPI_T_event_callback_get_info = PMPI_T_event_callback_get_info
int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info* info_used) {
  int rc = Locked([&](State&) {
    Registration registration = bdmpi::tool::FindRegistration(event_registration);
    if (!registration) return MPI_T_ERR_INVALID_HANDLE;
    if (!ValidSafety(cb_safety) || info_used == nullptr) return MPI_T_ERR_INVALID;
    return MPI_SUCCESS;
  });
  return rc == MPI_SUCCESS ? NewEmptyInfo(info_used) : rc;
}

#pragma weak MPI_T_event_handle_free = PMPI_T_event_handle_free
int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void* user_data,
                             MPI_T_event_free_cb_function free_cb_function) {
  Registration taken;
  int rc = Locked([&](State&) {
    taken = bdmpi::tool::TakeRegistration(event_registration);
    if (!taken) return MPI_T_ERR_INVALID_HANDLE;
    taken->free_function = free_cb_function;
    taken->free_data = user_data;
    return MPI_SUCCESS;
  });
  // Outside the lock: the free callback runs here, or when a delivery
  // under way in another thread (or this one's callback) lets it go.
  taken.reset();
  return rc;
}

#pragma weak MPI_T_event_set_dropped_handler = PMPI_T_event_set_dropped_handler
int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function) {
  return Locked([&](State&) {
    Registration registration = bdmpi::tool::FindRegistration(event_registration);
    if (!registration) return MPI_T_ERR_INVALID_HANDLE;
    bdmpi::tool::SetDroppedHandler(registration, dropped_cb_function);
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_event_read = PMPI_T_event_read
int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void* buffer) {
  return Locked([&](State&) {
    if (int rc = CheckInstance(event_instance); rc != MPI_SUCCESS) return rc;
    const auto& type = EventTypes()[static_cast<std::size_t>(event_instance->event)];
    if (!ValidIndex(type.elements, element_index)) return MPI_T_ERR_INVALID_INDEX;
    if (buffer == nullptr) return MPI_T_ERR_INVALID;
    const auto& element = type.elements[static_cast<std::size_t>(element_index)];
    std::size_t bytes = element.type == MPI_INT ? sizeof(int) : sizeof(unsigned long long);
    std::memcpy(buffer, event_instance->data + element.offset, bytes);
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_event_copy = PMPI_T_event_copy
int PMPI_T_event_copy(MPI_T_event_instance event_instance, void* buffer) {
  return Locked([&](State&) {
    if (int rc = CheckInstance(event_instance); rc != MPI_SUCCESS) return rc;
    if (buffer == nullptr) return MPI_T_ERR_INVALID;
    const auto& type = EventTypes()[static_cast<std::size_t>(event_instance->event)];
    std::memcpy(buffer, event_instance->data, type.bytes);
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_event_get_timestamp = PMPI_T_event_get_timestamp
int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count* event_timestamp) {
  return Locked([&](State&) {
    if (int rc = CheckInstance(event_instance); rc != MPI_SUCCESS) return rc;
    if (event_timestamp == nullptr) return MPI_T_ERR_INVALID;
    *event_timestamp = static_cast<MPI_Count>(event_instance->timestamp);
    return MPI_SUCCESS;
  });
}

#pragma weak MPI_T_event_get_source = PMPI_T_event_get_source
int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int* source_index) {
  return Locked([&](State&) {
    if (int rc = CheckInstance(event_instance); rc != MPI_SUCCESS) return rc;
    if (source_index == nullptr) return MPI_T_ERR_INVALID;
    *source_index = 0;
    return MPI_SUCCESS;
  });
}

}  // extern "C"
