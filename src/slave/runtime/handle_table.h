// The objects that handles of one kind name: slot i is the handle
// MakeHandle(kind, first + i). Freed slots are reused, lowest first, so
// handle values stay small.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <utility>

#include "common/error.h"
#include "common/handles.h"

namespace bdmpi {

template <class T>
class HandleTable {
 public:
  HandleTable(HandleKind kind, int first) : kind_(kind), first_(first) {}

  int Add(T object) {
    std::size_t slot = 0;
    while (slot < slots_.size() && slots_[slot]) ++slot;
    if (first_ + slot > static_cast<std::size_t>(kHandleIndexMask))
      throw Error(kErrNoMem, "too many MPI objects of one kind");
    if (slot == slots_.size()) slots_.emplace_back();
    slots_[slot] = std::move(object);
    return MakeHandle(kind_, first_ + static_cast<int>(slot));
  }

  // The object `handle` names, or nullptr.
  T* Find(int handle) {
    if (!HandleIs(handle, kind_) || HandleIndex(handle) < first_) return nullptr;
    std::size_t slot = static_cast<std::size_t>(HandleIndex(handle) - first_);
    return slot < slots_.size() && slots_[slot] ? &*slots_[slot] : nullptr;
  }

  // Requires Find(handle) != nullptr.
  void Remove(int handle) {
    slots_[static_cast<std::size_t>(HandleIndex(handle) - first_)].reset();
  }

  void Clear() { slots_.clear(); }

 private:
  HandleKind kind_;
  int first_;
  // A deque: a reference to an object stays valid while others are added
  // (at MPI_THREAD_MULTIPLE, by another thread while a call waits).
  std::deque<std::optional<T>> slots_;
};

}  // namespace bdmpi
