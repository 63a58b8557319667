#include "common/run_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <sstream>

namespace bdmpi {
namespace {

// Beyond this many ranks the table shows totals and the slowest ranks
// instead of a row per rank (the JSON always has every rank).
constexpr std::size_t kMaxRankRows = 32;
constexpr std::size_t kBusiestRanks = 5;

std::string Seconds(std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1e9);
  return text;
}

std::uint64_t BlockedNs(const RankFigures& rank) {
  return rank.ns[static_cast<int>(RankActivity::kBlockedReceive)] +
         rank.ns[static_cast<int>(RankActivity::kBlockedCollective)] +
         rank.ns[static_cast<int>(RankActivity::kBlockedCritical)];
}

std::string RankRow(const std::string& name, const std::string& node, const RankFigures& rank) {
  char line[256];
  std::uint64_t sent = 0, sent_bytes = 0;
  for (int path = 0; path < kMessagePaths; ++path) {
    if (path == static_cast<int>(MessagePath::kCrossNode)) continue;  // counted by how it left
    sent += rank.sent[path].messages;
    sent_bytes += rank.sent[path].bytes;
  }
  std::snprintf(line, sizeof line, "%6s %4s %9s %9s %9s %9s %9s %9s %8" PRIu64 " %8" PRIu64
                " %10s %10s\n",
                name.c_str(), node.c_str(), Seconds(rank.ns[0]).c_str(),
                Seconds(rank.ns[1]).c_str(), Seconds(rank.ns[2]).c_str(),
                Seconds(rank.ns[3]).c_str(), Seconds(rank.ns[4]).c_str(),
                Seconds(rank.ns[5]).c_str(), rank.switches, sent, HumanBytes(sent_bytes).c_str(),
                HumanBytes(rank.written_back).c_str());
  return line;
}

void Add(RankFigures& total, const RankFigures& rank) {
  for (int i = 0; i < kRankActivities; ++i) total.ns[i] += rank.ns[i];
  for (int i = 0; i < kMessagePaths; ++i) {
    total.sent[i].messages += rank.sent[i].messages;
    total.sent[i].bytes += rank.sent[i].bytes;
  }
  total.switches += rank.switches;
  total.released += rank.released;
  total.written_back += rank.written_back;
  total.storage_peak = std::max(total.storage_peak, rank.storage_peak);
  total.read_back += rank.read_back;
  total.major_faults += rank.major_faults;
  total.disk_read += rank.disk_read;
  total.fresh += rank.fresh;
}

}  // namespace

const char* RankActivityKey(RankActivity activity) {
  switch (activity) {
    case RankActivity::kRunning: return "running";
    case RankActivity::kRunnable: return "runnable";
    case RankActivity::kBlockedReceive: return "blocked_receive";
    case RankActivity::kBlockedCollective: return "blocked_collective";
    case RankActivity::kBlockedCritical: return "blocked_critical";
    case RankActivity::kWaitingMemory: return "waiting_memory";
  }
  return "?";
}

const char* MessagePathKey(MessagePath path) {
  switch (path) {
    case MessagePath::kInline: return "inline";
    case MessagePath::kMasterMemory: return "master_memory";
    case MessagePath::kMasterSpill: return "master_spill";
    case MessagePath::kSpillFile: return "spill_file";
    case MessagePath::kCrossNode: return "cross_node";
    case MessagePath::kPlaced: return "placed";
    case MessagePath::kLent: return "lent";
    case MessagePath::kDirect: return "direct";
  }
  return "?";
}

std::string JsonQuoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string HumanBytes(std::uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0) std::snprintf(text, sizeof text, "%" PRIu64 " B", bytes);
  else std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

// Lines "N node rss spill buffered" (then "S node ..." its running slots,
// "B node adaptive least most mean" its budget), "R rank node ns... switches released
// written peak (messages bytes)...", "C operation count bytes ns steps",
// "W wall nnodes nranks".
std::string RunReport::Serialize() const {
  std::ostringstream out;
  out << "W " << wall_s << ' ' << nnodes << ' ' << nranks << '\n';
  for (const NodeFigures& node : nodes) {
    const NetworkFigures& net = node.network;
    out << "N " << node.node << ' ' << node.peak_rss_kib << ' ' << node.spill_bytes << ' '
        << node.buffered_peak << ' ' << net.sent.messages << ' ' << net.sent.bytes << ' '
        << net.sent_chunks << ' ' << net.send_ns << ' ' << net.received.messages << ' '
        << net.received.bytes << ' ' << net.received_chunks << ' ' << net.receive_ns << '\n';
    out << "S " << node.node << ' ' << node.running_limit << ' ' << node.running_auto << ' '
        << node.cores << ' ' << node.memory_holds << ' ' << node.memory_hold_ns << ' '
        << node.running_ns.size();
    for (std::uint64_t ns : node.running_ns) out << ' ' << ns;
    out << '\n';
    out << "B " << node.node << ' ' << node.budget_adaptive << ' ' << node.budget_least << ' '
        << node.budget_most << ' ' << node.budget_mean << '\n';
  }
  for (const RankFigures& rank : ranks) {
    out << "R " << rank.rank << ' ' << rank.node;
    for (std::uint64_t ns : rank.ns) out << ' ' << ns;
    out << ' ' << rank.switches << ' ' << rank.released << ' ' << rank.written_back << ' '
        << rank.storage_peak << ' ' << rank.read_back << ' ' << rank.major_faults;
    for (const Count& count : rank.sent) out << ' ' << count.messages << ' ' << count.bytes;
    out << ' ' << rank.disk_read << ' ' << rank.fresh << '\n';
  }
  for (const CollectiveFigures& coll : collectives) {
    out << "C " << coll.operation << ' ' << coll.count << ' ' << coll.bytes << ' '
        << coll.inter_node_ns << ' ' << coll.inter_node_steps << ' ' << coll.algorithms.size();
    for (const auto& [name, steps] : coll.algorithms) out << ' ' << name << ' ' << steps;
    out << '\n';
  }
  return out.str();
}

RunReport RunReport::Parse(const std::string& text) {
  RunReport report;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    char kind = 0;
    fields >> kind;
    if (kind == 'W') {
      fields >> report.wall_s >> report.nnodes >> report.nranks;
    } else if (kind == 'N') {
      NodeFigures node;
      NetworkFigures& net = node.network;
      fields >> node.node >> node.peak_rss_kib >> node.spill_bytes >> node.buffered_peak >>
          net.sent.messages >> net.sent.bytes >> net.sent_chunks >> net.send_ns >>
          net.received.messages >> net.received.bytes >> net.received_chunks >> net.receive_ns;
      report.nodes.push_back(node);
    } else if (kind == 'S') {
      // Follows its node's N line.
      int node = -1;
      fields >> node;
      if (report.nodes.empty() || report.nodes.back().node != node) continue;
      NodeFigures& figures = report.nodes.back();
      std::size_t counts = 0;
      fields >> figures.running_limit >> figures.running_auto >> figures.cores >>
          figures.memory_holds >> figures.memory_hold_ns >> counts;
      for (std::size_t i = 0; i < counts && i < 1u << 20; ++i) {
        std::uint64_t ns = 0;
        if (!(fields >> ns)) break;
        figures.running_ns.push_back(ns);
      }
    } else if (kind == 'B') {
      // Follows its node's N line.
      int node = -1;
      fields >> node;
      if (report.nodes.empty() || report.nodes.back().node != node) continue;
      NodeFigures& figures = report.nodes.back();
      fields >> figures.budget_adaptive >> figures.budget_least >> figures.budget_most >>
          figures.budget_mean;
    } else if (kind == 'R') {
      RankFigures rank;
      fields >> rank.rank >> rank.node;
      for (std::uint64_t& ns : rank.ns) fields >> ns;
      fields >> rank.switches >> rank.released >> rank.written_back >> rank.storage_peak >>
          rank.read_back >> rank.major_faults;
      for (Count& count : rank.sent) fields >> count.messages >> count.bytes;
      fields >> rank.disk_read >> rank.fresh;
      report.ranks.push_back(rank);
    } else if (kind == 'C') {
      CollectiveFigures coll;
      std::size_t algorithms = 0;
      fields >> coll.operation >> coll.count >> coll.bytes >> coll.inter_node_ns >>
          coll.inter_node_steps >> algorithms;
      for (std::size_t i = 0; i < algorithms; ++i) {
        std::string name;
        std::uint64_t steps = 0;
        if (fields >> name >> steps) coll.algorithms[name] += steps;
      }
      report.collectives.push_back(coll);
    }
  }
  return report;
}

void RunReport::Merge(const RunReport& other) {
  // Each master counts from its own start, and mpirun may start node 0's
  // last: the job lasted as long as its longest-lived master saw.
  wall_s = std::max(wall_s, other.wall_s);
  nodes.insert(nodes.end(), other.nodes.begin(), other.nodes.end());
  ranks.insert(ranks.end(), other.ranks.begin(), other.ranks.end());
  for (const CollectiveFigures& coll : other.collectives) {
    auto same = std::find_if(collectives.begin(), collectives.end(),
                             [&](const CollectiveFigures& c) { return c.operation == coll.operation; });
    if (same == collectives.end()) {
      collectives.push_back(coll);
      continue;
    }
    same->count += coll.count;
    same->bytes += coll.bytes;
    same->inter_node_ns += coll.inter_node_ns;
    same->inter_node_steps += coll.inter_node_steps;
    for (const auto& [name, steps] : coll.algorithms) same->algorithms[name] += steps;
  }
}

void RunReport::Sort() {
  std::sort(nodes.begin(), nodes.end(),
            [](const NodeFigures& a, const NodeFigures& b) { return a.node < b.node; });
  std::sort(ranks.begin(), ranks.end(),
            [](const RankFigures& a, const RankFigures& b) { return a.rank < b.rank; });
  std::sort(collectives.begin(), collectives.end(),
            [](const CollectiveFigures& a, const CollectiveFigures& b) {
              return a.operation < b.operation;
            });
}

std::string RunReport::Table() const {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "bdmpi report: %d rank(s) on %d node(s), %.3f s wall%s%s\n",
                nranks, nnodes, wall_s, partial.empty() ? "" : "; PARTIAL: ",
                partial.c_str());
  out += line;
  out += "  rank node   running  runnable  blk-recv  blk-coll  blk-crit    memory switches"
         "     sent sent bytes  wrote back\n";
  RankFigures total;
  for (const RankFigures& rank : ranks) Add(total, rank);
  if (ranks.size() <= kMaxRankRows) {
    for (const RankFigures& rank : ranks)
      out += RankRow(std::to_string(rank.rank), std::to_string(rank.node), rank);
  } else {
    std::vector<const RankFigures*> busiest;
    for (const RankFigures& rank : ranks) busiest.push_back(&rank);
    std::size_t shown = std::min(kBusiestRanks, busiest.size());
    std::partial_sort(busiest.begin(), busiest.begin() + static_cast<long>(shown), busiest.end(),
                      [](const RankFigures* a, const RankFigures* b) {
                        return BlockedNs(*a) > BlockedNs(*b);
                      });
    out += "  (the " + std::to_string(shown) + " ranks blocked longest; all in --report=json)\n";
    for (std::size_t i = 0; i < shown; ++i)
      out += RankRow(std::to_string(busiest[i]->rank), std::to_string(busiest[i]->node),
                     *busiest[i]);
  }
  out += RankRow("all", "", total);
  out += "messages by path:";
  for (int path = 0; path < kMessagePaths; ++path) {
    std::snprintf(line, sizeof line, " %s %" PRIu64 " (%s)%s", MessagePathKey(MessagePath(path)),
                  total.sent[path].messages, HumanBytes(total.sent[path].bytes).c_str(),
                  path + 1 < kMessagePaths ? "," : "\n");
    out += line;
  }
  std::snprintf(line, sizeof line,
                "storage-backed memory: %s written back in %" PRIu64
                " switch-out(s); read back %s up front, %" PRIu64
                " major page fault(s), %s read from disk by the ranks, %s of receive"
                " buffers not read back; largest rank %s\n",
                HumanBytes(total.written_back).c_str(), total.released,
                HumanBytes(total.read_back).c_str(), total.major_faults,
                HumanBytes(total.disk_read).c_str(), HumanBytes(total.fresh).c_str(),
                HumanBytes(total.storage_peak).c_str());
  out += line;
  for (const NodeFigures& node : nodes) {
    std::snprintf(line, sizeof line,
                  "node %d: master peak RSS %s, %s through spill files, peak buffered %s\n",
                  node.node, HumanBytes(static_cast<std::uint64_t>(node.peak_rss_kib) * 1024).c_str(),
                  HumanBytes(node.spill_bytes).c_str(), HumanBytes(node.buffered_peak).c_str());
    out += line;
    if (node.running_limit > 0) {
      std::string counts;
      for (std::size_t k = 0; k < node.running_ns.size(); ++k)
        counts += (k ? ", " : "") + std::to_string(k) + ": " + Seconds(node.running_ns[k]) + " s";
      std::snprintf(line, sizeof line, "node %d ranks running at once (-nr %s%d%s): %s", node.node,
                    node.running_auto ? "auto: " : "", node.running_limit,
                    node.running_auto ? (" of " + std::to_string(node.cores) + " core(s)").c_str()
                                      : "",
                    counts.c_str());
      out += line;
      if (node.running_auto) {
        std::snprintf(line, sizeof line, "; fewer for memory %" PRIu64 " time(s), %s s\n",
                      node.memory_holds, Seconds(node.memory_hold_ns).c_str());
        out += line;
      } else {
        out += "\n";
      }
    }
    if (node.budget_most > 0) {
      if (node.budget_adaptive)
        std::snprintf(line, sizeof line,
                      "node %d budget for the ranks: followed the cgroup's reclaim, %s to %s, "
                      "mean %s\n",
                      node.node, HumanBytes(node.budget_least).c_str(),
                      HumanBytes(node.budget_most).c_str(), HumanBytes(node.budget_mean).c_str());
      else
        std::snprintf(line, sizeof line, "node %d budget for the ranks: %s\n", node.node,
                      HumanBytes(node.budget_most).c_str());
      out += line;
    }
    const NetworkFigures& net = node.network;
    if (nnodes < 2) continue;
    std::snprintf(line, sizeof line,
                  "node %d network: sent %" PRIu64 " message(s) (%s, %" PRIu64
                  " chunk(s), %s s), received %" PRIu64 " (%s, %" PRIu64 " chunk(s), %s s)\n",
                  node.node, net.sent.messages, HumanBytes(net.sent.bytes).c_str(),
                  net.sent_chunks, Seconds(net.send_ns).c_str(), net.received.messages,
                  HumanBytes(net.received.bytes).c_str(), net.received_chunks,
                  Seconds(net.receive_ns).c_str());
    out += line;
  }
  for (const CollectiveFigures& coll : collectives) {
    std::string algorithms;
    for (const auto& [name, steps] : coll.algorithms)
      algorithms += (algorithms.empty() ? " (" : ", ") + name + " " + std::to_string(steps);
    if (!algorithms.empty()) algorithms += ")";
    std::snprintf(line, sizeof line,
                  "collective %s: %" PRIu64 " call(s), %s, inter-node %s s in %" PRIu64
                  " step(s)%s\n",
                  coll.operation.c_str(), coll.count, HumanBytes(coll.bytes).c_str(),
                  Seconds(coll.inter_node_ns).c_str(), coll.inter_node_steps,
                  algorithms.c_str());
    out += line;
  }
  return out;
}

std::string RunReport::Json() const {
  std::ostringstream out;
  out << "{\n  \"schema\": \"bdmpi-run-report/8\",\n";
  out << "  \"wall_s\": " << wall_s << ",\n  \"nnodes\": " << nnodes
      << ",\n  \"nranks\": " << nranks << ",\n";
  out << "  \"partial\": " << (partial.empty() ? "false" : "true")
      << ",\n  \"partial_reason\": " << JsonQuoted(partial) << ",\n";
  out << "  \"missing_nodes\": [";
  for (std::size_t i = 0; i < missing_nodes.size(); ++i)
    out << (i == 0 ? "" : ", ") << missing_nodes[i];
  out << "],\n";
  out << "  \"nodes\": [";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NodeFigures& node = nodes[i];
    out << (i ? "," : "") << "\n    {\"node\": " << node.node
        << ", \"master_peak_rss_bytes\": " << (node.peak_rss_kib < 0 ? 0 : node.peak_rss_kib * 1024)
        << ", \"spill_bytes\": " << node.spill_bytes
        << ", \"buffered_peak_bytes\": " << node.buffered_peak << ", \"network\": {";
    const NetworkFigures& net = node.network;
    out << "\"sent\": {\"messages\": " << net.sent.messages << ", \"bytes\": " << net.sent.bytes
        << ", \"chunks\": " << net.sent_chunks
        << ", \"seconds\": " << static_cast<double>(net.send_ns) / 1e9
        << "}, \"received\": {\"messages\": " << net.received.messages
        << ", \"bytes\": " << net.received.bytes << ", \"chunks\": " << net.received_chunks
        << ", \"seconds\": " << static_cast<double>(net.receive_ns) / 1e9 << "}}";
    out << ", \"running\": {\"limit\": " << node.running_limit
        << ", \"auto\": " << (node.running_auto ? "true" : "false") << ", \"cores\": " << node.cores
        << ", \"seconds\": [";
    for (std::size_t k = 0; k < node.running_ns.size(); ++k)
      out << (k ? ", " : "") << static_cast<double>(node.running_ns[k]) / 1e9;
    out << "], \"held_for_memory\": " << node.memory_holds
        << ", \"held_for_memory_s\": " << static_cast<double>(node.memory_hold_ns) / 1e9 << "}"
        << ", \"budget\": {\"adaptive\": " << (node.budget_adaptive ? "true" : "false")
        << ", \"least_bytes\": " << node.budget_least << ", \"most_bytes\": " << node.budget_most
        << ", \"mean_bytes\": " << node.budget_mean << "}}";
  }
  out << "\n  ],\n  \"ranks\": [";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankFigures& rank = ranks[i];
    out << (i ? "," : "") << "\n    {\"rank\": " << rank.rank << ", \"node\": " << rank.node
        << ", \"seconds\": {";
    for (int a = 0; a < kRankActivities; ++a)
      out << (a ? ", " : "") << '"' << RankActivityKey(RankActivity(a))
          << "\": " << static_cast<double>(rank.ns[a]) / 1e9;
    out << "}, \"switches\": " << rank.switches << ", \"switch_outs\": " << rank.released
        << ", \"written_back_bytes\": " << rank.written_back
        << ", \"storage_peak_bytes\": " << rank.storage_peak
        << ", \"read_back_bytes\": " << rank.read_back
        << ", \"major_faults\": " << rank.major_faults
        << ", \"disk_read_bytes\": " << rank.disk_read << ", \"fresh_bytes\": " << rank.fresh
        << ", \"sent\": {";
    for (int p = 0; p < kMessagePaths; ++p)
      out << (p ? ", " : "") << '"' << MessagePathKey(MessagePath(p))
          << "\": {\"messages\": " << rank.sent[p].messages << ", \"bytes\": " << rank.sent[p].bytes
          << "}";
    out << "}}";
  }
  out << "\n  ],\n  \"collectives\": [";
  for (std::size_t i = 0; i < collectives.size(); ++i) {
    const CollectiveFigures& coll = collectives[i];
    out << (i ? "," : "") << "\n    {\"operation\": " << JsonQuoted(coll.operation)
        << ", \"count\": " << coll.count << ", \"bytes\": " << coll.bytes
        << ", \"inter_node_seconds\": " << static_cast<double>(coll.inter_node_ns) / 1e9
        << ", \"inter_node_steps\": " << coll.inter_node_steps << ", \"algorithms\": {";
    bool first = true;
    for (const auto& [name, steps] : coll.algorithms) {
      out << (first ? "" : ", ") << JsonQuoted(name) << ": " << steps;
      first = false;
    }
    out << "}}";
  }
  out << "\n  ]\n}\n";
  return out.str();
}

}  // namespace bdmpi
