// The run report (bdmpiexec --report, --report=json FILE): what each rank
// spent its time on, how its messages travelled, what went to disk, and
// which collectives ran. Each master fills the figures of its node
// (master/observe/job_recorder.h), sends them to node 0 at the end of the job as
// text (Serialize/Parse), and node 0 merges them and prints the table or
// writes the JSON, whose schema docs/observability.md
// describes.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace bdmpi {

// Where a rank's time went, as the master saw it.
enum class RankActivity : int {
  kRunning,           // held a running slot and computed (or was inside MPI)
  kRunnable,          // could run, waited for a slot
  kBlockedReceive,    // blocked in a point-to-point receive, wait or probe
  kBlockedCollective, // blocked in a collective or communicator creation
  kBlockedCritical,   // waited to enter a BDMPI critical section
  kWaitingMemory,     // had its slot, waited for others to release memory
};
inline constexpr int kRankActivities = 6;
// The JSON keys ("running", "blocked_receive", ...) and the table's columns.
const char* RankActivityKey(RankActivity activity);

// How the payload of a send travelled.
enum class MessagePath : int {
  kInline,        // inside the request message (<= 960 bytes)
  kMasterMemory,  // the rank's window, then the master's memory
  kMasterSpill,   // the rank's window, then a spill file of the master (budget full)
  kSpillFile,     // a spill file the rank wrote
  kCrossNode,     // forwarded to another node's master (also counted by how it left)
  kPlaced,        // written straight into the posted receive (by the sender, or
                  // by the master from the window)
  kLent,          // a collective's block the receiver read from the sender's memory
  kDirect,        // written by the sender into a receive published in the node's
                  // direct table, without the master (counted by the rank)
};
inline constexpr int kMessagePaths = 8;
// Arrays are indexed by path: a path added above must be counted here.
static_assert(static_cast<int>(MessagePath::kDirect) + 1 == kMessagePaths);
const char* MessagePathKey(MessagePath path);

struct Count {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
};

struct RankFigures {
  int rank = 0;
  int node = 0;
  std::array<std::uint64_t, kRankActivities> ns{};  // nanoseconds per activity
  std::uint64_t switches = 0;      // times it gave up its running slot
  std::uint64_t released = 0;      // times it wrote its storage-backed memory back
  std::uint64_t written_back = 0;  // bytes of storage-backed memory written back
  std::uint64_t storage_peak = 0;  // most storage-backed bytes seen
  // Read back: bytes read eagerly at switch-ins (the rank counts them), and
  // the rank's major page faults (lazy read-back and any other page the
  // process waited for the disk for; page cache hits are not counted).
  std::uint64_t read_back = 0;
  std::uint64_t major_faults = 0;
  // Bytes the rank's process had read from disk (/proc/<pid>/io): its
  // lazy and eager read-back whatever the faults, but also its own file
  // reads and the spill files it read messages from. Major faults undercount
  // the lazy read-back where one fault reads megabytes around it.
  std::uint64_t disk_read = 0;
  // Bytes of its receive buffers given fresh memory instead of being read
  // back before a message overwrote them (memory::FreshPages).
  std::uint64_t fresh = 0;
  std::array<Count, kMessagePaths> sent{};
};

// What a master's network thread moved (point-to-point messages between
// nodes; collective steps are counted with their collective).
struct NetworkFigures {
  Count sent, received;
  std::uint64_t sent_chunks = 0, received_chunks = 0;  // of large messages
  std::uint64_t send_ns = 0, receive_ns = 0;  // summed over messages, which overlap
};

struct NodeFigures {
  int node = 0;
  long peak_rss_kib = -1;           // the master's VmHWM
  std::uint64_t spill_bytes = 0;    // payload bytes that went through spill files
  std::uint64_t buffered_peak = 0;  // most message bytes held in master memory
  NetworkFigures network;
  // Ranks running at once: the node's limit (-nr), whether -nr auto chose
  // it and from how many cores; nanoseconds spent with k ranks running
  // (index k, 0 .. limit); how often and how long -nr auto held a
  // runnable rank back for memory while a slot was free.
  int running_limit = 0;
  bool running_auto = false;
  int cores = 0;
  std::vector<std::uint64_t> running_ns;
  std::uint64_t memory_holds = 0;
  std::uint64_t memory_hold_ns = 0;
  // The node budget for the ranks over the run: least, most, and mean
  // over time; adaptive where it followed the cgroup's reclaim.
  bool budget_adaptive = false;
  std::uint64_t budget_least = 0, budget_most = 0, budget_mean = 0;
};

// One kind of collective, counted once per operation (on the first node of
// its communicator), with the time its inter-node steps took there.
struct CollectiveFigures {
  std::string operation;  // "MPI_Bcast"
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  std::uint64_t inter_node_ns = 0;
  std::uint64_t inter_node_steps = 0;
  // Inter-node steps by the algorithm the network chose ("binomial": 3).
  std::map<std::string, std::uint64_t> algorithms;
};

struct RunReport {
  double wall_s = 0;
  int nnodes = 1;
  int nranks = 0;
  // Set when the job failed or a node's figures are missing; says why.
  std::string partial;
  // Nodes whose figures never reached node 0 (their masters did not send
  // them in time after a failure); `partial` names them too.
  std::vector<int> missing_nodes;
  std::vector<NodeFigures> nodes;
  std::vector<RankFigures> ranks;
  std::vector<CollectiveFigures> collectives;

  // One node's figures as text for the trip to node 0, and back.
  std::string Serialize() const;
  static RunReport Parse(const std::string& text);
  // Adds another node's figures (collectives of the same name add up).
  void Merge(const RunReport& other);
  // Sorts ranks, nodes and collectives for printing.
  void Sort();

  // The compact table bdmpiexec --report prints.
  std::string Table() const;
  std::string Json() const;
};

// "12.3 MiB", "512 B".
std::string HumanBytes(std::uint64_t bytes);

// `text` as a JSON string, quoted and escaped (also for the trace).
std::string JsonQuoted(const std::string& text);

}  // namespace bdmpi
