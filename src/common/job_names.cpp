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

std::string JobNames::NodePrefix() const {
  return Prefix() + "n" + std::to_string(node_) + "-";
}

std::string JobNames::RequestQueue() const { return NodePrefix() + "req"; }

std::string JobNames::GoQueue(int slave) const {
  return NodePrefix() + "go" + std::to_string(slave);
}

std::string JobNames::Window(int slave) const {
  return NodePrefix() + "win" + std::to_string(slave);
}

std::string JobNames::StorageTable() const { return NodePrefix() + "storage"; }

std::string JobNames::JobDir(const std::string& scratch) const {
  return scratch + "/bdmpi-" + job_id_;
}

std::string JobNames::SpillDir(const std::string& scratch) const {
  return JobDir(scratch) + "/n" + std::to_string(node_);
}

std::string SpillFileName(const std::string& spill_dir, std::uint64_t file_id) {
  char name[24];
  std::snprintf(name, sizeof name, "/%016llx",
                static_cast<unsigned long long>(file_id));
  return spill_dir + name;
}

}  // namespace bdmpi
