// Where a job's ranks run: in blocks, node by node, like Open MPI's
// `--map-by slot`. With N ranks on nn nodes every node runs N / nn of them
// and the first N % nn nodes one more, so `mpiexec -n 7` on 3 nodes runs
// ranks 0-2 on node 0, 3-4 on node 1 and 5-6 on node 2. World rank r runs
// on node NodeOf(r) as slave r - FirstRank(NodeOf(r)) of that node. The
// masters, the slaves and bdmpiexec all place ranks with this one class.
#pragma once

namespace bdmpi {

class RankLayout {
 public:
  // Throws Error(kErrArg) unless 1 <= nnodes <= world_size: every node
  // runs at least one rank.
  RankLayout(int world_size, int nnodes);

  int world_size() const { return world_size_; }
  int nnodes() const { return nnodes_; }
  // Ranks on `node`, and the world rank of its first.
  int Count(int node) const { return base_ + (node < extra_ ? 1 : 0); }
  int FirstRank(int node) const { return node * base_ + (node < extra_ ? node : extra_); }
  // Ranks on the node that runs the most.
  int MaxCount() const { return Count(0); }
  bool uneven() const { return extra_ != 0; }
  int NodeOf(int world_rank) const;

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
};

}  // namespace bdmpi
