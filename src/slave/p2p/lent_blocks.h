// Lent blocks, the slave's side (docs/data-path.md, "Lent blocks"): a
// large block of a collective built from point-to-point messages stays in
// its sender's memory, and the receiver on the same node copies it once,
// with process_vm_readv from the sender, straight into its buffer.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace bdmpi {

// Lets the master and its descendants (this job's ranks on this node) read
// this process's memory under Yama's ptrace_scope 1, where a process may
// otherwise read only its own descendants'. Never PR_SET_PTRACER_ANY.
void LetJobReadMemory();

// Whether this job lends blocks: --single-copy is on and Yama allows
// siblings to read each other (ptrace_scope 0 or 1).
bool LendingAllowed();

// Whether every page of `bytes` at `data` is readable (one byte of each,
// through the kernel): a block that is not is sent the copied way, which
// reports MPI_ERR_BUFFER as for any message.
bool Readable(const void* data, std::uint64_t bytes);

// Copies `bytes` at `address` in process `pid` to `out`. False when the
// kernel refuses (EPERM, EACCES: this rank may not read its sibling; ESRCH:
// the sender is gone), or when BDMPI_TEST_REFUSE_LENT_READS=1 (the tests'
// way to force the fallback): the caller asks the master. Throws on any
// other error.
bool ReadLent(pid_t pid, std::uint64_t address, void* out, std::uint64_t bytes);

}  // namespace bdmpi
