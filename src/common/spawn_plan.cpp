#include "common/spawn_plan.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
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

std::string PortName(const std::string& job_id, int job_rank, std::uint32_t count,
                     std::uint64_t tag, const std::string& tcp) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(tag));
  return "bdmpi-port:" + job_id + ":" + std::to_string(job_rank) + ":" + std::to_string(count) +
         ":" + hex + (tcp.empty() ? std::string() : ":" + tcp);
}

PortAddress ParsePort(const std::string& given) {
  const std::string prefix = "bdmpi-port:";
  auto refuse = [&] { return Error(kErrPort, "'" + given + "' is no port name of MPI_Open_port's"); };
  // A port read back from a file with fgets keeps its newline (MPICH's
  // testconnect passes it so, and MPICH takes it): trailing blanks are no
  // part of a port.
  std::string name = given.substr(0, given.find_last_not_of(" \t\r\n") + 1);
  if (name.rfind(prefix, 0) != 0) throw refuse();
  std::vector<std::string> parts;
  std::size_t start = prefix.size();
  for (;;) {
    std::size_t end = name.find(':', start);
    parts.push_back(name.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if ((parts.size() != 4 && parts.size() != 6) || parts[0].empty()) throw refuse();
  auto number = [&](const std::string& text, int base) {
    char* end = nullptr;
    errno = 0;
    unsigned long long value = std::strtoull(text.c_str(), &end, base);
    if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-') throw refuse();
    return value;
  };
  PortAddress port;
  port.job = parts[0];
  unsigned long long rank = number(parts[1], 10);
  if (rank > 0x7fffffffu) throw refuse();
  port.rank = static_cast<int>(rank);
  port.count = static_cast<std::uint32_t>(number(parts[2], 10));
  port.tag = number(parts[3], 16);
  if (parts.size() == 6) {
    in_addr address{};
    unsigned long long tcp_port = number(parts[5], 10);
    if (inet_pton(AF_INET, parts[4].c_str(), &address) != 1 || tcp_port == 0 ||
        tcp_port > 65535)
      throw refuse();
    port.tcp = parts[4] + ":" + parts[5];
  }
  return port;
}

std::uint64_t ParsePortName(const std::string& name, const std::string& job_id) {
  PortAddress port = ParsePort(name);
  if (port.job != job_id)
    throw Error(kErrPort, "port '" + name + "' belongs to job " + port.job +
                              ", not to this job (" + job_id + ")");
  return static_cast<std::uint64_t>(port.rank) << 32 | port.count;
}

}  // namespace bdmpi
