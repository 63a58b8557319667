// Test hooks: the one seam through which tests reach into production
// paths, each a BDMPI_TEST_* environment variable read once. They exist
// only in a build with the CMake option BDMPI_TEST_HOOKS (ON by default,
// for the build tree's tests); with -DBDMPI_TEST_HOOKS=OFF (a release or
// package build) every function here is a constant "off" and no
// BDMPI_TEST_* variable is ever read. The tests that need a hook are then
// not registered (tests/jobs, tests/multinode, tests/observe,
// tests/reliability).
#pragma once

namespace bdmpi::test_hooks {

// Whether this build has the hooks.
bool Enabled();

// BDMPI_TEST_PLACE_ERRNO=N: every granted placed write fails with errno N,
// unwritten, so that the way back (the master undoes the reservation, the
// message goes the usual way) and giving up on EPERM are exercised where
// the kernel allows every write (as root, without Yama). 0: off.
int PlaceWriteErrno();

// BDMPI_TEST_REFUSE_LENT_READS=1: a receiver's read of a lent block is
// refused as under a security module, so it asks the master for a copy.
bool RefuseLentReads();

// Pauses that hold one thread of a master where a race has its window,
// long enough for a test to hit it every time. Each variable is
// milliseconds ("3000"), or milliseconds on some nodes only ("3000@1",
// "3000@0,2");
// bdmpiexec passes BDMPI_* variables to every master.
//
// BDMPI_TEST_PAUSE_AFTER_SHUTDOWN_MS: the network thread, once the
// masters' shutdown barrier has completed, before it reports the network
// finished (master/network/record_exchange.h).
void PauseAfterShutdown(int node);
// BDMPI_TEST_PAUSE_BEFORE_EXIT_MS: a master, after its job's objects and
// liveness file are gone, before the process ends (common/job_liveness.h).
void PauseBeforeExit(int node);
// BDMPI_TEST_PAUSE_STEP_DONE_MS: a master's event loop, once, when the
// network thread tells it that an inter-node collective step completed,
// before it acts on it (the node's last view, its ranks blocked, is then
// stale: master/network/network_control.cpp, LocalState).
void PauseStepDone(int node);

}  // namespace bdmpi::test_hooks
