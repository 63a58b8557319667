// The order of a chain (broadcast or reduce) over peers spread across racks.
#pragma once

#include <span>
#include <vector>

namespace bdmpi::coll {

// The root first, then the rest of its rack, then the other racks one after
// the other (in increasing rack id, wrapping around after the root's), so
// that the chain crosses each rack boundary once: Twister section 4.2,
// where an interleaved chain was 5 times slower through the core switch.
// Within a rack peers follow in rank order after the root. rack_of_peer
// holds any integer per peer; empty means all in one rack.
std::vector<int> ChainOrder(std::span<const int> rack_of_peer, int npeers,
                            int root);

}  // namespace bdmpi::coll
