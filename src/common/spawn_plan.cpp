#include "common/spawn_plan.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "common/error.h"

namespace bdmpi {
namespace {

void Put(std::vector<std::byte>& out, const std::string& field) {
  const auto* bytes = reinterpret_cast<const std::byte*>(field.c_str());
  out.insert(out.end(), bytes, bytes + field.size() + 1);
}

class Fields {
 public:
  Fields(const std::byte* data, std::size_t bytes)
      : data_(reinterpret_cast<const char*>(data)), bytes_(bytes) {}
  std::string Next() {
    const void* end = std::memchr(data_ + at_, '\0', bytes_ - at_);
    if (at_ >= bytes_ || end == nullptr) throw Error(kErrArg, "a spawn plan is cut short");
    std::string field(data_ + at_, static_cast<const char*>(end));
    at_ += field.size() + 1;
    return field;
  }
  bool AtEnd() const { return at_ >= bytes_; }
  int NextInt() {
    std::string field = Next();
    char* end = nullptr;
    long value = std::strtol(field.c_str(), &end, 10);
    if (field.empty() || *end != '\0' || value < -1 || value > (1 << 30))
      throw Error(kErrArg, "a spawn plan holds '" + field + "' for a number");
    return static_cast<int>(value);
  }

 private:
  const char* data_;
  std::size_t bytes_;
  std::size_t at_ = 0;
};

}  // namespace

int SpawnPlan::TotalRanks() const {
  int total = 0;
  for (const SpawnCommand& command : commands) total += command.maxprocs;
  return total;
}

std::vector<std::byte> SpawnPlan::Encode() const {
  std::vector<std::byte> out;
  Put(out, std::to_string(commands.size()));
  for (const SpawnCommand& command : commands) {
    Put(out, std::to_string(command.maxprocs));
    Put(out, std::to_string(command.node));
    Put(out, command.host);
    Put(out, command.wdir);
    Put(out, command.command);
    Put(out, std::to_string(command.args.size()));
    for (const std::string& arg : command.args) Put(out, arg);
  }
  return out;
}

int NodeOfHost(const std::string& host, const std::vector<std::string>& hosts, int own_node) {
  if (host == "localhost") return own_node;
  if (own_node >= 0 && static_cast<std::size_t>(own_node) < hosts.size() &&
      hosts[static_cast<std::size_t>(own_node)] == host)
    return own_node;
  auto found = std::find(hosts.begin(), hosts.end(), host);
  return found == hosts.end() ? -1 : static_cast<int>(found - hosts.begin());
}

SpawnPlan SpawnPlan::Decode(const std::byte* data, std::size_t bytes) {
  Fields fields(data, bytes);
  SpawnPlan plan;
  int count = fields.NextInt();
  for (int i = 0; i < count; ++i) {
    SpawnCommand command;
    command.maxprocs = fields.NextInt();
    command.node = fields.NextInt();
    command.host = fields.Next();
    command.wdir = fields.Next();
    command.command = fields.Next();
    int nargs = fields.NextInt();
    for (int a = 0; a < nargs; ++a) command.args.push_back(fields.Next());
    plan.commands.push_back(std::move(command));
  }
  return plan;
}

std::vector<std::byte> EncodeFields(const std::vector<std::string>& fields) {
  std::vector<std::byte> out;
  for (const std::string& field : fields) Put(out, field);
  return out;
}

std::vector<std::string> DecodeFields(const std::byte* data, std::size_t bytes) {
  Fields fields(data, bytes);
  std::vector<std::string> out;
  while (!fields.AtEnd()) out.push_back(fields.Next());
  return out;
}

std::string PortName(const std::string& job_id, int job_rank, std::uint32_t count) {
  return "bdmpi-port:" + job_id + ":" + std::to_string(job_rank) + ":" + std::to_string(count);
}

std::uint64_t ParsePortName(const std::string& name, const std::string& job_id) {
  const std::string prefix = "bdmpi-port:";
  if (name.rfind(prefix, 0) != 0)
    throw Error(kErrPort, "'" + name + "' is no port name of MPI_Open_port's");
  std::size_t job_end = name.find(':', prefix.size());
  std::size_t rank_end = job_end == std::string::npos ? job_end : name.find(':', job_end + 1);
  if (rank_end == std::string::npos)
    throw Error(kErrPort, "'" + name + "' is no port name of MPI_Open_port's");
  std::string job = name.substr(prefix.size(), job_end - prefix.size());
  if (job != job_id)
    throw Error(kErrPort, "port '" + name + "' belongs to job " + job + ", not to this job (" +
                              job_id + "): BDMPI connects ranks of one job only (connecting "
                              "two jobs is not supported; start both parts as one job)");
  char* end = nullptr;
  long rank = std::strtol(name.c_str() + job_end + 1, &end, 10);
  unsigned long count = std::strtoul(name.c_str() + rank_end + 1, &end, 10);
  if (rank < 0 || *end != '\0')
    throw Error(kErrPort, "'" + name + "' is no port name of MPI_Open_port's");
  return static_cast<std::uint64_t>(rank) << 32 | (count & 0xffffffffu);
}

}  // namespace bdmpi
