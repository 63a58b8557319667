// Where a job's ranks run: in blocks, node by node, like Open MPI's
// `--map-by slot`. With N ranks on nn nodes every node runs N / nn of them
// and the first N % nn nodes one more, so `mpiexec -n 7` on 3 nodes runs
// ranks 0-2 on node 0, 3-4 on node 1 and 5-6 on node 2. World rank r runs
// on node NodeOf(r) as slave r - FirstRank(NodeOf(r)) of that node. The
// masters, the slaves and bdmpiexec all place ranks with this one class.
//
// A job may also hold room for ranks that MPI_Comm_spawn starts later (up
// to MPI_UNIVERSE_SIZE): job ranks world_size .. universe_size - 1, laid
// out in blocks over the nodes the same way. A node's slots are its own
// ranks first (slave indexes 0 .. Count - 1), then its reserved ones.
#pragma once

namespace bdmpi {

class RankLayout {
 public:
  // Throws Error(kErrArg) unless 1 <= nnodes <= world_size: every node
  // runs at least one rank.
  RankLayout(int world_size, int nnodes, int universe_size = 0);

  int world_size() const { return world_size_; }
  int nnodes() const { return nnodes_; }
  // Ranks on `node`, and the world rank of its first.
  int Count(int node) const { return base_ + (node < extra_ ? 1 : 0); }
  int FirstRank(int node) const { return node * base_ + (node < extra_ ? node : extra_); }
  // Ranks on the node that runs the most.
  int MaxCount() const { return Count(0); }
  bool uneven() const { return extra_ != 0; }
  int NodeOf(int world_rank) const;

  // Ranks the job may hold at once: world_size plus the reserved ones
  // (job ranks world_size onwards; universe_size() == world_size() when
  // nothing may be spawned). NodeOf, SlotOf and SlotCount cover them all.
  int universe_size() const { return universe_size_; }
  int ReservedCount(int node) const {
    return rbase_ + (node < rextra_ ? 1 : 0);
  }
  int FirstReserved(int node) const {
    return world_size_ + node * rbase_ + (node < rextra_ ? node : rextra_);
  }
  // Slots (slave indexes) of `node`: its ranks, then its reserved ones.
  int SlotCount(int node) const { return Count(node) + ReservedCount(node); }
  // The slave index of job rank `job_rank` on NodeOf(job_rank).
  int SlotOf(int job_rank) const;
  // The job rank of slave `slot` of `node`.
  int JobRankOfSlot(int node, int slot) const {
    return slot < Count(node) ? FirstRank(node) + slot
                              : FirstReserved(node) + slot - Count(node);
  }

  // BDMPI_COMM_CWORLD numbers the ranks cyclically across the nodes: slave
  // i of node k has rank i * nnodes + k. The numbers are dense because the
  // nodes with one more rank come first.
  int CworldRank(int world_rank) const;
  int WorldRankOfCworld(int cworld_rank) const;

 private:
  int world_size_;
  int nnodes_;
  int base_;   // ranks on every node
  int extra_;  // nodes with one rank more
  int universe_size_;
  int rbase_ = 0;   // reserved ranks on every node
  int rextra_ = 0;  // nodes with one reserved rank more
};

}  // namespace bdmpi
