// The in-process network behaves as the algorithms assume the Open MPI
// transport does: MPI matching order per (source, destination, tag), tags
// independent, exact sizes, data moved only when a Test completes.
#include <gtest/gtest.h>

#include "coll_test_util.h"
#include "collectives/inproc_transport.h"
#include "collectives/task.h"
#include "common/error.h"

namespace bdmpi::coll::test {
namespace {

// Tests `id` on `t` until it completes (at most `tries` times).
bool Complete(Transport& t, RequestId id, int tries = 100) {
  for (int i = 0; i < tries; ++i)
    if (t.Test(id)) return true;
  return false;
}

TEST(Inproc, SameTagMatchesInPostingOrder) {
  InprocNetwork net(2);
  Transport& a = net.peer(0);
  Transport& b = net.peer(1);
  Bytes one = Pattern(16, 1), two = Pattern(16, 2);
  Bytes got1(16), got2(16);
  RequestId r1 = b.Irecv(0, 5, got1.data(), 16);
  RequestId s1 = a.Isend(1, 5, one.data(), 16);
  RequestId s2 = a.Isend(1, 5, two.data(), 16);
  RequestId r2 = b.Irecv(0, 5, got2.data(), 16);
  EXPECT_TRUE(Complete(b, r2));
  EXPECT_TRUE(Complete(b, r1));
  EXPECT_TRUE(Complete(a, s1));
  EXPECT_TRUE(Complete(a, s2));
  EXPECT_EQ(got1, one);
  EXPECT_EQ(got2, two);
}

TEST(Inproc, TagsAreIndependent) {
  InprocNetwork net(2);
  Bytes x = Pattern(8, 1), y = Pattern(8, 2), gx(8), gy(8);
  RequestId sx = net.peer(0).Isend(1, 1, x.data(), 8);
  RequestId sy = net.peer(0).Isend(1, 2, y.data(), 8);
  // Received in the other order: tag 2 first.
  RequestId ry = net.peer(1).Irecv(0, 2, gy.data(), 8);
  EXPECT_TRUE(Complete(net.peer(1), ry));
  EXPECT_FALSE(net.peer(0).Test(sx));
  RequestId rx = net.peer(1).Irecv(0, 1, gx.data(), 8);
  EXPECT_TRUE(Complete(net.peer(1), rx));
  EXPECT_TRUE(Complete(net.peer(0), sx));
  EXPECT_TRUE(Complete(net.peer(0), sy));
  EXPECT_EQ(gx, x);
  EXPECT_EQ(gy, y);
}

TEST(Inproc, DataMovesOnlyWhenATestCompletes) {
  InprocNetwork net(2);
  Bytes sent = Pattern(32, 7), got(32, std::byte{0});
  RequestId s = net.peer(0).Isend(1, 0, sent.data(), 32);
  RequestId r = net.peer(1).Irecv(0, 0, got.data(), 32);
  EXPECT_EQ(got, Bytes(32, std::byte{0}));  // matched, not yet moved
  EXPECT_TRUE(net.peer(0).Test(s));         // the sender's Test moves it
  EXPECT_EQ(got, sent);
  EXPECT_TRUE(net.peer(1).Test(r));
  EXPECT_EQ(net.outstanding(), 0u);
}

TEST(Inproc, EmptyAndSelfMessages) {
  InprocNetwork net(1);
  Transport& t = net.peer(0);
  RequestId s = t.Isend(0, 3, nullptr, 0);
  RequestId r = t.Irecv(0, 3, nullptr, 0);
  EXPECT_TRUE(Complete(t, r));
  EXPECT_TRUE(Complete(t, s));
}

TEST(Inproc, SizeMismatchIsATruncationError) {
  InprocNetwork net(2);
  Bytes big(10), small(4);
  net.peer(0).Isend(1, 0, big.data(), 10);
  RequestId r = net.peer(1).Irecv(0, 0, small.data(), 4);
  try {
    net.peer(1).Test(r);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.error_class(), kErrTruncate);
  }
}

TEST(Inproc, MisuseIsAnInternalError) {
  InprocNetwork net(2, {.max_message_bytes = 8});
  Bytes b(16);
  EXPECT_THROW(net.peer(0).Test(12345), Error);               // unknown request
  EXPECT_THROW(net.peer(0).Isend(2, 0, b.data(), 1), Error);  // bad peer
  EXPECT_THROW(net.peer(0).Isend(1, -1, b.data(), 1), Error);  // bad tag
  EXPECT_THROW(net.peer(0).Isend(1, 0, b.data(), 16), Error);  // too big
  RequestId s = net.peer(0).Isend(1, 0, b.data(), 8);
  EXPECT_THROW(net.peer(1).Test(s), Error);  // another peer's request
  RequestId r = net.peer(1).Irecv(0, 0, b.data(), 8);
  EXPECT_TRUE(Complete(net.peer(1), r));
  EXPECT_THROW(net.peer(1).Test(r), Error);  // already completed
}

// The same seed gives the same run; the delay really delays.
TEST(Inproc, DelaysAreReproducible) {
  auto trace = [](std::uint64_t seed) {
    InprocNetwork net(2, {.seed = seed, .delay = 0.5});
    Bytes b(1);
    std::string tries;
    for (int i = 0; i < 20; ++i) {
      RequestId s = net.peer(0).Isend(1, 0, b.data(), 1);
      RequestId r = net.peer(1).Irecv(0, 0, b.data(), 1);
      int n = 1;
      while (!net.peer(1).Test(r)) ++n;
      while (!net.peer(0).Test(s)) ++n;
      tries += std::to_string(n) + ",";
    }
    return tries;
  };
  EXPECT_EQ(trace(3), trace(3));
  EXPECT_NE(trace(3), trace(4));
  EXPECT_NE(trace(3).find_first_not_of("2,"), std::string::npos);
}

// RunToCompletion reports a deadlock instead of spinning forever.
Task WaitForever(Transport& t) {
  std::vector<RequestId> never = {t.Irecv(0, 0, nullptr, 0)};
  co_await AwaitAll(never);
}

TEST(Inproc, RunToCompletionDetectsDeadlock) {
  InprocNetwork net(2);
  std::vector<std::unique_ptr<Operation>> ops;
  ops.push_back(MakeOperation(net.peer(1), WaitForever(net.peer(1))));
  EXPECT_FALSE(RunToCompletion(net, ops, 10));
  EXPECT_NE(net.DescribeOutstanding().find("recv from 0"), std::string::npos);
}

// An exception inside a nested task reaches the caller of Progress.
Task Inner(Transport& t) {
  Bytes b(4);
  std::vector<RequestId> ids = {t.Isend(1, 0, b.data(), 4)};
  co_await AwaitAll(ids);
}
Task Outer(Transport& t) { co_await Inner(t); }

TEST(Inproc, ErrorsInNestedTasksReachProgress) {
  InprocNetwork net(2);
  Bytes small(2);
  net.peer(1).Irecv(0, 0, small.data(), 2);  // 4 bytes will arrive
  auto op = MakeOperation(net.peer(0), Outer(net.peer(0)));
  EXPECT_THROW(
      {
        for (int i = 0; i < 10; ++i) op->Progress();
      },
      Error);
}

}  // namespace
}  // namespace bdmpi::coll::test
