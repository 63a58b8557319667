#include "master/network/peer_watch.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "common/error.h"

namespace bdmpi {
namespace {

using Clock = PeerWatch::Clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(PeerWatch, ReportsOnlyPeersSilentLongerThanTheTimeout) {
  Clock::time_point t0{};
  PeerWatch watch(4, 1, seconds(10), t0);
  for (int s = 1; s <= 19; ++s) watch.Tick(t0 + seconds(s));  // no stall here
  EXPECT_FALSE(watch.Silent(t0 + seconds(10)).has_value());  // exactly the timeout
  watch.Heard(0, t0 + seconds(5));
  watch.Heard(2, t0 + seconds(8));
  // Peer 3 was never heard: silent since the start, so it is reported first.
  EXPECT_EQ(watch.Silent(t0 + seconds(11)), 3);
  watch.Heard(3, t0 + seconds(11));
  EXPECT_FALSE(watch.Silent(t0 + seconds(15)).has_value());
  EXPECT_EQ(watch.Silent(t0 + seconds(16)), 0);  // heard at 5
  watch.Heard(0, t0 + seconds(16));
  EXPECT_EQ(watch.Silent(t0 + seconds(19)), 2);  // heard at 8
}

TEST(PeerWatch, ItsOwnStallIsNotThePeersSilence) {
  Clock::time_point t0{};
  PeerWatch watch(3, 0, seconds(10), t0);
  watch.Tick(t0 + seconds(1));
  watch.Tick(t0 + seconds(30));  // this thread did not run for 29 s
  EXPECT_FALSE(watch.Silent(t0 + seconds(31)).has_value());
  watch.Tick(t0 + seconds(35));
  watch.Heard(1, t0 + seconds(35));
  EXPECT_EQ(watch.Silent(t0 + seconds(41)), 2);  // steady ticks: 2 is silent
}

TEST(PeerWatch, NeverReportsItself) {
  Clock::time_point t0{};
  PeerWatch watch(2, 0, seconds(1), t0);
  watch.Heard(1, t0 + seconds(100));
  EXPECT_FALSE(watch.Silent(t0 + seconds(100)).has_value());
}

TEST(PeerWatch, HeartbeatsOncePerInterval) {
  Clock::time_point t0{};
  PeerWatch watch(3, 0, seconds(2), t0);  // interval: a quarter, 500 ms
  EXPECT_TRUE(watch.HeartbeatDue(t0));
  EXPECT_FALSE(watch.HeartbeatDue(t0 + milliseconds(499)));
  EXPECT_TRUE(watch.HeartbeatDue(t0 + milliseconds(500)));
  EXPECT_FALSE(watch.HeartbeatDue(t0 + milliseconds(900)));
  EXPECT_EQ(PeerWatch::IntervalFor(seconds(120)), seconds(1));  // at most a second
}

TEST(PeerWatch, ZeroTimeoutOrOneNodeDisablesIt) {
  Clock::time_point t0{};
  PeerWatch off(4, 0, Clock::duration::zero(), t0);
  EXPECT_FALSE(off.enabled());
  EXPECT_FALSE(off.HeartbeatDue(t0));
  EXPECT_FALSE(off.Silent(t0 + seconds(1000)).has_value());
  PeerWatch alone(1, 0, seconds(1), t0);
  EXPECT_FALSE(alone.HeartbeatDue(t0));
}

TEST(PeerWatch, TimeoutFromEnvironment) {
  unsetenv("BDMPI_PEER_TIMEOUT");
  EXPECT_EQ(PeerWatch::TimeoutFromEnvironment(), seconds(120));
  setenv("BDMPI_PEER_TIMEOUT", "2.5", 1);
  EXPECT_EQ(PeerWatch::TimeoutFromEnvironment(), milliseconds(2500));
  setenv("BDMPI_PEER_TIMEOUT", "0", 1);
  EXPECT_EQ(PeerWatch::TimeoutFromEnvironment(), Clock::duration::zero());
  for (const char* bad : {"-1", "ten", "5s", "nan"}) {
    setenv("BDMPI_PEER_TIMEOUT", bad, 1);
    EXPECT_THROW(PeerWatch::TimeoutFromEnvironment(), Error) << bad;
  }
  unsetenv("BDMPI_PEER_TIMEOUT");
}

}  // namespace
}  // namespace bdmpi
