#include "common/node_limits.h"

#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>

#include "common/message_queue.h"
#include "common/protocol.h"
#include "common/run_report.h"

namespace bdmpi {
namespace {

long ReadProcLong(const char* path) {
  FILE* file = std::fopen(path, "r");
  if (file == nullptr) return -1;
  long value = -1;
  if (std::fscanf(file, "%ld", &value) != 1) value = -1;
  std::fclose(file);
  return value;
}

long HardLimit(int resource) {
  rlimit limit{};
  if (getrlimit(resource, &limit) != 0 || limit.rlim_max == RLIM_INFINITY) return -1;
  return static_cast<long>(limit.rlim_max);
}

// The bytes the kernel charges to RLIMIT_MSGQUEUE for a queue (ipc/mqueue.c:
// a struct msg_msg and a tree node per message besides its bytes).
std::uint64_t QueueBytes(long messages, long message_size) {
  constexpr long kPerMessage = 48 + 48;
  return static_cast<std::uint64_t>(messages) *
         static_cast<std::uint64_t>(message_size + kPerMessage);
}

// Descriptors and mappings a master has besides those per rank (Open MPI,
// hwloc, the loader, its own files), with room to spare.
constexpr long kMasterFiles = 256;
constexpr long kMasterMappings = 2048;
// Descriptors per rank: its go-queue, pidfd and /proc statm.
constexpr long kFilesPerRank = 3;
// Processes besides the ranks: bdmpiexec, masters, launcher, their threads.
constexpr long kOtherProcesses = 64;

}  // namespace

NodeLimits NodeLimits::OfThisHost() {
  NodeLimits limits;
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) == 0)
    limits.shm_bytes = static_cast<std::uint64_t>(fs.f_blocks) * fs.f_frsize;
  limits.max_map_count = ReadProcLong("/proc/sys/vm/max_map_count");
  limits.open_files = HardLimit(RLIMIT_NOFILE);
  // Root is not held to RLIMIT_NPROC nor to queues_max (CAP_SYS_RESOURCE).
  limits.processes = geteuid() == 0 ? -1 : HardLimit(RLIMIT_NPROC);
  long pid_max = ReadProcLong("/proc/sys/kernel/pid_max");
  long threads_max = ReadProcLong("/proc/sys/kernel/threads-max");
  limits.pid_max = pid_max > 0 && threads_max > 0 ? std::min(pid_max, threads_max)
                                                  : std::max(pid_max, threads_max);
  long mq = HardLimit(RLIMIT_MSGQUEUE);
  limits.mq_bytes = mq < 0 ? 0 : static_cast<std::uint64_t>(mq);
  limits.queues_max = geteuid() == 0 ? -1 : ReadMqueueLimit("queues_max");
  long msg_max = ReadMqueueLimit("msg_max");
  if (msg_max > 0) limits.msg_max = msg_max;
  return limits;
}

std::string NodeLimitProblems(const HostShare& share, std::size_t window,
                              const NodeLimits& limits) {
  std::string problems;
  auto add = [&problems](const std::string& line) {
    problems += (problems.empty() ? "" : "\n") + std::string("  ") + line;
  };
  const std::string per_master = std::to_string(share.ranks_per_master) + " ranks per node";
  const std::string on_host = std::to_string(share.ranks) + " ranks on this host" +
                              (share.masters > 1 ? " (" + std::to_string(share.masters) +
                                                       " nodes' masters)"
                                                 : "");
  const std::string fewer =
      "put fewer ranks on a node (-ns, -n) or spread them over more nodes (-nn)";

  std::uint64_t windows = static_cast<std::uint64_t>(share.ranks) * window;
  if (limits.shm_bytes != 0 && windows > limits.shm_bytes)
    add("the ranks' windows need " + HumanBytes(windows) + " of shared memory (" + on_host +
        " x --mem-threshold " + HumanBytes(window) + "), more than /dev/shm holds (" +
        HumanBytes(limits.shm_bytes) + "): lower --mem-threshold, " + fewer +
        ", or enlarge /dev/shm (mount -o remount,size=...)");
  long mappings = share.ranks_per_master + kMasterMappings;
  if (limits.max_map_count > 0 && mappings > limits.max_map_count)
    add("a master maps each rank's window: " + per_master + " need about " +
        std::to_string(mappings) + " mappings, more than vm.max_map_count (" +
        std::to_string(limits.max_map_count) + "): " + fewer + ", or raise it as root (sysctl " +
        "-w vm.max_map_count=" + std::to_string(2 * mappings) + ")");
  long files = kFilesPerRank * share.ranks_per_master + kMasterFiles;
  if (limits.open_files > 0 && files > limits.open_files)
    add("a master holds " + std::to_string(kFilesPerRank) + " descriptors per rank: " +
        per_master + " need about " + std::to_string(files) +
        ", more than the hard limit on open files (RLIMIT_NOFILE, " +
        std::to_string(limits.open_files) + "): " + fewer +
        ", or have it raised (`ulimit -Hn`, limits.conf)");
  long processes = share.ranks + kOtherProcesses;
  if (limits.processes > 0 && processes > limits.processes)
    add(on_host + " are " + std::to_string(share.ranks) +
        " processes, beyond the hard limit on this user's processes (RLIMIT_NPROC, " +
        std::to_string(limits.processes) + "): " + fewer +
        ", or have it raised (`ulimit -Hu`, limits.conf)");
  if (limits.pid_max > 0 && processes > limits.pid_max)
    add(on_host + " are " + std::to_string(share.ranks) +
        " processes, beyond what the kernel allows at once (kernel.pid_max / threads-max, " +
        std::to_string(limits.pid_max) + "): " + fewer + ", or raise them as root (sysctl -w " +
        "kernel.pid_max=...)");
  long queues = share.ranks + share.masters;
  if (limits.queues_max >= 0 && queues > limits.queues_max)
    add(on_host + " need " + std::to_string(queues) +
        " message queues, more than /proc/sys/fs/mqueue/queues_max (" +
        std::to_string(limits.queues_max) + "): " + fewer + ", or raise it as root (`echo " +
        std::to_string(SuggestedQueuesMax(queues)) + " > /proc/sys/fs/mqueue/queues_max`)");
  std::uint64_t queue_bytes =
      static_cast<std::uint64_t>(share.ranks) * QueueBytes(kGoQueueMessages, kReplyMsgSize) +
      static_cast<std::uint64_t>(share.masters) *
          QueueBytes(std::min<long>(kRequestQueueMessages, limits.msg_max), kRequestMsgSize);
  if (limits.mq_bytes != 0 && queue_bytes > limits.mq_bytes)
    add("the message queues of " + on_host + " take " + HumanBytes(queue_bytes) +
        ", more than the hard limit on this user's message-queue bytes (RLIMIT_MSGQUEUE, " +
        HumanBytes(limits.mq_bytes) + "): " + fewer +
        ", or have it raised (`ulimit -Hq`, limits.conf)");
  return problems;
}

void RaiseSoftLimits() {
  for (int resource : {RLIMIT_NOFILE, RLIMIT_MSGQUEUE, RLIMIT_NPROC}) {
    rlimit limit{};
    if (getrlimit(resource, &limit) == 0 && limit.rlim_cur != limit.rlim_max) {
      limit.rlim_cur = limit.rlim_max;
      setrlimit(resource, &limit);
    }
  }
}

}  // namespace bdmpi
