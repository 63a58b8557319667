#include "common/rank_layout.h"

#include <string>

#include "common/error.h"

namespace bdmpi {

RankLayout::RankLayout(int world_size, int nnodes, int universe_size)
    : world_size_(world_size),
      nnodes_(nnodes),
      universe_size_(universe_size > 0 ? universe_size : world_size) {
  if (nnodes < 1 || world_size < nnodes)
    throw Error(kErrArg, std::to_string(world_size) + " ranks cannot run on " +
                             std::to_string(nnodes) +
                             " nodes: every node needs at least one rank");
  base_ = world_size / nnodes;
  extra_ = world_size % nnodes;
  if (universe_size_ < world_size)
    throw Error(kErrArg, "--universe " + std::to_string(universe_size_) +
                             " is smaller than the job's " + std::to_string(world_size) +
                             " ranks: give at least that many");
  rbase_ = (universe_size_ - world_size) / nnodes;
  rextra_ = (universe_size_ - world_size) % nnodes;
}

int RankLayout::NodeOf(int world_rank) const {
  if (world_rank >= world_size_) {
    // Reserved: the same blocks, over the ranks beyond the world.
    int reserved = world_rank - world_size_;
    int larger = rextra_ * (rbase_ + 1);
    if (reserved < larger) return reserved / (rbase_ + 1);
    return rextra_ + (reserved - larger) / rbase_;
  }
  // The first extra_ nodes hold base_ + 1 ranks each, the others base_.
  int in_larger = extra_ * (base_ + 1);
  if (world_rank < in_larger) return world_rank / (base_ + 1);
  return extra_ + (world_rank - in_larger) / base_;
}

int RankLayout::SlotOf(int job_rank) const {
  int node = NodeOf(job_rank);
  if (job_rank < world_size_) return job_rank - FirstRank(node);
  return Count(node) + job_rank - FirstReserved(node);
}

int RankLayout::CworldRank(int world_rank) const {
  int node = NodeOf(world_rank);
  return (world_rank - FirstRank(node)) * nnodes_ + node;
}

int RankLayout::WorldRankOfCworld(int cworld_rank) const {
  return FirstRank(cworld_rank % nnodes_) + cworld_rank / nnodes_;
}

}  // namespace bdmpi
