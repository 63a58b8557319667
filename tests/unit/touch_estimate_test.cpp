// What a resume with its data switched out is admitted on
// (master/memory/touch_estimate.h): learned per rank and per request it
// was resumed out of, and the count of a running rank that touches more.
#include "master/memory/touch_estimate.h"

#include <gtest/gtest.h>

namespace bdmpi {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

TEST(TouchedSince, NewAnonymousPagesAndTheLargerOfFilePagesAndReads) {
  TouchReading base{.anonymous = 3 * kMiB, .shared = 2 * kMiB, .read = 100 * kMiB};
  // Read 50 MiB of its matrix, all mapped; wrote 4 MiB of its vectors.
  EXPECT_EQ(TouchedSince(base, {.anonymous = 7 * kMiB, .shared = 52 * kMiB,
                                .read = 150 * kMiB}),
            54 * kMiB);
  // The faults read ahead 8 MiB it never mapped: in the page cache all the same.
  EXPECT_EQ(TouchedSince(base, {.anonymous = 3 * kMiB, .shared = 3 * kMiB,
                                .read = 108 * kMiB}),
            8 * kMiB);
  // Fresh pages read nothing; freed ones count nothing.
  EXPECT_EQ(TouchedSince(base, {.anonymous = 9 * kMiB, .shared = 2 * kMiB,
                                .read = 100 * kMiB}),
            6 * kMiB);
  EXPECT_EQ(TouchedSince(base, {.anonymous = 1 * kMiB, .shared = 1 * kMiB,
                                .read = 100 * kMiB}),
            0u);
}

TEST(TouchEstimates, NothingUntilMeasured) {
  TouchEstimates estimates;
  EXPECT_FALSE(estimates.Expected(7));
  // No estimate: the whole of the rank's data and peak, as without them.
  EXPECT_EQ(TouchAdmission(0, estimates.Expected(7), 60 * kMiB), 60 * kMiB);
}

TEST(TouchEstimates, ByPoint) {
  // miniFE: out of the exchange's wait it reads its matrix, out of the dot
  // products' allreduce only its vectors.
  TouchEstimates estimates;
  estimates.Note(1, 55 * kMiB);
  estimates.Note(2, 5 * kMiB);
  EXPECT_EQ(estimates.Expected(1), 55 * kMiB);
  EXPECT_EQ(estimates.Expected(2), 5 * kMiB);
  EXPECT_FALSE(estimates.Expected(3));
}

TEST(TouchEstimates, GrowsAtOnceShrinksByHalves) {
  TouchEstimates estimates;
  estimates.Note(1, 8 * kMiB);
  estimates.Note(1, 40 * kMiB);
  EXPECT_EQ(estimates.Expected(1), 40 * kMiB);
  estimates.Note(1, 0);
  EXPECT_EQ(estimates.Expected(1), 20 * kMiB);
  estimates.Note(1, 2 * kMiB);
  EXPECT_EQ(estimates.Expected(1), 10 * kMiB);
  estimates.Note(1, 12 * kMiB);
  EXPECT_EQ(estimates.Expected(1), 12 * kMiB);
}

TEST(TouchAdmission, ResidentPlusEstimateWithMargin) {
  // A rank that touched nothing yet, expected to touch 8 MiB: 8 + 1 + 1.
  EXPECT_EQ(TouchAdmission(0, 8 * kMiB, 60 * kMiB), 10 * kMiB);
  // What it touched since its switch-in stays counted.
  EXPECT_EQ(TouchAdmission(30 * kMiB, 8 * kMiB, 60 * kMiB), 40 * kMiB);
  // Never above its data and peak.
  EXPECT_EQ(TouchAdmission(55 * kMiB, 8 * kMiB, 60 * kMiB), 60 * kMiB);
  // One that touched nothing last time still gets the margin.
  EXPECT_EQ(TouchAdmission(0, 0, 60 * kMiB), 1 * kMiB);
}

TEST(TouchGrown, WithinItsCountNothingChanges) {
  EXPECT_EQ(TouchGrown(10 * kMiB, 9 * kMiB, 4 * kMiB, 60 * kMiB), 10 * kMiB);
  EXPECT_EQ(TouchGrown(10 * kMiB, 10 * kMiB, 4 * kMiB, 60 * kMiB), 10 * kMiB);
}

TEST(TouchGrown, BeyondItWhatItTouchedAndAStep) {
  // A rank admitted on 10 MiB that reads its 50 MiB matrix after all.
  EXPECT_EQ(TouchGrown(10 * kMiB, 11 * kMiB, 4 * kMiB, 60 * kMiB), 15 * kMiB);
  EXPECT_EQ(TouchGrown(15 * kMiB, 50 * kMiB, 4 * kMiB, 60 * kMiB), 54 * kMiB);
  // At most its data and peak (the rest of its growth is not storage).
  EXPECT_EQ(TouchGrown(54 * kMiB, 70 * kMiB, 4 * kMiB, 60 * kMiB), 60 * kMiB);
}

}  // namespace
}  // namespace bdmpi
