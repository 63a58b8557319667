#include "master/options.h"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <cstring>

#include "common/cli.h"
#include "common/error.h"
#include "common/job_names.h"

namespace bdmpi {
namespace {

[[noreturn]] void BadOption(const std::string& message) {
  throw Error(kErrArg, "bdmprun: " + message);
}

}  // namespace

std::size_t ParseByteSize(const std::string& text) {
  // strtoull would accept "-1" as 2^64-1.
  std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos || text[first] == '-')
    BadOption("bad size '" + text + "'");
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || errno == ERANGE) BadOption("bad size '" + text + "'");
  std::string suffix(end);
  unsigned long long scale = 1;
  if (suffix == "k" || suffix == "K" || suffix == "KiB") scale = 1ull << 10;
  else if (suffix == "m" || suffix == "M" || suffix == "MiB") scale = 1ull << 20;
  else if (suffix == "g" || suffix == "G" || suffix == "GiB") scale = 1ull << 30;
  else if (!suffix.empty()) BadOption("bad size suffix in '" + text + "'");
  if (value > std::numeric_limits<unsigned long long>::max() / scale)
    BadOption("size '" + text + "' is too large");
  return static_cast<std::size_t>(value * scale);
}

MasterOptions ParseMasterOptions(int argc, char** argv) {
  MasterOptions options;
  int i = 1;
  auto value = [&](const std::string& name) -> std::string {
    if (i + 1 >= argc) BadOption(name + " needs a value");
    return argv[++i];
  };
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-') break;
    if (arg == "--job-id") options.job_id = value(arg);
    else if (arg == "--scratch-dir") options.scratch_dir = value(arg);
    else if (arg == "-ns") options.nslaves = ParsePositiveInt("bdmprun", arg, value(arg));
    else if (arg == "-nr") options.nrunning = ParsePositiveInt("bdmprun", arg, value(arg));
    else if (arg == "-nc") options.ncritical = ParsePositiveInt("bdmprun", arg, value(arg));
    else if (arg == "--mem-threshold") options.mem_threshold = ParseByteSize(value(arg));
    else if (arg == "--mem-budget") options.mem_budget = ParseByteSize(value(arg));
    else if (arg == "--no-bind") options.bind = false;
    else if (arg == "--topology") options.topology_file = value(arg);
    else if (arg == "--storage-threshold")
      options.storage_threshold = ParseByteSize(value(arg));
    else if (arg == "--node-memory") {
      options.node_memory = ParseByteSize(value(arg));
      if (options.node_memory == 0) BadOption("--node-memory must be at least 1");
    } else if (arg == "--storage-alloc") {
      std::string mode = value(arg);
      if (mode == "on") options.storage_alloc = true;
      else if (mode == "off") options.storage_alloc = false;
      else BadOption("--storage-alloc is 'on' or 'off', got '" + mode + "'");
    } else if (arg == "--prefetch") {
      std::string mode = value(arg);
      if (mode == "eager") options.prefetch = Prefetch::kEager;
      else if (mode == "lazy") options.prefetch = Prefetch::kLazy;
      else BadOption("--prefetch is 'eager' or 'lazy', got '" + mode + "'");
    }
    else if (arg == "--policy") {
      std::string policy = value(arg);
      if (policy == "memory") options.policy = SchedulePolicy::kMemory;
      else if (policy == "fifo") options.policy = SchedulePolicy::kFifo;
      else BadOption("--policy is 'memory' or 'fifo', got '" + policy + "'");
    } else {
      BadOption("unknown option '" + arg + "'");
    }
  }
  for (; i < argc; ++i) options.program.emplace_back(argv[i]);
  if (options.program.empty()) BadOption("no program to run");
  if (options.job_id.empty()) options.job_id = NewJobId();
  if (!ValidJobId(options.job_id))
    BadOption("--job-id may hold only letters, digits, '-' and '_' (max 32)");
  if (options.mem_threshold < 1) options.mem_threshold = 1;
  // Smaller blocks would waste most of a page each.
  if (options.storage_threshold < 4096) options.storage_threshold = 4096;
  return options;
}

}  // namespace bdmpi
