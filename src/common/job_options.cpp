#include "common/job_options.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/coll_engine.h"
#include "common/error.h"
#include "common/job_names.h"
#include "common/rank_wiring.h"
#include "common/launch_guard.h"

namespace bdmpi {
namespace {

using Row = OptionRow<JobOptions>;

// Values below which a setting makes no sense, with why.
// A storage block below a page would waste most of its page.
constexpr std::size_t kMinStorageThreshold = 4096;

// Size of the tmpfs behind POSIX shared memory; 0 if unknown.
std::size_t SharedMemorySize() {
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) != 0) return 0;
  return static_cast<std::size_t>(fs.f_blocks) * fs.f_frsize;
}

// --trace FILE, --report=json FILE: absolute (the masters may run
// elsewhere in the tree), in a directory that exists and is writable now
// rather than at the end of a long job.
void CheckOutputFile(const std::string& option, std::string& path) {
  if (path.empty()) return;
  path = std::filesystem::absolute(path).lexically_normal().string();
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error(kErrArg, option + " " + path + ": cannot write to the directory " + dir + " (" +
                             std::strerror(errno) + ")");
}

Row ProgressFlag(const char* name, Progress value, const char* help) {
  return {name, "", help, [value](JobOptions& o, const std::string&) { o.progress = value; },
          [value](const JobOptions& o) {
            return o.progress == value ? std::string("1") : std::string();
          }};
}

// A setting carried by `variable` to the code that reads it: `check`
// turns the option's text into what that code expects (throwing kErrArg),
// "" standing for the default.
Row VariableRow(const char* name, std::string JobOptions::*field, const char* value_name,
                const char* help, const char* variable, const char* default_text,
                std::function<std::string(const std::string&)> check) {
  return Row(name, value_name, help,
             [field, check = std::move(check)](JobOptions& o, const std::string& v) {
               o.*field = check(v);
             },
             [field](const JobOptions& o) { return o.*field; }, default_text)
      .Variable(variable);
}

// One of `names` (the first is the default: ""), as the reader spells them.
std::function<std::string(const std::string&)> OneOf(std::string option,
                                                     std::vector<std::string> names) {
  return [option = std::move(option), names = std::move(names)](const std::string& v) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (v == names[i]) return i == 0 ? std::string() : v;
    std::string all;
    for (const std::string& name : names) all += (all.empty() ? "" : "|") + name;
    throw Error(kErrArg, option + " is " + all + ", got '" + v + "'");
  };
}

// A collective's algorithm among the masters: collectives/select.cpp's
// names (job_options_test checks that it takes each of them).
Row AlgorithmRow(const char* name, std::string JobOptions::*field, const char* variable,
                 std::vector<std::string> names, const char* what) {
  names.insert(names.begin(), "auto");
  std::string value_name;
  for (const std::string& n : names) value_name += (value_name.empty() ? "" : "|") + n;
  std::string help = std::string("force the inter-node algorithm of ") + what;
  Row row = VariableRow(name, field, "", "", variable, "auto: by size", OneOf(name, names));
  row.value_name = value_name;
  row.help = help;
  return row;
}

}  // namespace

namespace {
constexpr int kDefaultSpawnRoom = 16;
}  // namespace

int UniverseSize(const JobOptions& options, int world_size) {
  if (options.universe > 0) return options.universe;
  return world_size + kDefaultSpawnRoom;
}

const std::vector<Row>& JobOptionTable() {
  static const std::vector<Row> table = {
      // The masters need it too: with -n, each derives its own share
      // (common/rank_layout.h).
      CountOption("-np", &JobOptions::nranks,
                  "MPI ranks in all, in blocks over the nodes: each runs N / nodes, the "
                  "first N % nodes one more (-ns is derived)")
          .Alias("-n")
          .Default("-nn x -ns"),
      CountOption("-ns", &JobOptions::nslaves, "slaves (MPI ranks) per node"),
      Row("-nr", "N|auto",
          "slaves running at once per node: auto, as many as the node has cores (those "
          "the master may use, shared among the masters of a host), fewer while their "
          "data would not fit --node-memory; N forces N (at most -ns: more is lowered, "
          "with a warning)",
          [](JobOptions& o, const std::string& v) {
            if (v == "auto") {
              o.nrunning = kAutoRunning;
              return;
            }
            try {
              o.nrunning = ParsePositiveInt("-nr", v);
            } catch (const Error&) {
              throw Error(kErrArg, "-nr needs a positive integer or auto, got '" + v + "'");
            }
          },
          [](const JobOptions& o) {
            return o.nrunning == kAutoRunning ? std::string("auto") : std::to_string(o.nrunning);
          },
          "auto"),
      CountOption("-nc", &JobOptions::ncritical, "slaves allowed in a critical section"),
      CountOption("--universe", &JobOptions::universe,
                  "ranks the job may hold at once, those MPI_Comm_spawn starts included "
                  "(MPI_UNIVERSE_SIZE); at least the job's size. Each node keeps room "
                  "(a queue and a window per rank) for its share of the spawned ones")
          .Default("size + 16"),
      SizeOption("--mem-threshold", &JobOptions::mem_threshold,
                 "messages larger than this go through a file each (in memory, see "
                 "--memory-payloads, else on disk); smaller ones through each rank's "
                 "shared-memory window of this size (k/m/g suffixes)"),
      ChoiceOption("--memory-payloads", &JobOptions::memory_payloads,
                   {{"on", true}, {"off", false}},
                   "keep messages larger than --mem-threshold in memory (a file in "
                   "/dev/shm) while the node's memory (--node-memory) has room, and move "
                   "them to disk when it has not; off: they always go through disk"),
      ChoiceOption("--single-copy", &JobOptions::single_copy, {{"on", true}, {"off", false}},
                   "move large messages between ranks of a node with one copy: a "
                   "standard send whose receive is posted is written straight into "
                   "it, and a rank reads a block of alltoall, gather, scatter or "
                   "allgather larger than --mem-threshold straight from the memory of "
                   "its sender; off: through a payload segment or spill file like any "
                   "message (two copies)")
          .Env(kEnvSingleCopy),
      SizeOption("--mem-budget", &JobOptions::mem_budget,
                 "bytes of small messages a master buffers in memory before "
                 "spilling them too (at most a quarter of the node's memory)"),
      TextOption("--scratch-dir", &JobOptions::scratch_dir, "DIR",
                 "where the job's private spill directory goes")
          .Default("$BDMPI_SCRATCH_DIR, $TMPDIR or /tmp"),
      ChoiceOption("--policy", &JobOptions::policy,
                   {{"memory", SchedulePolicy::kMemory}, {"fifo", SchedulePolicy::kFifo}},
                   "which runnable slave resumes next (memory: the one with most "
                   "memory resident)"),
      FlagOption("--no-bind", &JobOptions::bind, false,
                 "with -nr 1, do not keep the master and its slaves on one core"),
      ChoiceOption("--storage-alloc", &JobOptions::storage_alloc, {{"on", true}, {"off", false}},
                   "serve allocations (malloc, new, ...) from per-rank scratch files "
                   "that the runtime writes back and drops while a rank waits, so that "
                   "data larger than memory needs no swap")
          .Env(kEnvStorageAlloc),
      SizeOption("--storage-threshold", &JobOptions::storage_threshold,
                 "smallest allocation that takes a block of its own in the scratch "
                 "file; smaller ones come from the storage-backed heap (at least 4k)")
          .Env(kEnvStorageThreshold),
      SizeOption("--node-memory", &JobOptions::node_memory,
                 "memory per node for the ranks' storage-backed data; ranks that wait "
                 "are switched out beyond it")
          .Check([](const JobOptions& o) {
            if (o.node_memory == 0) throw Error(kErrArg, "--node-memory must be at least 1");
          })
          .Default("the memory cgroup's limit less a margin, raised towards the limit while "
                   "the cgroup's reclaim brings few pages back; else the available memory "
                   "less a margin"),
      ChoiceOption("--prefetch", &JobOptions::prefetch,
                   {{"eager", Prefetch::kEager},
                    {"lazy", Prefetch::kLazy},
                    {"ahead", Prefetch::kAhead}},
                   "how a resumed rank gets its data back: lazy: on first touch, but "
                   "the blocks it rewrote after its last resume out of the same call, "
                   "read with large reads before the call returns, and what it read of "
                   "its small blocks then, read ahead; eager: as lazy without the "
                   "second, and resumed only where all its data fits; ahead: the rank "
                   "to run next reads what it held while another computes, when the "
                   "node's memory has room (else as lazy)")
          .Env(kEnvPrefetch),
      TextOption("--job-id", &JobOptions::job_id, "ID",
                 "name of the job's IPC objects (letters, digits, '-' and '_', at most 32)")
          .Default("random"),
      TextOption("--topology", &JobOptions::topology_file, "FILE",
                 "lines 'HOST RACK': chains cross each rack once")
          .Default("Slurm's SLURM_TOPOLOGY_ADDR"),
      FlagOption("--report", &JobOptions::report, true,
                 "print at the end where each rank's time went (running, waiting, blocked "
                 "by kind), its messages by path, what went to disk and the collectives; "
                 "also BDMPI_REPORT=1"),
      TextOption("--report=json", &JobOptions::report_json, "FILE",
                 "write the same report as JSON (schema in docs/observability.md)"),
      TextOption("--trace", &JobOptions::trace_file, "FILE",
                 "write a timeline of every rank's states and the masters' work in the "
                 "Chrome trace-event format (Perfetto, chrome://tracing, bdmpi-trace-plot)"),
      ProgressFlag("--progress", Progress::kOn,
                   "print a status line every second (default when the output is a "
                   "terminal); SIGUSR1 to bdmpiexec prints each rank's state at any time"),
      ProgressFlag("--no-progress", Progress::kOff, "no status line, even on a terminal"),
      VariableRow("--placed-messages", &JobOptions::placed_messages, "on|off|SIZE",
                  "a standard send whose receive is posted on its node writes straight "
                  "into it (with --single-copy on); off: never; SIZE: only messages of "
                  "at least SIZE (by default, any above --mem-threshold)",
                  kEnvPlacedMessages, "on",
                  [](const std::string& v) -> std::string {
                    if (v == "on") return "";
                    if (v == "off") return v;
                    return std::to_string(ParseByteSize(v, "--placed-messages"));
                  }),
      VariableRow("--direct-max", &JobOptions::direct_max, "SIZE",
                  "a standard send of at most SIZE bytes whose receive is posted on its "
                  "node (a contiguous one) is written straight into it by the sender, "
                  "without the master (with --single-copy on); 0: never",
                  kEnvDirectMax, "64k",
                  [](const std::string& v) -> std::string {
                    std::size_t bytes = ParseByteSize(v, "--direct-max");
                    return bytes == 65536 ? std::string() : std::to_string(bytes);
                  }),
      VariableRow("--direct-poll", &JobOptions::direct_poll, "MICROSECONDS",
                  "the longest a rank that waits for a message of another rank of its node "
                  "spins for it before it gives up its running slot, while no rank "
                  "waits for a slot (yielding its core between looks when the running "
                  "ranks outnumber the cores; at most 20 with more ranks than running "
                  "slots, where only ranks with a core each spin; 0: never)",
                  kEnvDirectPoll, "1000",
                  [](const std::string& v) -> std::string {
                    char* end = nullptr;
                    unsigned long long us = std::strtoull(v.c_str(), &end, 10);
                    if (v.empty() || *end != '\0' || v[0] == '-' || us > 1'000'000)
                      throw Error(kErrArg, "--direct-poll needs microseconds from 0 to "
                                           "1000000, got '" + v + "'");
                    return us == 1000 ? std::string() : std::to_string(us);
                  }),
      VariableRow("--direct-queue", &JobOptions::direct_queue, "on|off",
                  "a standard send of at most --direct-max and an eighth of an inbox (128 "
                  "KiB up to 64 ranks a node, 8 KiB at 1024) to a rank of "
                  "its node that has no receive posted for it waits in that rank's inbox "
                  "in the node's table, where the receive takes it without the master; "
                  "off: it goes through the master",
                  kEnvDirectQueue, "on",
                  [](const std::string& v) -> std::string {
                    if (v == "on") return "";
                    if (v == "off") return v;
                    throw Error(kErrArg, "--direct-queue takes on or off, got '" + v + "'");
                  }),
      VariableRow("--preload", &JobOptions::preload, "auto|off|PATH",
                  "for a rank program that does not link libbdmpi (a Python "
                  "interpreter, say), the library the masters add to its ranks' "
                  "LD_PRELOAD; off: none",
                  kEnvPreload, "auto: libbdmpi beside bdmprun",
                  [](const std::string& v) -> std::string {
                    if (v.empty()) throw Error(kErrArg, "--preload needs auto, off or a path");
                    return v == "auto" ? std::string() : v;
                  }),
      VariableRow("--peer-timeout", &JobOptions::peer_timeout, "SECONDS",
                  "with several nodes, end the job when a master has not heard from "
                  "another for this long (0: never)",
                  kEnvPeerTimeout, "120",
                  [](const std::string& v) -> std::string {
                    char* end = nullptr;
                    double seconds = std::strtod(v.c_str(), &end);
                    if (v.empty() || *end != '\0' || !(seconds >= 0) || seconds > 1e6)
                      throw Error(kErrArg, "--peer-timeout needs seconds (0 turns the "
                                           "timeout off), got '" + v + "'");
                    return v == "120" ? std::string() : v;
                  }),
      AlgorithmRow("--bcast-algorithm", &JobOptions::bcast_algorithm, "BDMPI_BCAST_ALGORITHM",
                   {"binomial", "chain", "scatter_allgather"}, "MPI_Bcast"),
      AlgorithmRow("--allreduce-algorithm", &JobOptions::allreduce_algorithm,
                   "BDMPI_ALLREDUCE_ALGORITHM", {"recursive_doubling", "ring"},
                   "MPI_Allreduce (ring only for commutative operations)"),
      AlgorithmRow("--reduce-algorithm", &JobOptions::reduce_algorithm,
                   "BDMPI_REDUCE_ALGORITHM", {"binomial", "chain"},
                   "MPI_Reduce (chain only for commutative operations)"),
      AlgorithmRow("--allgather-algorithm", &JobOptions::allgather_algorithm,
                   "BDMPI_ALLGATHER_ALGORITHM", {"bruck", "ring"},
                   "MPI_Allgather"),
      VariableRow("--chunk-size", &JobOptions::chunk_size, "SIZE",
                  "the pieces in which the inter-node collectives move large data",
                  "BDMPI_CHUNK_SIZE", "by size and peers",
                  [](const std::string& v) -> std::string {
                    std::size_t bytes = ParseByteSize(v, "--chunk-size");
                    if (bytes == 0) throw Error(kErrArg, "--chunk-size must be at least 1");
                    return std::to_string(bytes);
                  }),
      VariableRow("--coll-engine", &JobOptions::coll_engine, "KIND=ENGINE,...",
                  "force the engine that serves a rank's collective call, per collective "
                  "(barrier, bcast, reduce, allreduce, scan, exscan): master, fold_bcast "
                  "(allreduce), schedule, chain (scan, exscan) or node (barrier, bcast, "
                  "allreduce); a call the forced engine "
                  "cannot serve (a user-defined operation on the masters) keeps its own "
                  "(docs/collectives.md)",
                  "BDMPI_COLL_ENGINE", "auto",
                  [](const std::string& v) -> std::string {
                    ParseCollEngines(v, "--coll-engine");
                    return v == "auto" ? std::string() : v;
                  }),
      VariableRow("--thread-level", &JobOptions::thread_level,
                  "single|funneled|serialized|multiple",
                  "the highest thread level MPI_Init_thread and MPI_Session_init provide; "
                  "below multiple the masters run barrier, bcast, reduce and allreduce "
                  "(docs/scheduling-and-memory.md, Threads)",
                  "BDMPI_THREAD_LEVEL", "serialized",
                  OneOf("--thread-level", {"", "single", "funneled", "serialized", "multiple"})),
      VariableRow("--log", &JobOptions::log_level, "error|warn|info|debug",
                  "what the launcher, the masters and the ranks log on stderr",
                  "BDMPI_LOG", "warn; info with -v, debug with -v -v",
                  OneOf("--log", {"", "error", "warn", "info", "debug"})),
      VariableRow("--log-categories", &JobOptions::log_categories, "LIST",
                  "log only these categories (comma-separated: sched, disk, p2p, coll, ...); "
                  "errors always",
                  "BDMPI_LOG_CATEGORIES", "all",
                  [](const std::string& v) { return v; }),
  };
  return table;
}

void FinishJobOptions(JobOptions& options) {
  if (options.program.empty()) throw Error(kErrArg, "no program given");
  if (options.job_id.empty()) options.job_id = NewJobId();
  if (!ValidJobId(options.job_id))
    throw Error(kErrArg, "--job-id may hold only letters, digits, '-' and '_' (at most 32)");
  if (options.mem_threshold < 1) options.mem_threshold = 1;
  // Each rank's window (master <-> slave) holds one message up to the
  // threshold, in /dev/shm: a window larger than /dev/shm could never be
  // filled and only fails later, as mmap ENOMEM or a SIGBUS in a rank.
  // (The tmpfs size is a multiple of the page size, so comparing the
  // threshold itself is comparing the window rounded up to pages.)
  std::size_t shm = SharedMemorySize();
  if (shm != 0 && options.mem_threshold > shm)
    throw Error(kErrArg, "--mem-threshold " + FormatByteSize(options.mem_threshold) +
                             " is larger than the shared memory in /dev/shm (" +
                             FormatByteSize(shm) +
                             "), where each rank's window of that size lives");
  if (options.storage_threshold < kMinStorageThreshold)
    options.storage_threshold = kMinStorageThreshold;
  const char* report = std::getenv("BDMPI_REPORT");
  if (report != nullptr && *report != '\0' && std::strcmp(report, "0") != 0) options.report = true;
  CheckOutputFile("--report=json", options.report_json);
  CheckOutputFile("--trace", options.trace_file);
}

std::vector<std::string> JobOptionArgs(const JobOptions& options) {
  static const JobOptions defaults;
  std::vector<std::string> args;
  for (const Row& row : JobOptionTable()) {
    if (!row.variable.empty()) continue;  // travels in its variable
    std::string value = row.get(options);
    if (value == row.get(defaults)) continue;  // bdmprun has the same default
    if (row.Flag()) {
      if (!value.empty()) args.push_back(row.name);
    } else if (!value.empty()) {
      args.insert(args.end(), {row.name, value});
    }
  }
  return args;
}

namespace {
constexpr char kSettingsSeparator = '\x1f';
}  // namespace

std::string JobSettingsText(const JobOptions& options) {
  std::string text;
  for (const std::string& arg : JobOptionArgs(options)) {
    if (!text.empty()) text += kSettingsSeparator;
    text += arg;
  }
  return text;
}

JobOptions ThisRankJobSettings() {
  const char* text = wiring::Find(Wire::kJobSettings);
  try {
    return ParseJobSettings(text != nullptr ? text : "");
  } catch (const Error&) {
    return JobOptions{};
  }
}

JobOptions ParseJobSettings(const std::string& text) {
  std::vector<std::string> args;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find(kSettingsSeparator, start);
    if (end == std::string::npos) end = text.size();
    args.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  JobOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Row* row = FindOption(JobOptionTable(), args[i]);
    if (row == nullptr) throw Error(kErrArg, "unknown setting " + args[i]);
    if (row->Flag()) {
      row->set(options, "");
    } else if (i + 1 < args.size()) {
      row->set(options, args[++i]);
    } else {
      throw Error(kErrArg, "setting " + args[i] + " without a value");
    }
  }
  ApplyVariables(JobOptionTable(), options, [](const std::string&) { return false; });
  return options;
}

std::vector<std::string> JobOptionEnvironment(const JobOptions& options) {
  std::vector<std::string> env;
  for (const Row& row : JobOptionTable()) {
    if (!row.env.empty()) env.push_back(row.env + "=" + row.get(options));
  }
  return env;
}

bool SetsVariable(const char* entry, std::string_view name) {
  return std::strncmp(entry, name.data(), name.size()) == 0 && entry[name.size()] == '=';
}

bool IsJobOptionVariable(const char* entry) {
  for (const Row& row : JobOptionTable()) {
    if (!row.env.empty() && SetsVariable(entry, row.env)) return true;
  }
  return false;
}

}  // namespace bdmpi
