// A rank's wiring (common/rank_wiring.h): read once, as a snapshot, with
// the job_names.h variables; missing required ones are named in the error.
// One test: the snapshot is per process, so the steps depend on their order.
#include "common/rank_wiring.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "common/error.h"
#include "common/job_names.h"

namespace bdmpi {
namespace {

TEST(RankWiringTest, SnapshotOfTheMastersVariables) {
  setenv(kEnvJobId, "job42", 1);
  setenv(kEnvSlave, "3", 1);
  setenv(kEnvWindowSize, "18446744073709551615", 1);
  setenv(kEnvNodeSize, "7x", 1);  // not a number
  setenv(kEnvNode, "", 1);
  unsetenv(kEnvGoQueue);
  unsetenv(kEnvMemoryDir);

  EXPECT_STREQ(wiring::Name(Wire::kJobId), kEnvJobId);
  EXPECT_STREQ(wiring::Name(Wire::kJobSettings), kEnvJobSettings);
  EXPECT_STREQ(wiring::Find(Wire::kJobId), "job42");
  EXPECT_EQ(wiring::Find(Wire::kMemoryDir), nullptr);
  EXPECT_EQ(wiring::Number(Wire::kSlave, -1), 3);
  EXPECT_EQ(wiring::RequireNumber(Wire::kSlave), 3);
  EXPECT_EQ(wiring::RequireUnsigned(Wire::kWindowSize), 18446744073709551615ull);
  EXPECT_EQ(wiring::Number(Wire::kNodeSize, -1), -1);
  EXPECT_EQ(wiring::Number(Wire::kNode, 5), 5);
  EXPECT_EQ(wiring::Number(Wire::kGoQueue, 6), 6);
  try {
    wiring::Require(Wire::kGoQueue);
    ADD_FAILURE() << "an unset variable was required without an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(kEnvGoQueue), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("bdmpiexec"), std::string::npos) << error.what();
  }

  // Later changes to the environment do not reach the snapshot.
  unsetenv(kEnvSlave);
  setenv(kEnvJobId, "other", 1);
  setenv(kEnvGoQueue, "/bdmpi-job42-n0-go3-0123456789abcdef", 1);
  EXPECT_EQ(wiring::Number(Wire::kSlave, -1), 3);
  EXPECT_STREQ(wiring::Find(Wire::kJobId), "job42");
  EXPECT_EQ(wiring::Find(Wire::kGoQueue), nullptr);
}

}  // namespace
}  // namespace bdmpi
