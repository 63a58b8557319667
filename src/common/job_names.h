// Names of a job's IPC objects and files. Every name carries the job id and
// node, so that a launcher can find (and remove) everything a dead master
// left behind, and ends in a tag of 64 random bits that the master draws when
// it creates the object: /dev/shm, /dev/mqueue and the scratch directory are
// shared with every local user, and the job id is not secret (it is on the
// masters' command lines, and in every name), so a name made of the id alone
// could be created first by another user, stopping the job. A tag is seen
// by nobody before its object exists (the master passes the tags to its
// slaves through their environment, which only the job's user can read),
// and an object once created is the job's (mode 0600/0700, sticky
// directories).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace bdmpi {

// Variables through which a master tells a slave who it is (common/rank_wiring.h).
inline constexpr const char* kEnvJobId = "BDMPI_JOB_ID";
inline constexpr const char* kEnvNode = "BDMPI_NODE";
inline constexpr const char* kEnvSlave = "BDMPI_SLAVE";
inline constexpr const char* kEnvWorldRank = "BDMPI_WORLD_RANK";
inline constexpr const char* kEnvWorldSize = "BDMPI_WORLD_SIZE";
// MPI_UNIVERSE_SIZE: the job's ranks and the room for spawned ones
// (common/rank_layout.h).
inline constexpr const char* kEnvUniverseSize = "BDMPI_UNIVERSE_SIZE";
// Of a rank MPI_Comm_spawn started: "FIRST SIZE PARENT_LEADER TAG APPNUM",
// its MPI_COMM_WORLD's job ranks, the parents' root and the tag of the
// intercommunicator to them, and its command's index (MPI_APPNUM).
inline constexpr const char* kEnvSpawn = "BDMPI_SPAWN";
// Slaves on this node, and the job's nodes: the ranks are laid out in
// blocks (common/rank_layout.h), so the first nodes may run one more.
inline constexpr const char* kEnvNodeSize = "BDMPI_NODE_SIZE";
inline constexpr const char* kEnvNodeCount = "BDMPI_NODE_COUNT";
inline constexpr const char* kEnvWindowSize = "BDMPI_WINDOW_SIZE";
inline constexpr const char* kEnvSpillDir = "BDMPI_SPILL_DIR";
// Its inode: a slave checks it opens the directory its master created.
// The spill directory is the master's private directory, which also holds
// the status requests (common/status_reply.h).
inline constexpr const char* kEnvSpillDirInode = "BDMPI_SPILL_DIR_INODE";
// The node's memory directory (JobNames::MemoryDir) and its inode; absent
// when the master could not create one (payloads then go to spill files).
inline constexpr const char* kEnvMemoryDir = "BDMPI_MEMORY_DIR";
inline constexpr const char* kEnvMemoryDirInode = "BDMPI_MEMORY_DIR_INODE";
// The tagged names of the node's request queue and storage table and of
// the slave's own go-queue and window (JobNames, below).
inline constexpr const char* kEnvRequestQueue = "BDMPI_REQUEST_QUEUE";
inline constexpr const char* kEnvStorageTable = "BDMPI_STORAGE_TABLE";
inline constexpr const char* kEnvGoQueue = "BDMPI_GO_QUEUE";
inline constexpr const char* kEnvWindow = "BDMPI_WINDOW";
// The slave's secret that it puts in every request (RequestMsg::token).
inline constexpr const char* kEnvSlaveToken = "BDMPI_SLAVE_TOKEN";
// "1" when the slave may hold back requests that need no reply until its
// next blocking call (the master runs one slave at a time).
inline constexpr const char* kEnvDeferPosts = "BDMPI_DEFER_POSTS";
// "1" when the running ranks have a core each, so that a rank waiting for
// a direct message may poll for it briefly (slave/p2p/direct_path.h).
inline constexpr const char* kEnvMayPoll = "BDMPI_MAY_POLL";
// "off": no rank writes a large message straight into a posted receive
// (placed messages, slave/runtime/runtime_placed.cpp); every message goes through
// a payload segment or spill file. A number: the smallest message a sender
// places itself (default: any above the window, which the master places
// from). Set by bdmpiexec from --placed-messages (OptionRow::variable);
// read by the slaves.
inline constexpr const char* kEnvPlacedMessages = "BDMPI_PLACED_MESSAGES";
// Direct messages (slave/p2p/direct_path.h): the largest message a sender
// writes straight into a receive its rank published (0: none), and how
// many microseconds a waiting rank polls for one before it asks the
// master. Set by bdmpiexec from --direct-max and --direct-poll; read by
// the slaves.
inline constexpr const char* kEnvDirectMax = "BDMPI_DIRECT_MAX";
inline constexpr const char* kEnvDirectPoll = "BDMPI_DIRECT_POLL";
// "off": a small message that finds no receive posted goes through the
// master instead of waiting in its receiver's inbox (--direct-queue).
inline constexpr const char* kEnvDirectQueue = "BDMPI_DIRECT_QUEUE";
// A random secret of one bdmpiexec launch, passed to its masters through the
// environment (never the command line, which other users can read): a
// launcher removes what its own masters left, never what a master of
// another launch with the same job id holds (job_liveness.h).
inline constexpr const char* kEnvLaunchSecret = "BDMPI_LAUNCH_SECRET";
// Seconds after which a master gives up on a silent peer master
// (master/network/peer_watch.h); set by bdmpiexec from --peer-timeout, read by the
// masters only.
inline constexpr const char* kEnvPeerTimeout = "BDMPI_PEER_TIMEOUT";
// The master's pid: a process whose parent is not the master (a child the
// slave program started) is not a slave and keeps the plain allocator.
inline constexpr const char* kEnvMasterPid = "BDMPI_MASTER_PID";
// Storage-backed allocations (src/slave/memory): "on" or "off", the
// smallest request served from storage (bytes), and how a resumed slave
// reads its data back ("eager", "lazy" or "ahead").
inline constexpr const char* kEnvStorageAlloc = "BDMPI_STORAGE_ALLOC";
inline constexpr const char* kEnvStorageThreshold = "BDMPI_STORAGE_THRESHOLD";
inline constexpr const char* kEnvPrefetch = "BDMPI_PREFETCH";
// --single-copy: "0" makes every collective block travel the copied way.
inline constexpr const char* kEnvSingleCopy = "BDMPI_SINGLE_COPY";
// The job's settings as the master has them (-nr auto resolved), for the
// slaves' tool interface (MPI_T control variables, src/slave/tool):
// JobSettingsText (common/job_options.h).
inline constexpr const char* kEnvJobSettings = "BDMPI_JOB_SETTINGS";

// 16 hex digits from the kernel's random source.
std::string NewJobId();

// A name's tag: 16 hex digits from the kernel's random source.
std::string NewNameTag();

// A nonzero secret from the kernel's random source (RequestMsg::token).
std::uint32_t NewRequestToken();

// True for ids made only of [0-9a-zA-Z_-] and at most 32 characters, so
// they are safe inside object and file names.
bool ValidJobId(const std::string& id);

class JobNames {
 public:
  JobNames(std::string job_id, int node)
      : job_id_(std::move(job_id)), node_(node) {}

  const std::string& job_id() const { return job_id_; }
  int node() const { return node_; }
  // "/bdmpi-<id>-": every queue and shared-memory object starts with it.
  std::string Prefix() const { return "/bdmpi-" + job_id_ + "-"; }
  // "/bdmpi-<id>-n<node>-": every object of this node starts with it.
  std::string NodePrefix() const;

  // "<base>-<tag>": with tag "", the prefix every tagged name of that kind
  // starts with.
  std::string RequestQueue(const std::string& tag) const;
  std::string GoQueue(int slave, const std::string& tag) const;
  std::string Window(int slave, const std::string& tag) const;
  // The node's table of storage-backed bytes per slave (StorageSlot each).
  std::string StorageTable(const std::string& tag) const;
  // Held (flock) by every process of the job on this node (job_liveness.h).
  std::string Liveness(const std::string& tag) const { return NodePrefix() + "live-" + tag; }

  // <scratch>/bdmpi-<id>-n<node>-<tag>: the master's private directory
  // (0700): its spill files, the slaves' arenas, status requests.
  std::string SpillDir(const std::string& scratch, const std::string& tag) const;
  // /dev/shm/bdmpi-<id>-n<node>-payloads-<tag>: the node's private directory
  // (0700) of payloads kept in memory (tmpfs), laid out like SpillDir.
  std::string MemoryDir(const std::string& tag) const {
    return "/dev/shm" + NodePrefix() + "payloads-" + tag;
  }

  // Whether `name` is `prefix` (a name above with tag "") followed by a
  // tag: how a slave checks the names its environment gives it.
  static bool IsTagged(const std::string& name, const std::string& prefix);
  // The job id and node of a liveness file's name ("/bdmpi-<id>-n<node>-
  // live-<tag>", or without the '/'), if it is one.
  static std::optional<JobNames> OfLiveness(const std::string& name);

 private:
  std::string job_id_;
  int node_;
};

std::string SpillFileName(const std::string& spill_dir, std::uint64_t file_id);

}  // namespace bdmpi
