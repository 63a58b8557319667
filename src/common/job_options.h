// The settings of a job: one schema (JobOptionTable) that bdmpiexec and
// bdmprun parse with, that bdmpiexec passes on to bdmprun and bdmprun on to
// the slaves (environment variables), and that --help is printed from.
// Adding a setting costs a field here and a row in job_options.cpp.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/option_table.h"

namespace bdmpi {

enum class SchedulePolicy { kMemory, kFifo };
enum class Prefetch { kEager, kLazy, kAhead };
// --progress / --no-progress; bdmpiexec turns kAuto into on when its
// standard output is a terminal. Masters show the line only when kOn.
enum class Progress { kAuto, kOn, kOff };

// -nr auto: as many ranks run at once as the node has cores, fewer while
// their data would not fit the node's memory (master/running_slots.h).
inline constexpr int kAutoRunning = 0;

struct JobOptions {
  std::string job_id;                  // empty: make one
  std::string scratch_dir = "/tmp";    // parent of the job's spill directory
  int nranks = 0;                      // -n: ranks in all; 0: -ns on every node
  int nslaves = 1;                     // -ns: slaves on this node
  int nrunning = kAutoRunning;         // -nr: slaves running at once
  int ncritical = 1;                   // -nc: slaves inside a critical section
  // --universe: ranks the job may hold, spawned ones included
  // (MPI_UNIVERSE_SIZE); 0: UniverseSize's default.
  int universe = 0;
  std::size_t mem_threshold = 64 * 1024;        // larger payloads: memory files
  bool memory_payloads = true;  // payloads above mem_threshold in memory files
  // Collective blocks above mem_threshold read by the receiver straight
  // from the sender's memory (docs/data-path.md, "Lent blocks").
  bool single_copy = true;
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
  // What the job did (docs/observability.md): --report
  // prints a table at the end (also BDMPI_REPORT=1), --report=json FILE
  // writes it as JSON, --trace FILE a Chrome trace-event timeline,
  // --progress a status line every second. Paths are made absolute.
  bool report = false;
  std::string report_json;
  std::string trace_file;
  Progress progress = Progress::kAuto;
  // Settings read with getenv where they are used (OptionRow::variable):
  // the text as given, checked; empty: the default.
  std::string placed_messages;     // BDMPI_PLACED_MESSAGES, the slaves
  std::string direct_max;          // BDMPI_DIRECT_MAX, the slaves
  std::string direct_poll;         // BDMPI_DIRECT_POLL, the slaves
  std::string direct_queue;        // BDMPI_DIRECT_QUEUE, the slaves
  std::string preload;             // BDMPI_PRELOAD, the masters (spawn.cpp)
  std::string peer_timeout;        // BDMPI_PEER_TIMEOUT, the masters
  std::string bcast_algorithm;     // BDMPI_<OP>_ALGORITHM and BDMPI_CHUNK_SIZE,
  std::string allreduce_algorithm; // the masters (collectives/select.h)
  std::string reduce_algorithm;
  std::string allgather_algorithm;
  std::string chunk_size;
  std::string coll_engine;         // BDMPI_COLL_ENGINE, the slaves
                                   // (common/coll_engine.h)
  std::string thread_level;        // BDMPI_THREAD_LEVEL, the slaves
                                   // (slave/runtime/environment.cpp)
  std::string log_level;           // BDMPI_LOG and BDMPI_LOG_CATEGORIES,
  std::string log_categories;      // every process (common/log.h)
  std::vector<std::string> program;    // the slave program and its arguments
};

// MPI_UNIVERSE_SIZE of a job of `world_size` ranks: --universe, or by
// default room for 16 more (over the nodes, like the ranks): every
// reserved rank costs a go-queue and a window (sparse) on its node from
// the start, and POSIX message queues are counted per user
// (common/node_limits.h), so the room is a fixed few, not a multiple.
int UniverseSize(const JobOptions& options, int world_size);

// Every setting of a job, in --help order.
const std::vector<OptionRow<JobOptions>>& JobOptionTable();

// Checks what single options cannot (and fills defaults) once all are
// parsed: the program, the job id, the memory threshold against the shared
// memory. Throws Error(kErrArg) with a sentence naming the option and its
// limit.
void FinishJobOptions(JobOptions& options);

// The options as bdmprun arguments, from the rows: those that differ from
// JobOptions' defaults, which bdmprun shares.
std::vector<std::string> JobOptionArgs(const JobOptions& options);

// The options in one line (JobOptionArgs joined by '\x1f', which no
// option's value holds), for a slave's environment; ParseJobSettings reads
// it back over the defaults, and the rows' variables from this process's
// environment. Throws Error(kErrArg) on text it cannot parse.
std::string JobSettingsText(const JobOptions& options);
JobOptions ParseJobSettings(const std::string& text);
// A rank's job settings as its master passed them (Wire::kJobSettings);
// the defaults (and this process's variables) outside a job, or on text
// that does not parse.
JobOptions ThisRankJobSettings();

// "NAME=value" for each row with a slaves' variable.
std::vector<std::string> JobOptionEnvironment(const JobOptions& options);

// Whether `entry` ("NAME=value") sets `name`; one of the rows' slaves'
// variables.
bool SetsVariable(const char* entry, std::string_view name);
bool IsJobOptionVariable(const char* entry);

}  // namespace bdmpi
