// Command line of bdmprun (normally built by bdmpiexec).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace bdmpi {

enum class SchedulePolicy { kMemory, kFifo };
enum class Prefetch { kEager, kLazy };

struct MasterOptions {
  std::string job_id;                  // empty: make one
  std::string scratch_dir = "/tmp";    // parent of the job's spill directory
  int nslaves = 1;                     // -ns: slaves on this node
  int nrunning = 1;                    // -nr: slaves running at once
  int ncritical = 1;                   // -nc: slaves inside a critical section
  std::size_t mem_threshold = 64 * 1024;        // larger payloads go to disk
  std::size_t mem_budget = 256 * 1024 * 1024;   // buffered bytes in memory
  SchedulePolicy policy = SchedulePolicy::kMemory;
  bool bind = true;  // with -nr 1, keep the master and its slaves on one core
  std::string topology_file;           // HOST RACK lines, for chain order
  // Storage-backed allocations of the slaves (src/slave/memory).
  bool storage_alloc = true;
  std::size_t storage_threshold = 1024 * 1024;  // smallest storage block
  std::size_t node_memory = 0;  // budget for the slaves' storage; 0: default
  // Measured on a sweep (bench/memory): lazy won; see README.
  Prefetch prefetch = Prefetch::kLazy;
  std::vector<std::string> program;    // the slave program and its arguments
};

// Parses "--name value" options up to "--" or the first non-option, which
// starts the program. Throws Error(kErrArg) with a usage hint on bad input.
MasterOptions ParseMasterOptions(int argc, char** argv);

// "64k", "1m", "2g" or a plain byte count.
std::size_t ParseByteSize(const std::string& text);

}  // namespace bdmpi
