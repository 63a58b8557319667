// The test hooks (common/test_hooks.h): in a build with them, each reads
// its variable (once); without them, each is off whatever the environment.
#include "common/test_hooks.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

namespace bdmpi {
namespace {

TEST(TestHooksTest, ReadTheirVariablesOnlyWhenBuiltIn) {
  setenv("BDMPI_TEST_PLACE_ERRNO", "14", 1);
  setenv("BDMPI_TEST_REFUSE_LENT_READS", "1", 1);
  setenv("BDMPI_TEST_PAUSE_BEFORE_EXIT_MS", "5000@1", 1);  // node 1 only
  setenv("BDMPI_TEST_PAUSE_AFTER_SHUTDOWN_MS", "30", 1);
  bool on = test_hooks::Enabled();
  EXPECT_EQ(test_hooks::PlaceWriteErrno(), on ? 14 : 0);
  EXPECT_EQ(test_hooks::RefuseLentReads(), on);
  auto start = std::chrono::steady_clock::now();
  test_hooks::PauseBeforeExit(0);  // another node's pause: none
  test_hooks::PauseAfterShutdown(0);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - start)
                .count();
  if (on) {
    EXPECT_GE(ms, 30);
    EXPECT_LT(ms, 5000);
  } else {
    EXPECT_LT(ms, 30);
  }
  // Read once: a later change is not seen.
  setenv("BDMPI_TEST_PLACE_ERRNO", "1", 1);
  EXPECT_EQ(test_hooks::PlaceWriteErrno(), on ? 14 : 0);
}

}  // namespace
}  // namespace bdmpi
