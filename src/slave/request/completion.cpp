// The completion calls over requests of any kind; see completion.h.
//
// A request is done on the slave's side when its kind says so (a send is
// buffered, so done when started; a receive once its data is copied; a
// schedule after its last step); the others wait for the master, which
// holds the messages, or for whatever completes them outside the master.
#include "slave/request/completion.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "slave/memory/dead_pages.h"
#include "slave/request/generalized_wait.h"
#include "slave/request/polling_pace.h"
#include "slave/request/request.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"
#include "slave/runtime/threads.h"
#include "slave/tool/counters.h"

namespace bdmpi {
namespace {

// Every test and wait first sends the sends that wait in the batch
// (Runtime::BatchedPosts): the request tested may be waiting for what
// another rank does with them.
void SendBatchedPosts() { Runtime::Instance()->SendBatch(); }

ReplyMsg AskMaster(MsgType type, std::uint64_t id) {
  return Runtime::Instance()->Call(ReceiveIdRequest(type, id));
}

// A test whose answer the rank knows without asking (Runtime::
// TestFindsNothing): a polling loop (MPI_Test until a message comes) would
// otherwise cost a round trip to the master, two system calls and two
// switches of the core, per call. `answered_here`: this test said "not
// yet" without the master (per thread: under MPI_THREAD_MULTIPLE each
// thread tests on its own).
//
// Every kAskMasterEveryLocalTests-th test in a row asks all the same,
// which blocks the rank for the master's answer: a rank that polls for
// long never holds its core for good. It costs a polling loop about one
// per cent (docs/data-path.md, "Tests without the master").
thread_local bool answered_here = false;
thread_local std::uint32_t answered_here_in_a_row = 0;
bool TestFindsNothingAtMaster() {
  if (!Runtime::Instance()->TestFindsNothing()) {
    if (answered_here_in_a_row != 0) tool::NoteLocalTests(answered_here_in_a_row = 0);
    return false;
  }
  tool::NoteLocalTests(++answered_here_in_a_row);
  if (answered_here_in_a_row % kAskMasterEveryLocalTests == 0) return false;
  answered_here = true;
  return true;
}

// Around a test call: when it said "not yet" without asking the master,
// another process that wants this core runs first (sched_yield), as it
// did while the master's answer blocked the rank: the sender, or the
// master that carries its message, may wait for one (on a loaded machine,
// Graph500 on 2 ranks polling without it took 1.4-1.7x main's time). A
// loop of such tests that has waited for long sleeps instead
// (PollingPace).
thread_local PollingPace pace;
class PacedTest {
 public:
  explicit PacedTest(const int* flag) : flag_(flag), start_(PollingPace::Clock::now()) {
    answered_here = false;
  }
  ~PacedTest() {
    bool vain = flag_ == nullptr || *flag_ == 0;
    auto end = PollingPace::Clock::now();
    if (answered_here && vain) {
      std::chrono::nanoseconds pause = pace.AfterVainTest(start_, end);
      if (pause.count() == 0)
        sched_yield();
      else
        std::this_thread::sleep_for(pause);
      pace.Paused(PollingPace::Clock::now());
    } else {
      pace.AfterTest(end, vain);
    }
    answered_here = false;
  }
  PacedTest(const PacedTest&) = delete;
  PacedTest& operator=(const PacedTest&) = delete;

 private:
  const int* flag_;
  PollingPace::Clock::time_point start_;
};

// Hands out a done request's status; a request that is not persistent is
// freed and its handle nulled. Returns the error class of the operation.
int Retire(MPI_Request* handle, MPI_Status* status) {
  Request& request = LookupRequest(*handle);
  if (request.persistent && !request.active) {  // MPI: like a null request
    SetEmptyStatus(status);
    return MPI_SUCCESS;
  }
  if (request.persistent) {
    request.active = false;  // the handle stays for the next MPI_Start
    return request.Complete(status);
  }
  std::unique_ptr<Request> owned = TakeRequest(*handle);
  *handle = MPI_REQUEST_NULL;
  return owned->Complete(status);
}

// Whether `request` (active, not done) waits for something other than the
// master, which has not happened yet.
bool PendingOutsideMaster(Request& request) {
  return request.CompletesOutsideMaster() && !request.Poll();
}

// Asks the master about several receives at once (WaitAny, TestAny,
// PollAny, TestAll); the ids travel as the request's payload.
// A WaitAny that other threads' calls must be able to end (threads.h)
// asks TestAny until one is complete, letting go of the rank's lock
// between two asks; the ids are staged again for each.
ReplyMsg CallWithIds(MsgType type, const std::vector<std::uint64_t>& ids) {
  Runtime* runtime = Runtime::Instance();
  if (type != MsgType::kWaitAny && TestFindsNothingAtMaster()) {
    ReplyMsg none;  // flag 0
    none.type = type;
    return none;
  }
  bool polled = type == MsgType::kWaitAny && !threads::MayBlockAtMaster();
  for (int round = 0;; ++round) {
    RequestMsg request;
    request.type = polled ? MsgType::kTestAny : type;
    runtime->StagePayload(ids.data(), ids.size() * sizeof(std::uint64_t), request);
    ReplyMsg reply = runtime->Call(request);
    if (!polled || reply.flag != 0) {
      reply.type = type;
      return reply;
    }
    threads::Unlocked unlocked;
    threads::Backoff(round);
  }
}

// The requests of an array as the multiple-completion calls see them.
struct RequestSet {
  std::vector<int> done;            // positions complete on our side
  std::vector<int> waiting;         // positions of receives the master holds
  std::vector<std::uint64_t> ids;   // their receive ids, in the same order
  // Requests completed outside the master that are not complete yet.
  bool outside_pending = false;
  bool empty() const { return done.empty() && waiting.empty() && !outside_pending; }
};

// `testing`: for a test, which leaves a request that TestHere pending.
RequestSet Classify(int count, const MPI_Request requests[], bool testing) {
  if (count < 0) throw Error(kErrCount, "negative count " + std::to_string(count));
  RequestSet set;
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    Request& request = LookupRequest(requests[i]);
    if (!request.active) continue;  // an inactive persistent request
    if (testing && request.TestHere()) {
      answered_here = true;
      set.outside_pending = true;
      continue;
    }
    request.ProgressAlone(/*wait=*/false);
    if (PendingOutsideMaster(request)) {
      set.outside_pending = true;
    } else if (request.done) {
      set.done.push_back(i);
    } else {
      set.waiting.push_back(i);
      set.ids.push_back(request.id);
    }
  }
  return set;
}

// MPI_Waitany / MPI_Testany: completes one request if one is complete
// (blocking until one is when `wait`).
int Any(bool wait, int count, MPI_Request requests[], int* index, int* flag,
        MPI_Status* status) {
  for (;;) {
    RequestSet set = Classify(count, requests, !wait);
    if (wait && set.outside_pending && set.done.empty()) {
      // Completed outside the master (by the program, or by polling): poll.
      int error = MPI_SUCCESS;
      PollUntilGeneralized([&] {
        error = Any(/*wait=*/false, count, requests, index, flag, status);
        return *flag != 0;
      });
      return error;
    }
    *flag = 1;
    if (!set.done.empty()) {
      *index = set.done.front();
      return Retire(&requests[*index], status);
    }
    *index = MPI_UNDEFINED;
    if (set.waiting.empty() && set.outside_pending) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    if (set.waiting.empty()) {  // only null requests
      SetEmptyStatus(status);
      return MPI_SUCCESS;
    }
    ReplyMsg reply = CallWithIds(wait ? MsgType::kWaitAny : MsgType::kTestAny, set.ids);
    if (reply.flag == 0) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    *index = set.waiting[static_cast<std::size_t>(reply.flag - 1)];
    Request& request = LookupRequest(requests[*index]);
    request.Absorb(reply);
    // A schedule with steps left: ask again (with its next receive).
    if (request.done) return Retire(&requests[*index], status);
  }
}

// MPI_Waitsome / MPI_Testsome: completes what is complete (at least one
// when `wait`), in increasing index order.
int Some(bool wait, int incount, MPI_Request requests[], int* outcount,
         int indices[], MPI_Status statuses[]) {
  RequestSet set = Classify(incount, requests, !wait);
  if (set.empty()) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  if (wait && set.outside_pending && set.done.empty()) {
    // Completed outside the master (by the program, or by polling): poll.
    int error = MPI_SUCCESS;
    PollUntilGeneralized([&] {
      error = Some(/*wait=*/false, incount, requests, outcount, indices, statuses);
      return *outcount > 0;
    });
    return error;
  }
  std::vector<int> completed = set.done;
  // The first question may block (or yield) only when nothing is complete
  // yet; the ones after it just collect what else the master has.
  MsgType ask = !completed.empty() ? MsgType::kPollAny
                                   : (wait ? MsgType::kWaitAny : MsgType::kTestAny);
  while (!set.ids.empty()) {
    ReplyMsg reply = CallWithIds(ask, set.ids);
    if (reply.flag == 0) break;
    std::size_t k = static_cast<std::size_t>(reply.flag - 1);
    Request& request = LookupRequest(requests[set.waiting[k]]);
    request.Absorb(reply);
    if (!request.done) {  // a schedule with steps left: its next receive
      set.ids[k] = request.id;
      continue;
    }
    completed.push_back(set.waiting[k]);
    set.waiting.erase(set.waiting.begin() + static_cast<std::ptrdiff_t>(k));
    set.ids.erase(set.ids.begin() + static_cast<std::ptrdiff_t>(k));
    ask = MsgType::kPollAny;
  }
  std::sort(completed.begin(), completed.end());
  bool failed = false;
  for (std::size_t j = 0; j < completed.size(); ++j) {
    indices[j] = completed[j];
    MPI_Status ignored;
    MPI_Status* status = statuses == MPI_STATUSES_IGNORE ? &ignored : &statuses[j];
    int error = Retire(&requests[completed[j]], status);
    status->MPI_ERROR = error;
    failed = failed || error != MPI_SUCCESS;
  }
  *outcount = static_cast<int>(completed.size());
  return failed ? kErrInStatus : MPI_SUCCESS;
}

// Completes what the master has of `request`'s steps without blocking;
// true when it is done.
bool TestSteps(Request& request) {
  if (request.active && request.TestHere()) {
    answered_here = true;
    return false;
  }
  if (request.active) request.ProgressAlone(/*wait=*/false);
  if (PendingOutsideMaster(request)) return false;
  while (!request.done) {
    if (TestFindsNothingAtMaster()) return false;
    ReplyMsg reply = AskMaster(MsgType::kTestRecv, request.id);
    if (!reply.flag) return false;
    request.Absorb(reply);
  }
  return true;
}

}  // namespace

int Test(MPI_Request* request, int* flag, MPI_Status* status) {
  RequireInitialized();
  SendBatchedPosts();
  *flag = 0;
  PacedTest paced(flag);
  if (*request == MPI_REQUEST_NULL) {
    *flag = 1;
    SetEmptyStatus(status);
    return MPI_SUCCESS;
  }
  if (!TestSteps(LookupRequest(*request))) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  *flag = 1;
  return Retire(request, status);
}

int Wait(MPI_Request* handle, MPI_Status* status) {
  RequireInitialized();
  SendBatchedPosts();
  if (*handle == MPI_REQUEST_NULL) {
    SetEmptyStatus(status);
    return MPI_SUCCESS;
  }
  Request& request = LookupRequest(*handle);
  if (request.active) request.ProgressAlone(/*wait=*/true);
  if (!request.done && request.CompletesOutsideMaster()) {
    request.Await();
  } else {
    while (!request.done)
      request.Absorb(memory::WaitWithDead(
          [&](memory::DeadWhileWaiting& dead) { request.AddOverwritten(dead); },
          [&] { return AskMaster(MsgType::kWaitRecv, request.id); }));
  }
  return Retire(handle, status);
}

int Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  RequireInitialized();
  if (count < 0) throw Error(kErrCount, "negative count " + std::to_string(count));
  bool failed = false;
  for (int i = 0; i < count; ++i) {
    MPI_Status ignored;
    MPI_Status* status = statuses == MPI_STATUSES_IGNORE ? &ignored : &statuses[i];
    int error = Wait(&requests[i], status);
    status->MPI_ERROR = error;
    failed = failed || error != MPI_SUCCESS;
  }
  return failed ? kErrInStatus : MPI_SUCCESS;
}

int Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  RequireInitialized();
  SendBatchedPosts();
  int flag = 0;
  return Any(/*wait=*/true, count, requests, index, &flag, status);
}

int Testany(int count, MPI_Request requests[], int* index, int* flag,
            MPI_Status* status) {
  RequireInitialized();
  SendBatchedPosts();
  *flag = 0;
  PacedTest paced(flag);
  return Any(/*wait=*/false, count, requests, index, flag, status);
}

int Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
             MPI_Status statuses[]) {
  RequireInitialized();
  SendBatchedPosts();
  return Some(/*wait=*/true, incount, requests, outcount, indices, statuses);
}

int Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
             MPI_Status statuses[]) {
  RequireInitialized();
  SendBatchedPosts();
  *outcount = 0;
  PacedTest paced(outcount);
  return Some(/*wait=*/false, incount, requests, outcount, indices, statuses);
}

int Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  RequireInitialized();
  SendBatchedPosts();
  *flag = 0;
  PacedTest paced(flag);
  // MPI: unless every request is complete, none may be completed. A
  // schedule may need several rounds (one per step); what a round absorbs
  // stays done on our side for the next call.
  for (RequestSet set = Classify(count, requests, true);
       !set.waiting.empty() || set.outside_pending; set = Classify(count, requests, true)) {
    if (set.outside_pending) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    if (!CallWithIds(MsgType::kTestAll, set.ids).flag) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    for (int position : set.waiting) {
      Request& request = LookupRequest(requests[position]);
      request.Absorb(AskMaster(MsgType::kWaitRecv, request.id));
    }
  }
  *flag = 1;
  bool failed = false;
  for (int i = 0; i < count; ++i) {
    MPI_Status ignored;
    MPI_Status* status = statuses == MPI_STATUSES_IGNORE ? &ignored : &statuses[i];
    int error = MPI_SUCCESS;
    if (requests[i] == MPI_REQUEST_NULL) {
      SetEmptyStatus(status);
    } else {
      error = Retire(&requests[i], status);
    }
    status->MPI_ERROR = error;
    failed = failed || error != MPI_SUCCESS;
  }
  return failed ? kErrInStatus : MPI_SUCCESS;
}

void Start(MPI_Request* handle) {
  RequireInitialized();
  Request& request = LookupRequest(*handle);
  if (!request.persistent) throw Error(kErrRequest, "MPI_Start of a non-persistent request");
  if (request.active) throw Error(kErrRequest, "MPI_Start of an active request");
  request.Start();
}

void RequestFree(MPI_Request* handle) {
  RequireInitialized();
  if (*handle == MPI_REQUEST_NULL)
    throw Error(kErrRequest, "MPI_Request_free of MPI_REQUEST_NULL");
  if (LookupRequest(*handle).Free()) FreeRequest(*handle);
  *handle = MPI_REQUEST_NULL;
}

void Cancel(MPI_Request* handle) {
  RequireInitialized();
  if (*handle == MPI_REQUEST_NULL) throw Error(kErrRequest, "MPI_Cancel of MPI_REQUEST_NULL");
  LookupRequest(*handle).Cancel();
}

int RequestGetStatus(MPI_Request handle, int* flag, MPI_Status* status) {
  RequireInitialized();
  SendBatchedPosts();
  *flag = 1;
  if (handle == MPI_REQUEST_NULL) {
    SetEmptyStatus(status);
    return MPI_SUCCESS;
  }
  Request& request = LookupRequest(handle);
  if (!request.active) {  // an inactive persistent request, like a null one
    SetEmptyStatus(status);
    return MPI_SUCCESS;
  }
  // The master hands each completion over once; the request keeps it
  // until MPI_Wait/MPI_Test retire it.
  if (!TestSteps(request)) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  return request.PeekStatus(status);
}

MPI_Comm RequestComm(MPI_Request request) {
  if (request == MPI_REQUEST_NULL) return MPI_COMM_WORLD;
  try {
    return LookupRequest(request).comm;
  } catch (const Error&) {
    return MPI_COMM_WORLD;
  }
}

MPI_Comm RequestsComm(int count, const MPI_Request requests[]) {
  for (int i = 0; i < count; ++i) {
    if (requests[i] != MPI_REQUEST_NULL) return RequestComm(requests[i]);
  }
  return MPI_COMM_WORLD;
}

}  // namespace bdmpi
