// The extern "C" one-sided entry points (MPI-3.1 chapter 11): thin
// wrappers over src/slave/rma. Errors go to the window's error handler
// (MPI_ERRORS_ARE_FATAL unless the program set another); errors of the
// calls that make a window go to the communicator's.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "common/error.h"
#include "slave/comm/attributes.h"
#include "slave/request/request.h"
#include "slave/runtime/errhandlers.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/info.h"
#include "slave/runtime/objects.h"
#include "slave/rma/operations.h"
#include "slave/rma/remote.h"
#include "slave/rma/sync.h"
#include "slave/rma/window.h"

using bdmpi::AttrKind;
using bdmpi::Error;
using bdmpi::rma::Window;

namespace {

// An error of `win` through its handler; of an invalid window through
// MPI_COMM_WORLD's (MPI-3.1 8.3), as Open MPI does.
int RaiseOnWin(MPI_Win win, const char* function, int error_class, const char* detail) {
  try {
    bdmpi::rma::LookupWindow(win);
  } catch (const Error&) {
    return bdmpi::RaiseError(function, MPI_COMM_WORLD, error_class, detail);
  }
  MPI_Errhandler handler = bdmpi::rma::WindowErrhandler(win);
  if (MPI_Win_errhandler_function* user = bdmpi::WinErrhandlerFunction(handler)) {
    int code = error_class;
    user(&win, &code);
    return error_class;
  }
  if (handler == MPI_ERRORS_ARE_FATAL || handler == MPI_ERRORS_RETURN ||
      handler == MPI_ERRORS_ABORT)
    return bdmpi::ApplyErrhandler(handler, function, error_class, detail);
  return bdmpi::ApplyErrhandler(MPI_ERRORS_ARE_FATAL, function, error_class, detail);
}

// Runs `body` on the live window `win` under its error handler.
template <class Body>
int WinCall(const char* function, MPI_Win win, Body&& body) {
  return bdmpi::GuardWith(
      [&](int error_class, const char* detail) { return RaiseOnWin(win, function, error_class, detail); },
      [&] {
        bdmpi::RequireInitialized();
        body(bdmpi::rma::LookupWindow(win));
      });
}

// A complete request: the operation is done when its call returns.
MPI_Request DoneRequest() {
  auto request = std::make_unique<bdmpi::Request>(MPI_COMM_SELF);
  request->done = true;
  request->status.MPI_SOURCE = MPI_ANY_SOURCE;
  request->status.MPI_TAG = MPI_ANY_TAG;
  return bdmpi::NewRequest(std::move(request));
}

void WinAttr(Window& win, int keyval, void* value, int* flag) {
  void* found = nullptr;
  *flag = 1;
  switch (keyval) {
    case MPI_WIN_BASE:
      found = win.base;
      break;
    case MPI_WIN_SIZE:
      found = &win.size_attr;
      break;
    case MPI_WIN_DISP_UNIT:
      found = &win.disp_unit;
      break;
    case MPI_WIN_CREATE_FLAVOR:
      found = &win.flavor_attr;
      break;
    case MPI_WIN_MODEL:
      found = &win.model_attr;
      break;
    default:
      *flag = bdmpi::GetAttr(AttrKind::kWin, win.handle, keyval, &found) ? 1 : 0;
  }
  if (*flag) *static_cast<void**>(value) = found;
}

// The request-based calls belong to passive-target epochs (MPI-3.1 11.3.5).
// A request-based operation's request is complete when it is returned: one
// on another node's target goes at once rather than with its batch.
void CompleteAtOnce(Window& win, int target) {
  if (target != MPI_PROC_NULL && bdmpi::rma::OnOtherNode(win, target))
    bdmpi::rma::FlushRemote(win, target, false);
}

void RequirePassive(const Window& win, int target, const char* call) {
  if (target == MPI_PROC_NULL || win.lock_all || win.locks.count(target) != 0) return;
  throw Error(MPI_ERR_RMA_SYNC, std::string(call) + " outside a passive-target epoch to rank " +
                                    std::to_string(target));
}

bool IsWinKey(int keyval) {
  return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE || keyval == MPI_WIN_DISP_UNIT ||
         keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
}

}  // namespace

extern "C" {

// ---------------------------------------------------------------- windows

#pragma weak MPI_Win_create = PMPI_Win_create
int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win* win) {
  return bdmpi::Guard("MPI_Win_create", comm, [&] {
    bdmpi::RequireInitialized();
    *win = bdmpi::rma::CreateWindow(base, size, disp_unit, info, comm);
  });
}

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                      MPI_Win* win) {
  return bdmpi::Guard("MPI_Win_allocate", comm, [&] {
    bdmpi::RequireInitialized();
    *win = bdmpi::rma::AllocateWindow(size, disp_unit, info, comm, false,
                                      static_cast<void**>(baseptr));
  });
}

#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void* baseptr, MPI_Win* win) {
  return bdmpi::Guard("MPI_Win_allocate_shared", comm, [&] {
    bdmpi::RequireInitialized();
    *win = bdmpi::rma::AllocateWindow(size, disp_unit, info, comm, true,
                                      static_cast<void**>(baseptr));
  });
}

#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  return WinCall("MPI_Win_shared_query", win, [&](Window& w) {
    bdmpi::rma::SharedQuery(w, rank, size, disp_unit, static_cast<void**>(baseptr));
  });
}

#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return bdmpi::Guard("MPI_Win_create_dynamic", comm, [&] {
    bdmpi::RequireInitialized();
    *win = bdmpi::rma::CreateDynamicWindow(info, comm);
  });
}

#pragma weak MPI_Win_attach = PMPI_Win_attach
int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  return WinCall("MPI_Win_attach", win, [&](Window& w) { bdmpi::rma::Attach(w, base, size); });
}

#pragma weak MPI_Win_detach = PMPI_Win_detach
int PMPI_Win_detach(MPI_Win win, const void* base) {
  return WinCall("MPI_Win_detach", win, [&](Window& w) { bdmpi::rma::Detach(w, base); });
}

#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win* win) {
  MPI_Win handle = win == nullptr ? MPI_WIN_NULL : *win;
  return WinCall("MPI_Win_free", handle, [&](Window&) { bdmpi::rma::FreeWindow(win); });
}

#pragma weak MPI_Win_get_group = PMPI_Win_get_group
int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  return WinCall("MPI_Win_get_group", win, [&](Window& w) {
    int code = PMPI_Comm_group(w.comm, group);
    if (code != MPI_SUCCESS) throw Error(code, "MPI_Comm_group failed");
  });
}

#pragma weak MPI_Win_set_info = PMPI_Win_set_info
int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  return WinCall("MPI_Win_set_info", win, [&](Window& w) {
    if (info == MPI_INFO_NULL) throw Error(MPI_ERR_INFO, "MPI_INFO_NULL is not an info object");
    bdmpi::rma::SetHints(w, info);
  });
}

#pragma weak MPI_Win_get_info = PMPI_Win_get_info
int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  return WinCall("MPI_Win_get_info", win,
                 [&](Window& w) { *info_used = bdmpi::rma::HintsOf(w); });
}

#pragma weak MPI_Win_set_name = PMPI_Win_set_name
int PMPI_Win_set_name(MPI_Win win, const char* win_name) {
  return WinCall("MPI_Win_set_name", win, [&](Window& w) {
    if (win_name == nullptr) throw Error(MPI_ERR_ARG, "no name given");
    w.name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
  });
}

#pragma weak MPI_Win_get_name = PMPI_Win_get_name
int PMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  if (win == MPI_WIN_NULL) {  // MPI-4.1 7.8: the null handle is named too
    std::snprintf(win_name, MPI_MAX_OBJECT_NAME, "MPI_WIN_NULL");
    *resultlen = static_cast<int>(std::strlen(win_name));
    return MPI_SUCCESS;
  }
  return WinCall("MPI_Win_get_name", win, [&](Window& w) {
    std::snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w.name.c_str());
    *resultlen = static_cast<int>(std::strlen(win_name));
  });
}

// ------------------------------------------------ attributes and keyvals

#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                           MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval,
                           void* extra_state) {
  return bdmpi::Guard("MPI_Win_create_keyval", MPI_COMM_WORLD, [&] {
    bdmpi::RequireInitialized();
    *win_keyval = bdmpi::CreateKeyval(
        AttrKind::kWin, reinterpret_cast<bdmpi::CopyAttrFunction*>(win_copy_attr_fn),
        reinterpret_cast<bdmpi::DeleteAttrFunction*>(win_delete_attr_fn), extra_state);
  });
}

#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval
int PMPI_Win_free_keyval(int* win_keyval) {
  return bdmpi::Guard("MPI_Win_free_keyval", MPI_COMM_WORLD, [&] {
    bdmpi::RequireInitialized();
    if (IsWinKey(*win_keyval))
      throw Error(MPI_ERR_KEYVAL, "a predefined keyval cannot be freed");
    bdmpi::FreeKeyval(AttrKind::kWin, win_keyval);
  });
}

#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr
int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  return WinCall("MPI_Win_set_attr", win, [&](Window& w) {
    if (IsWinKey(win_keyval))
      throw Error(MPI_ERR_KEYVAL, "a predefined window attribute cannot be set");
    bdmpi::SetAttr(AttrKind::kWin, w.handle, win_keyval, attribute_val);
  });
}

#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr
int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  return WinCall("MPI_Win_get_attr", win,
                 [&](Window& w) { WinAttr(w, win_keyval, attribute_val, flag); });
}

#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr
int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  return WinCall("MPI_Win_delete_attr", win, [&](Window& w) {
    if (IsWinKey(win_keyval))
      throw Error(MPI_ERR_KEYVAL, "a predefined window attribute cannot be deleted");
    bdmpi::DeleteAttr(AttrKind::kWin, w.handle, win_keyval);
  });
}

#pragma weak MPI_Win_null_copy_fn = PMPI_Win_null_copy_fn
int PMPI_Win_null_copy_fn(MPI_Win, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

#pragma weak MPI_Win_dup_fn = PMPI_Win_dup_fn
int PMPI_Win_dup_fn(MPI_Win, int, void*, void* attribute_val_in, void* attribute_val_out,
                    int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

#pragma weak MPI_Win_null_delete_fn = PMPI_Win_null_delete_fn
int PMPI_Win_null_delete_fn(MPI_Win, int, void*, void*) { return MPI_SUCCESS; }

// ------------------------------------------------------- error handlers

#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* win_errhandler_fn,
                               MPI_Errhandler* errhandler) {
  return bdmpi::Guard("MPI_Win_create_errhandler", MPI_COMM_WORLD, [&] {
    bdmpi::RequireInitialized();
    *errhandler = bdmpi::CreateWinErrhandler(win_errhandler_fn);
  });
}

#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  return WinCall("MPI_Win_set_errhandler", win, [&](Window& w) {
    bdmpi::CheckErrhandler(errhandler);
    if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN &&
        errhandler != MPI_ERRORS_ABORT && bdmpi::WinErrhandlerFunction(errhandler) == nullptr)
      throw Error(MPI_ERR_ARG, "not an error handler for windows (MPI_ERRORS_ARE_FATAL, "
                               "MPI_ERRORS_ABORT, MPI_ERRORS_RETURN or one from "
                               "MPI_Win_create_errhandler)");
    w.errhandler = errhandler;
  });
}

#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  return WinCall("MPI_Win_get_errhandler", win, [&](Window& w) {
    bdmpi::RetainErrhandler(w.errhandler);
    *errhandler = w.errhandler;
  });
}

#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  int code = WinCall("MPI_Win_call_errhandler", win, [](Window&) {});
  if (code != MPI_SUCCESS) return code;
  RaiseOnWin(win, "MPI_Win_call_errhandler", errorcode, "raised by the program");
  return MPI_SUCCESS;
}

// ------------------------------------------------------ communication

#pragma weak MPI_Put = PMPI_Put
int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win) {
  return WinCall("MPI_Put", win, [&](Window& w) {
    bdmpi::rma::Put(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype);
  });
}

#pragma weak MPI_Get = PMPI_Get
int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return WinCall("MPI_Get", win, [&](Window& w) {
    bdmpi::rma::Get(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype);
  });
}

#pragma weak MPI_Accumulate = PMPI_Accumulate
int PMPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return WinCall("MPI_Accumulate", win, [&](Window& w) {
    bdmpi::rma::GetAccumulate(w, origin_addr, origin_count, origin_datatype, nullptr, 0,
                              MPI_DATATYPE_NULL, target_rank, target_disp, target_count,
                              target_datatype, op);
  });
}

#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate
int PMPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void* result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return WinCall("MPI_Get_accumulate", win, [&](Window& w) {
    if (result_addr == nullptr && result_count > 0)
      throw Error(MPI_ERR_BUFFER, "MPI_Get_accumulate needs a result buffer");
    bdmpi::rma::GetAccumulate(w, origin_addr, origin_count, origin_datatype, result_addr,
                              result_count, result_datatype, target_rank, target_disp,
                              target_count, target_datatype, op);
  });
}

#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op
int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  return WinCall("MPI_Fetch_and_op", win, [&](Window& w) {
    if (result_addr == nullptr) throw Error(MPI_ERR_BUFFER, "MPI_Fetch_and_op needs a result buffer");
    bdmpi::rma::GetAccumulate(w, origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                              target_disp, 1, datatype, op);
  });
}

#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win) {
  return WinCall("MPI_Compare_and_swap", win, [&](Window& w) {
    bdmpi::rma::CompareAndSwap(w, origin_addr, compare_addr, result_addr, datatype, target_rank,
                               target_disp);
  });
}

#pragma weak MPI_Rput = PMPI_Rput
int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  return WinCall("MPI_Rput", win, [&](Window& w) {
    RequirePassive(w, target_rank, "MPI_Rput");
    bdmpi::rma::Put(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype);
    CompleteAtOnce(w, target_rank);
    *request = DoneRequest();
  });
}

#pragma weak MPI_Rget = PMPI_Rget
int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request* request) {
  return WinCall("MPI_Rget", win, [&](Window& w) {
    RequirePassive(w, target_rank, "MPI_Rget");
    bdmpi::rma::Get(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype);
    CompleteAtOnce(w, target_rank);
    *request = DoneRequest();
  });
}

#pragma weak MPI_Raccumulate = PMPI_Raccumulate
int PMPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request* request) {
  return WinCall("MPI_Raccumulate", win, [&](Window& w) {
    RequirePassive(w, target_rank, "MPI_Raccumulate");
    bdmpi::rma::GetAccumulate(w, origin_addr, origin_count, origin_datatype, nullptr, 0,
                              MPI_DATATYPE_NULL, target_rank, target_disp, target_count,
                              target_datatype, op);
    CompleteAtOnce(w, target_rank);
    *request = DoneRequest();
  });
}

#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate
int PMPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void* result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request* request) {
  return WinCall("MPI_Rget_accumulate", win, [&](Window& w) {
    RequirePassive(w, target_rank, "MPI_Rget_accumulate");
    bdmpi::rma::GetAccumulate(w, origin_addr, origin_count, origin_datatype, result_addr,
                              result_count, result_datatype, target_rank, target_disp,
                              target_count, target_datatype, op);
    CompleteAtOnce(w, target_rank);
    *request = DoneRequest();
  });
}

// ---------------------------------------------------- synchronization

#pragma weak MPI_Win_fence = PMPI_Win_fence
int PMPI_Win_fence(int assert, MPI_Win win) {
  return WinCall("MPI_Win_fence", win, [&](Window& w) { bdmpi::rma::Fence(w, assert); });
}

#pragma weak MPI_Win_post = PMPI_Win_post
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  return WinCall("MPI_Win_post", win, [&](Window& w) { bdmpi::rma::Post(w, group, assert); });
}

#pragma weak MPI_Win_start = PMPI_Win_start
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  return WinCall("MPI_Win_start", win, [&](Window& w) { bdmpi::rma::Start(w, group, assert); });
}

#pragma weak MPI_Win_complete = PMPI_Win_complete
int PMPI_Win_complete(MPI_Win win) {
  return WinCall("MPI_Win_complete", win, [&](Window& w) { bdmpi::rma::Complete(w); });
}

#pragma weak MPI_Win_wait = PMPI_Win_wait
int PMPI_Win_wait(MPI_Win win) {
  return WinCall("MPI_Win_wait", win, [&](Window& w) { bdmpi::rma::Wait(w); });
}

#pragma weak MPI_Win_test = PMPI_Win_test
int PMPI_Win_test(MPI_Win win, int* flag) {
  return WinCall("MPI_Win_test", win, [&](Window& w) { *flag = bdmpi::rma::Test(w) ? 1 : 0; });
}

#pragma weak MPI_Win_lock = PMPI_Win_lock
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  return WinCall("MPI_Win_lock", win,
                 [&](Window& w) { bdmpi::rma::Lock(w, lock_type, rank, assert); });
}

#pragma weak MPI_Win_unlock = PMPI_Win_unlock
int PMPI_Win_unlock(int rank, MPI_Win win) {
  return WinCall("MPI_Win_unlock", win, [&](Window& w) { bdmpi::rma::Unlock(w, rank); });
}

#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all
int PMPI_Win_lock_all(int assert, MPI_Win win) {
  return WinCall("MPI_Win_lock_all", win, [&](Window& w) { bdmpi::rma::LockAll(w, assert); });
}

#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
int PMPI_Win_unlock_all(MPI_Win win) {
  return WinCall("MPI_Win_unlock_all", win, [&](Window& w) { bdmpi::rma::UnlockAll(w); });
}

#pragma weak MPI_Win_flush = PMPI_Win_flush
int PMPI_Win_flush(int rank, MPI_Win win) {
  return WinCall("MPI_Win_flush", win, [&](Window& w) {
    if (rank != MPI_PROC_NULL) bdmpi::rma::Flush(w, rank, false);
  });
}

#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
int PMPI_Win_flush_all(MPI_Win win) {
  return WinCall("MPI_Win_flush_all", win, [&](Window& w) { bdmpi::rma::Flush(w, -1, false); });
}

#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
int PMPI_Win_flush_local(int rank, MPI_Win win) {
  return WinCall("MPI_Win_flush_local", win, [&](Window& w) {
    if (rank != MPI_PROC_NULL) bdmpi::rma::Flush(w, rank, true);
  });
}

#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
int PMPI_Win_flush_local_all(MPI_Win win) {
  return WinCall("MPI_Win_flush_local_all", win,
                 [&](Window& w) { bdmpi::rma::Flush(w, -1, true); });
}

#pragma weak MPI_Win_sync = PMPI_Win_sync
int PMPI_Win_sync(MPI_Win win) {
  return WinCall("MPI_Win_sync", win, [&](Window& w) { bdmpi::rma::Sync(w); });
}

}  // extern "C"
