#include "slave/tool/events.h"

#include <time.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>

namespace bdmpi::tool {

thread_local int EventScope::depth_ = 0;
thread_local bool EventScope::pending_ = false;

static_assert(sizeof(bdmpi_t_event_instance_s::data) >= sizeof(ResumedData) &&
              sizeof(bdmpi_t_event_instance_s::data) >= sizeof(WrittenBackData) &&
              sizeof(bdmpi_t_event_instance_s::data) >= sizeof(SpilledData));

namespace {

constexpr int kScheduling = 2, kMessages = 3, kMemory = 4;  // Categories()' indices

std::vector<EventType> BuildTypes() {
  const MPI_Datatype u64 = MPI_UNSIGNED_LONG_LONG;
  std::vector<EventType> types(kEventCount);
  types[static_cast<int>(Event::kSwitchedOut)] = {
      "bdmpi_switched_out",
      "this rank gave up its running slot, blocked in an MPI call, so that other ranks "
      "may run; told when it resumes, stamped when it made the blocking request. "
      "Elements: switches (times it gave up its slot so far)",
      kScheduling,
      {{u64, offsetof(SwitchedOutData, switches)}},
      sizeof(SwitchedOutData)};
  types[static_cast<int>(Event::kResumed)] = {
      "bdmpi_resumed",
      "this rank got a running slot back after giving it up: the blocking call is "
      "answered. Elements: waited_ns (from the blocking request to the answer), switches",
      kScheduling,
      {{u64, offsetof(ResumedData, waited_ns)}, {u64, offsetof(ResumedData, switches)}},
      sizeof(ResumedData)};
  types[static_cast<int>(Event::kWrittenBack)] = {
      "bdmpi_written_back",
      "this rank wrote its storage-backed memory back while switched out (its master "
      "needed the node's memory). Elements: bytes written, bytes dropped (resident "
      "before; clean ones need no write)",
      kMemory,
      {{u64, offsetof(WrittenBackData, bytes)}, {u64, offsetof(WrittenBackData, dropped)}},
      sizeof(WrittenBackData)};
  types[static_cast<int>(Event::kReadBack)] = {
      "bdmpi_read_back",
      "this rank read storage-backed memory back up front as it resumed (the blocks it "
      "rewrote) or ahead of it (--prefetch ahead); the rest of the read-back is page "
      "faults, not events. "
      "Elements: bytes",
      kMemory,
      {{u64, offsetof(ReadBackData, bytes)}},
      sizeof(ReadBackData)};
  types[static_cast<int>(Event::kSpilled)] = {
      "bdmpi_message_spilled",
      "this rank wrote a message's payload to a spill file on disk (above --mem-threshold "
      "with --memory-payloads off, or no payload segment free). Elements: bytes, "
      "point_to_point (MPI_INT: 1 a send's message, 0 a collective's or a request's data)",
      kMessages,
      {{u64, offsetof(SpilledData, bytes)}, {MPI_INT, offsetof(SpilledData, point_to_point)}},
      sizeof(SpilledData)};
  return types;
}

// The registrations, and per event how many have a callback.
struct Table {
  std::mutex lock;
  std::map<MPI_T_event_registration, Registration> registrations;
  std::array<std::atomic<int>, kEventCount> wanted{};
};

Table& TheTable() {
  static Table table;
  return table;
}

bool HasCallback(const bdmpi_t_event_registration_s& registration) {
  return registration.Chosen() != nullptr;
}

// What the thread raised and not yet delivered.
struct Pending {
  std::vector<bdmpi_t_event_instance_s> events;
  std::array<std::uint64_t, kEventCount> dropped{};
  bool delivering = false;
};

Pending& ThePending() {
  thread_local Pending pending;
  return pending;
}

// One delivery's target: a registration kept alive and the callback chosen
// when the event was handed out.
struct Target {
  Registration registration;
  bdmpi_t_event_registration_s::Callback callback;
  MPI_T_event_dropped_cb_function* dropped;
};

std::vector<Target> TargetsOf(int event) {
  Table& table = TheTable();
  std::lock_guard<std::mutex> hold(table.lock);
  std::vector<Target> targets;
  for (const auto& [handle, registration] : table.registrations) {
    if (registration->event != event) continue;
    const auto* callback = registration->Chosen();
    if (callback == nullptr) continue;
    targets.push_back({registration, *callback, registration->dropped});
  }
  return targets;
}

}  // namespace

const std::vector<EventType>& EventTypes() {
  static const std::vector<EventType> types = BuildTypes();
  return types;
}

std::uint64_t EventClock() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(now.tv_nsec);
}

bool EventWanted(Event event) {
  return TheTable().wanted[static_cast<std::size_t>(event)].load(std::memory_order_relaxed) > 0;
}

void RaiseEvent(Event event, std::uint64_t timestamp, const void* data, std::size_t bytes) {
  Pending& pending = ThePending();
  auto index = static_cast<std::size_t>(event);
  EventScope::pending_ = true;
  if (pending.events.size() >= kPendingCap) {
    ++pending.dropped[index];
    return;
  }
  bdmpi_t_event_instance_s instance{};
  instance.event = static_cast<int>(event);
  instance.timestamp = timestamp;
  std::memcpy(instance.data, data, std::min(bytes, sizeof instance.data));
  try {
    pending.events.push_back(instance);
  } catch (const std::bad_alloc&) {
    ++pending.dropped[index];
  }
}

void EventScope::Deliver() {
  Pending& pending = ThePending();
  // A callback's own MPI calls raise events too: this loop delivers them
  // after the callback returns, rather than inside it.
  if (pending.delivering) return;
  pending.delivering = true;
  while (pending_) {
    pending_ = false;
    std::vector<bdmpi_t_event_instance_s> batch;
    batch.swap(pending.events);
    auto dropped = pending.dropped;
    pending.dropped = {};
    // A switch-out is stamped with its request's time but raised when the
    // rank resumes, after what happened meanwhile.
    std::stable_sort(batch.begin(), batch.end(),
                     [](const auto& a, const auto& b) { return a.timestamp < b.timestamp; });
    try {
      for (auto& instance : batch) {
        for (const Target& target : TargetsOf(instance.event))
          target.callback.function(&instance, target.registration.get(), MPI_T_CB_REQUIRE_NONE,
                                   target.callback.user_data);
      }
      for (int event = 0; event < kEventCount; ++event) {
        std::uint64_t count = dropped[static_cast<std::size_t>(event)];
        if (count == 0) continue;
        for (const Target& target : TargetsOf(event)) {
          if (target.dropped == nullptr) continue;
          target.dropped(static_cast<MPI_Count>(count), target.registration.get(), 0,
                         MPI_T_CB_REQUIRE_NONE, target.callback.user_data);
        }
      }
    } catch (const std::bad_alloc&) {
      // No memory for the list of callbacks: this batch is lost, as an
      // event past the cap would be.
    }
  }
  pending.delivering = false;
}

MPI_T_event_registration AddRegistration(int event) {
  auto registration = std::make_shared<bdmpi_t_event_registration_s>();
  registration->event = event;
  Table& table = TheTable();
  std::lock_guard<std::mutex> hold(table.lock);
  MPI_T_event_registration handle = registration.get();
  table.registrations.emplace(handle, std::move(registration));
  return handle;
}

Registration FindRegistration(MPI_T_event_registration handle) {
  Table& table = TheTable();
  std::lock_guard<std::mutex> hold(table.lock);
  auto found = table.registrations.find(handle);
  return found == table.registrations.end() ? nullptr : found->second;
}

void SetCallback(const Registration& registration, int safety,
                 MPI_T_event_cb_function* function, void* user_data) {
  Table& table = TheTable();
  std::lock_guard<std::mutex> hold(table.lock);
  bool had = HasCallback(*registration);
  registration->callbacks[safety] = {function, function != nullptr ? user_data : nullptr};
  bool has = HasCallback(*registration);
  if (had != has)
    table.wanted[static_cast<std::size_t>(registration->event)].fetch_add(
        has ? 1 : -1, std::memory_order_relaxed);
}

void SetDroppedHandler(const Registration& registration,
                       MPI_T_event_dropped_cb_function* function) {
  Table& table = TheTable();
  std::lock_guard<std::mutex> hold(table.lock);
  registration->dropped = function;
}

Registration TakeRegistration(MPI_T_event_registration handle) {
  Table& table = TheTable();
  std::lock_guard<std::mutex> hold(table.lock);
  auto found = table.registrations.find(handle);
  if (found == table.registrations.end()) return nullptr;
  Registration registration = std::move(found->second);
  table.registrations.erase(found);
  if (HasCallback(*registration))
    table.wanted[static_cast<std::size_t>(registration->event)].fetch_sub(
        1, std::memory_order_relaxed);
  return registration;
}

std::vector<Registration> TakeAllRegistrations() {
  Table& table = TheTable();
  std::lock_guard<std::mutex> hold(table.lock);
  std::vector<Registration> all;
  for (auto& [handle, registration] : table.registrations) all.push_back(std::move(registration));
  table.registrations.clear();
  for (auto& wanted : table.wanted) wanted.store(0, std::memory_order_relaxed);
  return all;
}

}  // namespace bdmpi::tool

const bdmpi_t_event_registration_s::Callback* bdmpi_t_event_registration_s::Chosen() const {
  for (const Callback& callback : callbacks)
    if (callback.function != nullptr) return &callback;
  return nullptr;
}
