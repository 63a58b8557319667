// The tool interface's events (MPI-4.1 15.3.8, MPI_T_event_*): what
// happened to this rank that a tool may want to see as it happens. The
// runtime raises them where they happen (RaiseEvent, a flag test when no
// tool registered a callback for the event); each thread keeps the events
// it raised and hands them to the registered callbacks when its outermost
// MPI call returns (EventScope in GuardWith, slave/runtime/errors.h), after
// the rank's lock is released, so a callback may do whatever the program
// could do there: it runs at MPI_T_CB_REQUIRE_NONE. Events of one thread
// reach its callbacks in the order of their timestamps.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bdmpi::tool {

enum class Event : int {
  kSwitchedOut,  // SwitchedOutData
  kResumed,      // ResumedData
  kWrittenBack,  // WrittenBackData
  kReadBack,     // ReadBackData
  kSpilled,      // SpilledData
};
inline constexpr int kEventCount = 5;

// Each event's elements, as MPI_T_event_read and MPI_T_event_copy give
// them (the displacements of MPI_T_event_get_info are these offsets).
struct SwitchedOutData {
  std::uint64_t switches;  // times this rank gave up its slot, this one too
};
struct ResumedData {
  std::uint64_t waited_ns;  // from the blocking request to its answer
  std::uint64_t switches;
};
struct WrittenBackData {
  std::uint64_t bytes;    // written to the rank's storage file
  std::uint64_t dropped;  // resident, dropped (clean ones without a write)
};
struct ReadBackData {
  std::uint64_t bytes;
};
struct SpilledData {
  std::uint64_t bytes;
  std::int32_t point_to_point;  // 1: a send's message; 0: a collective's or a request's data
};

struct EventElement {
  MPI_Datatype type;
  std::size_t offset;
};

struct EventType {
  std::string name;
  std::string description;
  int category;  // index in Categories() (slave/tool/variables.h)
  std::vector<EventElement> elements;
  std::size_t bytes;  // of the element block
};

const std::vector<EventType>& EventTypes();

// The events' one timestamp source: CLOCK_MONOTONIC in nanoseconds.
std::uint64_t EventClock();

// Whether a registration of `event` has a callback: the runtime skips the
// work of raising an event nobody waits for.
bool EventWanted(Event event);

// Keeps the event for the thread's callbacks (dropped, and counted for the
// dropped handlers, past kPendingCap undelivered ones).
void RaiseEvent(Event event, std::uint64_t timestamp, const void* data, std::size_t bytes);
template <typename Data>
void RaiseEvent(Event event, const Data& data, std::uint64_t timestamp = EventClock()) {
  if (EventWanted(event)) RaiseEvent(event, timestamp, &data, sizeof data);
}
inline constexpr std::size_t kPendingCap = 1024;

// Counts the thread's MPI calls under way; the outermost one delivers the
// thread's events as it ends.
class EventScope {
 public:
  EventScope() { ++depth_; }
  ~EventScope() {
    if (--depth_ == 0 && pending_) Deliver();
  }
  EventScope(const EventScope&) = delete;
  EventScope& operator=(const EventScope&) = delete;

  static void Deliver();

 private:
  friend void RaiseEvent(Event, std::uint64_t, const void*, std::size_t);
  static thread_local int depth_;
  static thread_local bool pending_;
};

}  // namespace bdmpi::tool

// The handles mpi.h names. A registration is shared by the table and any
// delivery under way, so that a handle freed during a callback lives until
// the callback returns; its free callback runs when it goes.
struct bdmpi_t_event_registration_s {
  struct Callback {
    MPI_T_event_cb_function* function = nullptr;
    void* user_data = nullptr;
  };
  int event = 0;
  Callback callbacks[4];  // by MPI_T_cb_safety
  MPI_T_event_dropped_cb_function* dropped = nullptr;
  MPI_T_event_free_cb_function* free_function = nullptr;
  void* free_data = nullptr;

  bdmpi_t_event_registration_s() = default;
  bdmpi_t_event_registration_s(const bdmpi_t_event_registration_s&) = delete;
  bdmpi_t_event_registration_s& operator=(const bdmpi_t_event_registration_s&) = delete;
  ~bdmpi_t_event_registration_s() {
    if (free_function != nullptr) free_function(this, MPI_T_CB_REQUIRE_NONE, free_data);
  }
  // The callback to call where any may run: the one registered at the
  // lowest safety level (the least restricted one), or nullptr.
  const Callback* Chosen() const;
};

struct bdmpi_t_event_instance_s {
  int event;
  std::uint64_t timestamp;
  alignas(8) unsigned char data[24];
};

namespace bdmpi::tool {

using Registration = std::shared_ptr<bdmpi_t_event_registration_s>;

// The registrations (MPI_T_event_handle_alloc .. _free). Each call takes
// the table's own lock; none runs user code under it.
MPI_T_event_registration AddRegistration(int event);
// The registration, or nullptr when `handle` is not a live one.
Registration FindRegistration(MPI_T_event_registration handle);
// Sets the callback for `safety` (nullptr: none).
void SetCallback(const Registration& registration, int safety,
                 MPI_T_event_cb_function* function, void* user_data);
void SetDroppedHandler(const Registration& registration,
                       MPI_T_event_dropped_cb_function* function);
// Takes the registration out of the table: the caller drops it outside
// every lock (its free callback may call MPI_T).
Registration TakeRegistration(MPI_T_event_registration handle);
// The last MPI_T_finalize: every registration goes.
std::vector<Registration> TakeAllRegistrations();

}  // namespace bdmpi::tool
