#include "common/job_names.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdio>

#include "common/error.h"

namespace bdmpi {

namespace {

std::uint64_t RandomBits() {
  std::uint64_t value = 0;
  while (getrandom(&value, sizeof value, 0) != sizeof value) {
    if (errno != EINTR) ThrowSystemError("getrandom", errno);
  }
  return value;
}

}  // namespace

std::uint32_t NewRequestToken() {
  for (;;) {
    auto token = static_cast<std::uint32_t>(RandomBits());
    if (token != 0) return token;
  }
}

std::string NewJobId() {
  std::uint64_t value = RandomBits();
  char text[17];
  std::snprintf(text, sizeof text, "%016llx",
                static_cast<unsigned long long>(value));
  return text;
}

bool ValidJobId(const std::string& id) {
  if (id.empty() || id.size() > 32) return false;
  for (char c : id) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
              (c >= 'A' && c <= 'Z') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string NewNameTag() { return NewJobId(); }

std::string JobNames::NodePrefix() const {
  return Prefix() + "n" + std::to_string(node_) + "-";
}

std::string JobNames::RequestQueue(const std::string& tag) const {
  return NodePrefix() + "req-" + tag;
}

std::string JobNames::GoQueue(int slave, const std::string& tag) const {
  return NodePrefix() + "go" + std::to_string(slave) + "-" + tag;
}

std::string JobNames::Window(int slave, const std::string& tag) const {
  return NodePrefix() + "win" + std::to_string(slave) + "-" + tag;
}

std::string JobNames::StorageTable(const std::string& tag) const {
  return NodePrefix() + "storage-" + tag;
}

std::string JobNames::SpillDir(const std::string& scratch, const std::string& tag) const {
  return scratch + NodePrefix() + tag;
}

bool JobNames::IsTagged(const std::string& name, const std::string& prefix) {
  constexpr std::size_t kTagSize = 16;
  if (name.size() != prefix.size() + kTagSize || name.compare(0, prefix.size(), prefix) != 0)
    return false;
  return name.find_first_not_of("0123456789abcdef", prefix.size()) == std::string::npos;
}

std::optional<JobNames> JobNames::OfLiveness(const std::string& name) {
  std::string stem = name.rfind('/', 0) == 0 ? name.substr(1) : name;
  constexpr std::size_t kTagSize = 16;
  static const std::string kStart = "bdmpi-", kLive = "-live-";
  if (stem.size() <= kStart.size() + kLive.size() + kTagSize || stem.rfind(kStart, 0) != 0)
    return std::nullopt;
  std::size_t live = stem.size() - kTagSize - kLive.size();
  if (stem.compare(live, kLive.size(), kLive) != 0) return std::nullopt;
  std::string id_node = stem.substr(kStart.size(), live - kStart.size());  // "<id>-n<node>"
  std::size_t dash = id_node.rfind("-n");
  if (dash == std::string::npos) return std::nullopt;
  std::string node = id_node.substr(dash + 2);
  if (node.empty() || node.size() > 9 || node.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  JobNames names(id_node.substr(0, dash), std::stoi(node));
  if (!ValidJobId(names.job_id()) || !IsTagged("/" + stem, names.Liveness("")))
    return std::nullopt;
  return names;
}

std::string SpillFileName(const std::string& spill_dir, std::uint64_t file_id) {
  char name[24];
  std::snprintf(name, sizeof name, "/%016llx",
                static_cast<unsigned long long>(file_id));
  return spill_dir + name;
}

}  // namespace bdmpi
