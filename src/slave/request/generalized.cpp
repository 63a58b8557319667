// Generalized requests; see generalized.h.
#include "slave/request/generalized.h"

#include <memory>
#include <utility>

#include "common/error.h"
#include "slave/request/generalized_wait.h"
#include "slave/request/request.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"

namespace bdmpi {
namespace {

class GeneralizedRequest : public Request {
 public:
  explicit GeneralizedRequest(MPI_Comm comm_handle)
      : Request(comm_handle), state(std::make_shared<GeneralizedState>()) {
    SetEmptyStatus(&status);
  }

  // Shared with the thread that may complete it (generalized_wait.h).
  std::shared_ptr<GeneralizedState> state;
  MPI_Request handle = MPI_REQUEST_NULL;  // its own, for that registry

  bool CompletesOutsideMaster() const override { return true; }

  bool Poll() override {
    if (!done) done = state->progress ? state->progress(false) : GeneralizedComplete(*state);
    return done;
  }

  void Await() override {
    if (state->progress) {
      done = state->progress(true);
      return;
    }
    AwaitGeneralized(*state);
    done = true;
  }

  int Complete(MPI_Status* out) override {
    ForgetGeneralized(handle);
    MPI_Status queried;
    SetEmptyStatus(&queried);
    if (state->query == nullptr) {  // the runtime's own: no callbacks
      CopyResult(out, queried);
      return MPI_SUCCESS;
    }
    int error = state->query(state->extra_state, &queried);
    if (out != MPI_STATUS_IGNORE) *out = queried;
    int free_error = state->free(state->extra_state);
    return error != MPI_SUCCESS ? error : free_error;
  }

  int PeekStatus(MPI_Status* out) override {
    if (state->query == nullptr) return Request::PeekStatus(out);
    MPI_Status queried = status;
    int error = state->query(state->extra_state, &queried);
    if (out != MPI_STATUS_IGNORE) *out = queried;
    return error;
  }

  void Cancel() override {
    if (state->cancel == nullptr) return;  // the runtime's own
    int error = state->cancel(state->extra_state, Poll() ? 1 : 0);
    if (error != MPI_SUCCESS) throw Error(error, "the generalized request's cancel function failed");
  }

  bool Free() override {
    // The runtime's own (no free function) are not completed by the
    // program. One the program has yet to complete stays until
    // MPI_Grequest_complete, which frees it.
    if (state->free == nullptr) return true;
    if (!FreeGeneralizedLater(handle)) return false;
    state->free(state->extra_state);
    return true;
  }
};

}  // namespace

MPI_Request GrequestStart(MPI_Grequest_query_function* query, MPI_Grequest_free_function* free,
                          MPI_Grequest_cancel_function* cancel, void* extra_state) {
  RequireInitialized();
  auto request = std::make_unique<GeneralizedRequest>(MPI_COMM_WORLD);
  GeneralizedState& state = *request->state;
  state.query = query;
  state.free = free;
  state.cancel = cancel;
  state.extra_state = extra_state;
  GeneralizedRequest* made = request.get();
  made->handle = NewRequest(std::move(request));
  RegisterGeneralized(made->handle, made->state);
  return made->handle;
}

void GrequestComplete(MPI_Request request) {
  // Possibly on another thread: nothing here touches the request table
  // (generalized_wait.h). Freed by the program already: its free function
  // runs now, and the main thread releases the slot.
  if (std::shared_ptr<GeneralizedState> freed = CompleteGeneralized(request))
    freed->free(freed->extra_state);
}

MPI_Request NewPolledRequest(std::function<bool(bool wait)> progress, MPI_Comm comm) {
  auto request = std::make_unique<GeneralizedRequest>(comm);
  request->state->progress = std::move(progress);
  GeneralizedRequest* made = request.get();
  made->handle = NewRequest(std::move(request));
  return made->handle;
}

}  // namespace bdmpi
