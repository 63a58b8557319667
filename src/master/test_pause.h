// Test hooks: pauses that hold one thread of a master at a point where a
// race has its window, long enough for a test to hit that window every
// time. Each is off unless its environment variable (BDMPI_TEST_PAUSE_*) is
// set, to milliseconds ("3000"), or to milliseconds on one node only
// ("3000@1"); bdmpiexec passes BDMPI_* variables to every master.
#pragma once

namespace bdmpi {

// The network thread, once the masters' shutdown barrier has completed,
// before it reports the network finished (record_exchange.h).
inline constexpr const char* kTestPauseAfterShutdown = "BDMPI_TEST_PAUSE_AFTER_SHUTDOWN_MS";
// A master, after its job's objects and liveness file are gone, before the
// process ends (common/job_liveness.h).
inline constexpr const char* kTestPauseBeforeExit = "BDMPI_TEST_PAUSE_BEFORE_EXIT_MS";

// Sleeps for the milliseconds in environment variable `name`, if it is set
// for every node or for `node`.
void TestPause(const char* name, int node);

}  // namespace bdmpi
