#include "slave/tool/variables.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

#include "common/error.h"
#include "common/job_names.h"
#include "common/rank_wiring.h"
#include "common/job_options.h"
#include "common/run_report.h"
#include "slave/tool/counters.h"
#include "slave/tool/events.h"

namespace bdmpi::tool {
namespace {

using Row = OptionRow<JobOptions>;

// -nr -> bdmpi_running_slots, --mem-threshold -> bdmpi_mem_threshold.
std::string VariableName(const Row& row) {
  static const std::map<std::string, std::string> kShort = {
      {"-np", "ranks"}, {"-ns", "node_ranks"}, {"-nr", "running_slots"},
      {"-nc", "critical_slots"}};
  auto found = kShort.find(row.name);
  std::string name = found != kShort.end() ? found->second : row.name;
  name.erase(0, name.find_first_not_of('-'));
  std::replace_if(name.begin(), name.end(), [](char c) { return c == '-' || c == '='; }, '_');
  return "bdmpi_" + name;
}

// "a|b|c" of lower-case names: an enumeration's items; else none.
std::vector<std::string> Choices(const Row& row) {
  std::vector<std::string> items;
  if (row.value_name.find('|') == std::string::npos) return items;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = row.value_name.find('|', start);
    std::string item = row.value_name.substr(start, end - start);
    if (item.empty() || item.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos)
      return {};
    items.push_back(item);
    if (end == std::string::npos) return items;
    start = end + 1;
  }
}

// Which category (index in Categories()) a setting belongs to.
int CategoryOf(const std::string& name) {
  static const std::map<std::string, int> kCategories = {
      {"bdmpi_ranks", 1}, {"bdmpi_node_ranks", 1}, {"bdmpi_job_id", 1},
      {"bdmpi_scratch_dir", 1}, {"bdmpi_topology", 1}, {"bdmpi_preload", 1},
      {"bdmpi_peer_timeout", 1},
      {"bdmpi_running_slots", 2}, {"bdmpi_critical_slots", 2}, {"bdmpi_policy", 2},
      {"bdmpi_no_bind", 2},
      {"bdmpi_mem_threshold", 3}, {"bdmpi_memory_payloads", 3}, {"bdmpi_single_copy", 3},
      {"bdmpi_mem_budget", 3}, {"bdmpi_placed_messages", 3},
      {"bdmpi_direct_max", 3}, {"bdmpi_direct_poll", 3}, {"bdmpi_direct_queue", 3},
      {"bdmpi_storage_alloc", 4}, {"bdmpi_storage_threshold", 4}, {"bdmpi_node_memory", 4},
      {"bdmpi_prefetch", 4},
      {"bdmpi_chunk_size", 5},
      {"bdmpi_report", 6}, {"bdmpi_report_json", 6}, {"bdmpi_trace", 6},
      {"bdmpi_progress", 6}, {"bdmpi_no_progress", 6}, {"bdmpi_log", 6},
      {"bdmpi_log_categories", 6}};
  auto found = kCategories.find(name);
  if (found != kCategories.end()) return found->second;
  if (name.ends_with("_algorithm")) return 5;
  return 0;  // a setting not sorted yet: directly under "bdmpi"
}

struct Tables {
  std::vector<Enumeration> enumerations;
  std::vector<ControlVariable> cvars;
  std::vector<PerformanceVariable> pvars;
  std::vector<Category> categories;
};

std::uint64_t Load(const std::atomic<std::uint64_t>& counter) {
  return counter.load(std::memory_order_relaxed);
}

Tables Build() {
  Tables t;
  t.categories = {
      {"bdmpi", "BDMPI: the job's settings, this rank's counters and events", {}, {}, {}, {}},
      {"bdmpi_launch", "where and how the job runs: ranks, names, directories", {}, {}, {}, {}},
      {"bdmpi_scheduling", "running slots, critical sections, which rank runs next", {}, {}, {},
       {}},
      {"bdmpi_messages", "how messages travel between ranks, by size and memory", {}, {}, {},
       {}},
      {"bdmpi_memory", "storage-backed memory: write-back and read-back", {}, {}, {}, {}},
      {"bdmpi_collectives", "the masters' inter-node algorithms", {}, {}, {}, {}},
      {"bdmpi_observability", "reports, traces, progress and logs", {}, {}, {}, {}},
  };
  for (std::size_t i = 0; i < EventTypes().size(); ++i)
    t.categories[static_cast<std::size_t>(EventTypes()[i].category)].events.push_back(
        static_cast<int>(i));
  for (int i = 1; i < static_cast<int>(t.categories.size()); ++i)
    t.categories[0].categories.push_back(i);

  const std::vector<Row>& rows = JobOptionTable();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    if (!row.get) continue;  // the launcher's own
    ControlVariable cvar;
    cvar.name = VariableName(row);
    cvar.row = i;
    cvar.description = row.help;
    if (!row.default_text.empty()) cvar.description += " (default " + row.default_text + ")";
    cvar.description += "; option " + row.name;
    if (!row.variable.empty()) cvar.description += ", variable " + row.variable;
    std::vector<std::string> items = Choices(row);
    if (row.Flag() || row.value_name == "N") {
      cvar.kind = ValueKind::kInt;
    } else if (row.value_name == "N|auto") {
      cvar.kind = ValueKind::kInt;
      cvar.description += "; 0: auto, before a master resolved it";
    } else if (row.value_name == "SIZE") {
      cvar.kind = ValueKind::kBytes;
      cvar.description += "; in bytes";
    } else if (!items.empty()) {
      cvar.kind = ValueKind::kInt;
      cvar.enumeration = static_cast<int>(t.enumerations.size());
      t.enumerations.push_back({cvar.name, items});
    }
    std::string unset = row.get(JobOptions{});
    if (cvar.kind == ValueKind::kBytes && (unset.empty() || unset == "0"))
      cvar.description += "; 0: the default";
    else if (row.value_name == "N" && unset == "0")
      cvar.description += "; 0: the default";
    int category = CategoryOf(cvar.name);
    t.categories[static_cast<std::size_t>(category)].cvars.push_back(
        static_cast<int>(t.cvars.size()));
    t.cvars.push_back(std::move(cvar));
  }

  auto add_pvar = [&](int category, PerformanceVariable pvar) {
    t.categories[static_cast<std::size_t>(category)].pvars.push_back(
        static_cast<int>(t.pvars.size()));
    t.pvars.push_back(std::move(pvar));
  };
  add_pvar(2, {"bdmpi_switches", "times this rank gave up its running slot (blocked in MPI)",
               MPI_T_PVAR_CLASS_COUNTER, false,
               [](int) { StorageSlot* s = RankSlot(); return s ? Load(s->switches) : 0; }, 0});
  add_pvar(4, {"bdmpi_switch_outs", "times this rank wrote its storage-backed memory back",
               MPI_T_PVAR_CLASS_COUNTER, false,
               [](int) { StorageSlot* s = RankSlot(); return s ? Load(s->switch_outs) : 0; }, 0});
  add_pvar(4, {"bdmpi_written_back_bytes", "bytes of storage-backed memory written back",
               MPI_T_PVAR_CLASS_COUNTER, false,
               [](int) { StorageSlot* s = RankSlot(); return s ? Load(s->written_back) : 0; }, 0});
  add_pvar(4, {"bdmpi_read_back_bytes",
               "bytes read back up front at switch-ins (the blocks the rank rewrote; "
               "the rest of the read-back is page faults)",
               MPI_T_PVAR_CLASS_COUNTER, false,
               [](int) { StorageSlot* s = RankSlot(); return s ? Load(s->read_back) : 0; }, 0});
  add_pvar(4, {"bdmpi_storage_bytes", "bytes this rank holds in storage-backed memory now",
               MPI_T_PVAR_CLASS_LEVEL, true,
               [](int) { StorageSlot* s = RankSlot(); return s ? Load(s->allocated) : 0; }, 0});
  for (int path = 0; path < kMessagePaths; ++path) {
    std::string key = MessagePathKey(static_cast<MessagePath>(path));
    bool direct = path == static_cast<int>(MessagePath::kDirect);
    std::string what = "point-to-point sends of this rank by path " + key +
                       " (docs/observability.md), counted " +
                       (direct ? "when written" : "when its master took them");
    add_pvar(3, {"bdmpi_sent_" + key + "_messages", "messages: " + what,
                 MPI_T_PVAR_CLASS_COUNTER, false,
                 [](int p) {
                   StorageSlot* s = RankSlot();
                   if (s == nullptr) return std::uint64_t{0};
                   return p == static_cast<int>(MessagePath::kDirect) ? Load(s->direct_messages)
                                                                      : Load(s->sent_messages[p]);
                 },
                 path});
    add_pvar(3, {"bdmpi_sent_" + key + "_bytes", "bytes: " + what,
                 MPI_T_PVAR_CLASS_COUNTER, false,
                 [](int p) {
                   StorageSlot* s = RankSlot();
                   if (s == nullptr) return std::uint64_t{0};
                   return p == static_cast<int>(MessagePath::kDirect) ? Load(s->direct_bytes)
                                                                      : Load(s->sent_bytes[p]);
                 },
                 path});
  }
  return t;
}

const Tables& TheTables() {
  static const Tables tables = Build();
  return tables;
}

// An enumeration's index of `text` ("" standing for the row's default).
int ItemIndex(const Enumeration& enumeration, const Row& row, std::string text) {
  if (text.empty()) text = row.default_text.substr(0, row.default_text.find_first_of(":; "));
  auto found = std::find(enumeration.items.begin(), enumeration.items.end(), text);
  return found == enumeration.items.end() ? -1
                                          : static_cast<int>(found - enumeration.items.begin());
}

}  // namespace

const std::vector<Enumeration>& Enumerations() { return TheTables().enumerations; }
const std::vector<ControlVariable>& ControlVariables() { return TheTables().cvars; }
const std::vector<PerformanceVariable>& PerformanceVariables() { return TheTables().pvars; }
const std::vector<Category>& Categories() { return TheTables().categories; }

MPI_Datatype DatatypeOf(const ControlVariable& cvar) {
  switch (cvar.kind) {
    case ValueKind::kInt: return MPI_INT;
    case ValueKind::kBytes: return MPI_UNSIGNED_LONG_LONG;
    case ValueKind::kText: return MPI_CHAR;
  }
  return MPI_CHAR;
}

int CountOf(const ControlVariable& cvar) {
  if (cvar.kind != ValueKind::kText) return 1;
  const Row& row = JobOptionTable()[cvar.row];
  return static_cast<int>(row.get(ThisRankJobSettings()).size()) + 1;
}

void ReadControl(const ControlVariable& cvar, void* buf, int count) {
  const Row& row = JobOptionTable()[cvar.row];
  std::string text = row.get(ThisRankJobSettings());
  switch (cvar.kind) {
    case ValueKind::kInt: {
      int value = 0;
      if (cvar.enumeration >= 0)
        value = ItemIndex(Enumerations()[static_cast<std::size_t>(cvar.enumeration)], row, text);
      else if (row.Flag())
        value = text.empty() ? 0 : 1;
      else
        value = static_cast<int>(std::strtol(text.c_str(), nullptr, 10));  // "auto": 0
      std::memcpy(buf, &value, sizeof value);
      return;
    }
    case ValueKind::kBytes: {
      unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
      std::memcpy(buf, &value, sizeof value);
      return;
    }
    case ValueKind::kText: {
      if (count <= 0) return;
      std::size_t n = std::min(text.size(), static_cast<std::size_t>(count - 1));
      std::memcpy(buf, text.data(), n);
      static_cast<char*>(buf)[n] = '\0';
      return;
    }
  }
}

}  // namespace bdmpi::tool
