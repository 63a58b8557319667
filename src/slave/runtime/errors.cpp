#include "slave/runtime/errors.h"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "common/handles.h"
#include "slave/runtime/errhandlers.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {

static_assert(MPI_ERR_TRUNCATE == kErrTruncate && MPI_ERR_RANK == kErrRank &&
              MPI_ERR_INTERN == kErrIntern && MPI_ERR_NO_SPACE == kErrNoSpace);

const char* ErrorClassString(int error_class) {
  switch (error_class) {
    case MPI_SUCCESS: return "MPI_SUCCESS: no errors";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER: invalid buffer pointer";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT: invalid count argument";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE: invalid datatype";
    case MPI_ERR_TAG: return "MPI_ERR_TAG: invalid tag";
    case MPI_ERR_COMM: return "MPI_ERR_COMM: invalid communicator";
    case MPI_ERR_RANK: return "MPI_ERR_RANK: invalid rank";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST: invalid request";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT: invalid root";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP: invalid group";
    case MPI_ERR_OP: return "MPI_ERR_OP: invalid reduce operation";
    case MPI_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY: invalid communicator topology";
    case MPI_ERR_DIMS: return "MPI_ERR_DIMS: invalid topology dimension";
    case MPI_ERR_ARG: return "MPI_ERR_ARG: invalid argument of some other kind";
    case MPI_ERR_UNKNOWN: return "MPI_ERR_UNKNOWN: unknown error";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE: message truncated";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER: known error not in this list";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN: internal error";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS: error code is in status";
    case MPI_ERR_PENDING: return "MPI_ERR_PENDING: pending request";
    case MPI_ERR_IO: return "MPI_ERR_IO: input/output error";
    case MPI_ERR_NO_MEM: return "MPI_ERR_NO_MEM: out of memory";
    case MPI_ERR_NO_SPACE: return "MPI_ERR_NO_SPACE: no space left (or a system limit reached)";
    case MPI_ERR_UNSUPPORTED_OPERATION:
      return "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported";
    // MPI-4's.
    case MPI_ERR_PROC_ABORTED: return "MPI_ERR_PROC_ABORTED: a process aborted";
    case MPI_ERR_SESSION: return "MPI_ERR_SESSION: invalid session";
    case MPI_ERR_VALUE_TOO_LARGE: return "MPI_ERR_VALUE_TOO_LARGE: value too large for its output";
    case MPI_ERR_ERRHANDLER: return "MPI_ERR_ERRHANDLER: invalid error handler";
    // MPI-IO's classes (src/slave/io).
    case MPI_ERR_ACCESS: return "MPI_ERR_ACCESS: permission denied";
    case MPI_ERR_AMODE: return "MPI_ERR_AMODE: invalid access mode";
    case MPI_ERR_BAD_FILE: return "MPI_ERR_BAD_FILE: invalid file name";
    case MPI_ERR_FILE_EXISTS: return "MPI_ERR_FILE_EXISTS: file exists";
    case MPI_ERR_FILE_IN_USE: return "MPI_ERR_FILE_IN_USE: file in use";
    case MPI_ERR_FILE: return "MPI_ERR_FILE: invalid file handle";
    case MPI_ERR_NO_SUCH_FILE: return "MPI_ERR_NO_SUCH_FILE: no such file or directory";
    case MPI_ERR_QUOTA: return "MPI_ERR_QUOTA: quota exceeded";
    case MPI_ERR_READ_ONLY: return "MPI_ERR_READ_ONLY: read-only file or file system";
    case MPI_ERR_UNSUPPORTED_DATAREP:
      return "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation";
    // One-sided communication's (slave/rma).
    case MPI_ERR_WIN: return "MPI_ERR_WIN: invalid window";
    case MPI_ERR_BASE: return "MPI_ERR_BASE: invalid base address";
    case MPI_ERR_SIZE: return "MPI_ERR_SIZE: invalid size";
    case MPI_ERR_DISP: return "MPI_ERR_DISP: invalid displacement";
    case MPI_ERR_LOCKTYPE: return "MPI_ERR_LOCKTYPE: invalid lock type";
    case MPI_ERR_ASSERT: return "MPI_ERR_ASSERT: invalid assertion";
    case MPI_ERR_RMA_CONFLICT: return "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window";
    case MPI_ERR_RMA_SYNC: return "MPI_ERR_RMA_SYNC: wrong synchronization of one-sided calls";
    case MPI_ERR_RMA_RANGE: return "MPI_ERR_RMA_RANGE: outside the target's window";
    case MPI_ERR_RMA_ATTACH: return "MPI_ERR_RMA_ATTACH: memory cannot be attached";
    case MPI_ERR_RMA_FLAVOR: return "MPI_ERR_RMA_FLAVOR: wrong flavor of window";
    case MPI_ERR_RMA_SHARED: return "MPI_ERR_RMA_SHARED: memory cannot be shared";
    // Dynamic processes' (slave/comm/dynamic.cpp).
    case MPI_ERR_SPAWN: return "MPI_ERR_SPAWN: processes could not be spawned";
    case MPI_ERR_PORT: return "MPI_ERR_PORT: invalid port name";
    case MPI_ERR_NAME: return "MPI_ERR_NAME: service name not published (or taken)";
    case MPI_ERR_SERVICE: return "MPI_ERR_SERVICE: the service name cannot be (un)published";
    // The tool interface's (slave/api/tool.cpp).
    case MPI_T_ERR_MEMORY: return "MPI_T_ERR_MEMORY: out of memory";
    case MPI_T_ERR_NOT_INITIALIZED: return "MPI_T_ERR_NOT_INITIALIZED: MPI_T_init_thread not called";
    case MPI_T_ERR_CANNOT_INIT: return "MPI_T_ERR_CANNOT_INIT: the tool interface cannot start";
    case MPI_T_ERR_INVALID_INDEX: return "MPI_T_ERR_INVALID_INDEX: no variable or category of that index";
    case MPI_T_ERR_INVALID_ITEM: return "MPI_T_ERR_INVALID_ITEM: no enumeration item of that index";
    case MPI_T_ERR_INVALID_HANDLE: return "MPI_T_ERR_INVALID_HANDLE: invalid handle";
    case MPI_T_ERR_OUT_OF_HANDLES: return "MPI_T_ERR_OUT_OF_HANDLES: no more handles";
    case MPI_T_ERR_OUT_OF_SESSIONS: return "MPI_T_ERR_OUT_OF_SESSIONS: no more sessions";
    case MPI_T_ERR_INVALID_SESSION: return "MPI_T_ERR_INVALID_SESSION: invalid session";
    case MPI_T_ERR_CVAR_SET_NOT_NOW: return "MPI_T_ERR_CVAR_SET_NOT_NOW: cannot be set now";
    case MPI_T_ERR_CVAR_SET_NEVER: return "MPI_T_ERR_CVAR_SET_NEVER: cannot be set (a job setting)";
    case MPI_T_ERR_PVAR_NO_STARTSTOP: return "MPI_T_ERR_PVAR_NO_STARTSTOP: continuous variable";
    case MPI_T_ERR_PVAR_NO_WRITE: return "MPI_T_ERR_PVAR_NO_WRITE: read-only variable";
    case MPI_T_ERR_PVAR_NO_ATOMIC: return "MPI_T_ERR_PVAR_NO_ATOMIC: no atomic read and reset";
    case MPI_T_ERR_INVALID_NAME: return "MPI_T_ERR_INVALID_NAME: no variable or category of that name";
    case MPI_T_ERR_INVALID: return "MPI_T_ERR_INVALID: invalid argument";
    case MPI_T_ERR_NOT_SUPPORTED: return "MPI_T_ERR_NOT_SUPPORTED: not supported";
    case MPI_T_ERR_NOT_ACCESSIBLE: return "MPI_T_ERR_NOT_ACCESSIBLE: not accessible";
    default: break;
  }
  if (error_class > 0 && error_class <= MPI_ERR_LASTCODE)
    return "MPI error (see the MPI standard's list of error classes)";
  const std::string* added = AddedErrorString(error_class);
  return added != nullptr ? added->c_str() : nullptr;
}

void RequireInitialized() {
  if (Runtime::Instance() == nullptr)
    throw Error(kErrOther, "MPI is not initialized (called before MPI_Init or "
                           "after MPI_Finalize)");
}

int RaiseError(const char* function, MPI_Comm comm, int error_class,
               const char* detail) {
  MPI_Errhandler handler = MPI_ERRORS_ARE_FATAL;
  // Errors on an invalid communicator go to MPI_COMM_WORLD's handler.
  MPI_Comm handled = MPI_COMM_WORLD;
  for (MPI_Comm candidate : {comm, MPI_COMM_WORLD}) {
    try {
      handler = LookupComm(candidate).errhandler;
      handled = candidate;
      break;
    } catch (const Error&) {
    }
  }
  if (MPI_Comm_errhandler_function* user = ErrhandlerFunction(handler)) {
    int code = error_class;
    user(&handled, &code);
    return error_class;
  }
  return ApplyErrhandler(handler, function, error_class, detail);
}

namespace {
thread_local const char* call_name = nullptr;
}  // namespace

CallName::CallName(const char* name) : previous_(call_name) { call_name = name; }
CallName::~CallName() { call_name = previous_; }

int ApplyErrhandler(MPI_Errhandler handler, const char* function, int error_class,
                    const char* detail) {
  if (handler == MPI_ERRORS_RETURN) return error_class;
  if (call_name != nullptr) function = call_name;
  Runtime* runtime = Runtime::Instance();
  std::string rank = runtime ? std::to_string(runtime->world_rank()) : "?";
  const char* text = ErrorClassString(error_class);
  // MPI_ERRORS_ABORT aborts the object's group; any abort ends the whole
  // job here, so it does what MPI_ERRORS_ARE_FATAL does.
  std::fprintf(stderr, "BDMPI: rank %s: %s: %s (%s); %s ends the job\n", rank.c_str(),
               function, detail, text ? text : "?",
               handler == MPI_ERRORS_ABORT ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL");
  std::fflush(stderr);
  if (runtime != nullptr) runtime->Abort(error_class);
  _exit(error_class != 0 ? error_class : 1);
}

}  // namespace bdmpi
