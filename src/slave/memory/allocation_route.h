// Where the calling thread's allocations below the storage threshold go:
// to the heap on the arena's chunks (the program's, paged with the rank)
// or to glibc (the runtime's own state, never paged).
#pragma once

namespace bdmpi::memory {

// Sets the thread's route while it lives, and puts back the one before.
class AllocationRoute {
 public:
  AllocationRoute(const AllocationRoute&) = delete;
  AllocationRoute& operator=(const AllocationRoute&) = delete;

 protected:
  explicit AllocationRoute(bool runtime);
  ~AllocationRoute();

 private:
  bool saved_;
};

// The runtime's own state, held by every MPI call (GuardWith): it touches
// it at every call, a switch-out's last steps and a resume's first
// included, so from the heap it came back from the storage file a fault
// at a time. What a user callback allocates inside a call (a reduction
// operation, an error handler) comes from glibc too.
class RuntimeAllocations : public AllocationRoute {
 public:
  RuntimeAllocations() : AllocationRoute(true) {}
};

// Memory an MPI call hands the program (MPI_Alloc_mem): the arena's again.
class ProgramAllocations : public AllocationRoute {
 public:
  ProgramAllocations() : AllocationRoute(false) {}
};

// Whether the calling thread is in a RuntimeAllocations scope now.
bool InRuntimeAllocations();

}  // namespace bdmpi::memory
