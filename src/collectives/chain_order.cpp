#include "collectives/chain_order.h"

#include <algorithm>
#include <string>

#include "common/error.h"

namespace bdmpi::coll {

std::vector<int> ChainOrder(std::span<const int> rack_of_peer, int npeers,
                            int root) {
  BDMPI_ENFORCE(root >= 0 && root < npeers, "root " + std::to_string(root));
  BDMPI_ENFORCE(rack_of_peer.empty() ||
                    rack_of_peer.size() == static_cast<std::size_t>(npeers),
                std::to_string(rack_of_peer.size()) + " racks for " +
                    std::to_string(npeers) + " peers");
  auto rack = [&](int peer) {
    return rack_of_peer.empty() ? 0 : rack_of_peer[peer];
  };
  // Sort key: racks ranked by distance (in rack id order, wrapping) from
  // the root's, then peers by distance (in rank order, wrapping) from the
  // root.
  std::vector<int> racks(rack_of_peer.begin(), rack_of_peer.end());
  std::sort(racks.begin(), racks.end());
  racks.erase(std::unique(racks.begin(), racks.end()), racks.end());
  auto rack_index = [&](int peer) {
    return static_cast<int>(
        std::lower_bound(racks.begin(), racks.end(), rack(peer)) -
        racks.begin());
  };
  const int nracks = std::max(1, static_cast<int>(racks.size()));
  auto key = [&](int peer) {
    int rack_distance = (rack_index(peer) - rack_index(root) + nracks) % nracks;
    int peer_distance = (peer - root + npeers) % npeers;
    return std::pair(rack_distance, peer_distance);
  };
  std::vector<int> order(npeers);
  for (int p = 0; p < npeers; ++p) order[p] = p;
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return key(a) < key(b); });
  return order;
}

}  // namespace bdmpi::coll
