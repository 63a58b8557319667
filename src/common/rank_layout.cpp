#include "common/rank_layout.h"

#include <string>

#include "common/error.h"

namespace bdmpi {

RankLayout::RankLayout(int world_size, int nnodes)
    : world_size_(world_size), nnodes_(nnodes) {
  if (nnodes < 1 || world_size < nnodes)
    throw Error(kErrArg, std::to_string(world_size) + " ranks cannot run on " +
                             std::to_string(nnodes) +
                             " nodes: every node needs at least one rank");
  base_ = world_size / nnodes;
  extra_ = world_size % nnodes;
}

int RankLayout::NodeOf(int world_rank) const {
  // The first extra_ nodes hold base_ + 1 ranks each, the others base_.
  int in_larger = extra_ * (base_ + 1);
  if (world_rank < in_larger) return world_rank / (base_ + 1);
  return extra_ + (world_rank - in_larger) / base_;
}

int RankLayout::CworldRank(int world_rank) const {
  int node = NodeOf(world_rank);
  return (world_rank - FirstRank(node)) * nnodes_ + node;
}

int RankLayout::WorldRankOfCworld(int cworld_rank) const {
  return FirstRank(cworld_rank % nnodes_) + cworld_rank / nnodes_;
}

}  // namespace bdmpi
