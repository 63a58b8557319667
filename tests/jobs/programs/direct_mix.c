/*
 * direct_mix: small and large messages on the same pair, communicator and
 * tag, mixed with every other way a message can travel, so that a runtime
 * that sends small ones by a path of their own (BDMPI's direct messages,
 * written by the sender into a receive already posted) must still keep
 * MPI's order and matching. Every rank sends to the next one (a ring) and
 * receives from the previous one; message k of a stream has a size of its
 * own (8 B to past the window) and a pattern of its own, and each receive
 * has exactly the capacity its message should have, so a message that
 * overtook another shows as a wrong count or pattern.
 *  1. streams: receives posted before the sends, after them (the messages
 *     wait unexpected), half before and half after, and with
 *     MPI_ANY_SOURCE/MPI_ANY_TAG;
 *  2. probes: MPI_Iprobe loops and MPI_Probe for messages not received
 *     yet, and an Iprobe behind a posted receive that takes an earlier
 *     message;
 *  3. cancel: a receive cancelled before any send, one cancelled after
 *     its message came (not cancelled), one cancelled after a test;
 *  4. MPI_Ssend into posted receives and MPI_Issend before them, and
 *     into a receive whose rank then blocks in a receive on another
 *     communicator;
 *  5. MPI_Waitany, MPI_Testsome over receives completed out of order,
 *     and a receive freed with MPI_Request_free;
 *  6. a halo exchange without barriers: receives from both neighbours
 *     posted, then sends to both (8 B, 100 B, 2000 B), then MPI_Waitall;
 *     a blocking MPI_Sendrecv;
 *  7. a flood: many 8 B MPI_Isends with a large one and an MPI_Issend
 *     among them, into receives told to the master before their wait (an
 *     MPI_Iprobe tells them) and receives posted after the sends, one with
 *     MPI_ANY_SOURCE;
 *  8. a token passed around the ring with blocking calls (8 B, the direct
 *     path's largest, just above it, 0 B, with MPI_ANY_SOURCE), so that
 *     a rank waits for a message of a rank that is running (a spinning
 *     receiver: BDMPI's ranks spin when the running ones have a core
 *     each), one that waits for a running slot (the spinner must give its
 *     slot up) and one that sleeps longer than a spin lasts;
 *  9. sends that find no receive for them, only one that does not take
 *     them (another tag), while their receiver is about to post it: a
 *     sender may wait for that post (BDMPI's do while the running ranks
 *     have a core each), else its message goes the master's way and the
 *     next one, which the posted receive would take, must follow it;
 * 10. messages that wait for their receive (BDMPI's inbox of small
 *     messages in shared memory): small, large and mid-sized ones from
 *     one sender on a few tags before any receive is posted, taken by
 *     MPI_Probe, MPI_Improbe/MPI_Mrecv, MPI_ANY_SOURCE, MPI_ANY_TAG, a
 *     receive into a type with gaps, and an MPI_Isend cancelled before
 *     its receive is posted (cancelled or received, never both);
 * 11. a fan-in flood: every rank sends more small messages to rank 0
 *     than an inbox holds (150 each, as MPICH's sendflood does), which
 *     takes them with MPI_ANY_SOURCE and checks each sender's order;
 *     before it, floods of 32 that rank 0 answers, each sender waiting
 *     for its answer in MPI_Recv (the first answer late, so that a
 *     waiter that polls gives up and backs off before the next ones);
 *     after it, a flood on two tags that rank 0 takes one tag at a time;
 * 12. polling (Graph500's pattern): a token passed down the ranks, each
 *     waiting for it in an MPI_Test loop (with -nr 1 the loop must let the
 *     rank that sends it run), then every rank sending every rank
 *     messages of mixed sizes (direct, inbox, through the master, above
 *     the window) with at most four MPI_Isends in flight, into four
 *     persistent MPI_ANY_SOURCE receives that it polls with MPI_Testany
 *     (even rounds) or MPI_Testsome (odd ones) while its sends complete
 *     (its own through the master, one of each sender's synchronous),
 *     checking that each sender's messages fill the receives in the order
 *     they were started, and an MPI_Ibarrier tested in a loop that keeps polling them (not
 *     with --hold-memory: with -nr 1 every test lets another rank run, and
 *     each switch writes the held memory back);
 * 13. a stream of medium messages (Graph500's aggregation buffers): every
 *     other rank sends rank 0, on a communicator of its own, 40 messages
 *     of 2 to 32 KiB with MPI_Isend without waiting, among them an empty
 *     one, ones above the window (the master's way) and an MPI_Ssend,
 *     then an MPI_Isend it cancels; rank 0 takes them into four
 *     persistent MPI_ANY_SOURCE/MPI_ANY_TAG receives that it restarts as
 *     it goes (the stream outruns them), probing between (a probe names a
 *     later message of its sender than every one taken), and checks that
 *     each sender's messages filled the receives in the order they were
 *     started, and that the cancelled one was cancelled or received, never
 *     both (MPI_Testany, or MPI_Waitany with --hold-memory, where a small
 *     --node-memory switches rank 0 out mid-stream);
 * all --rounds times; with --hold-memory N each rank holds N bytes
 * touched, so that a small --node-memory switches ranks out mid-stream.
 *
 * Usage: direct_mix [--rounds R] [--hold-memory N]
 */
#include <unistd.h>

#include "check.h"

enum { kStream = 16, kTag = 3 };

static const size_t kSizes[kStream] = {8,    1024, 70000, 4096, 8,  0,    4097, 100,
                                       8192, 8,    1,     65537, 8, 4096, 960,  961};

static int rank_, size_, next_, prev_;

static uint64_t seed_of(int src, int dst, int k, int round) {
  return msg_seed(src, dst, kSizes[k]) ^ ((uint64_t)(k + 1) << 8) ^ ((uint64_t)round << 56);
}

static void barrier(void) { CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); }

/* The sends of one stream to the next rank, as nonblocking sends (a
 * large standard send may wait for its receive). */
static void send_stream(char **out, MPI_Request *requests, int round) {
  for (int k = 0; k < kStream; ++k) {
    fill_pattern(out[k], kSizes[k], seed_of(rank_, next_, k, round));
    CHECK_MPI(MPI_Isend(out[k], (int)kSizes[k], MPI_BYTE, next_, kTag, MPI_COMM_WORLD,
                        &requests[k]));
  }
}

static void check_stream(char **in, MPI_Status *statuses, int round, int any) {
  for (int k = 0; k < kStream; ++k) {
    if (any) {
      CHECK(statuses[k].MPI_SOURCE == prev_ && statuses[k].MPI_TAG == kTag,
            "message %d: source %d tag %d, want %d %d", k, statuses[k].MPI_SOURCE,
            statuses[k].MPI_TAG, prev_, kTag);
    }
    int count = -1;
    CHECK_MPI(MPI_Get_count(&statuses[k], MPI_BYTE, &count));
    CHECK(count == (int)kSizes[k], "message %d (round %d): %d bytes, want %zu", k, round, count,
          kSizes[k]);
    CHECK_PATTERN(in[k], kSizes[k], seed_of(prev_, rank_, k, round), "stream message");
  }
}

/* 1. The stream with its receives posted before (mode 0), after (1),
 * half and half (2), or before and with wildcards (3). */
static void stream(char **in, char **out, int mode, int round) {
  MPI_Request recvs[kStream], sends[kStream];
  MPI_Status statuses[kStream];
  int before = mode == 1 ? 0 : mode == 2 ? kStream / 2 : kStream;
  int any = mode == 3;
  for (int k = 0; k < before; ++k)
    CHECK_MPI(MPI_Irecv(in[k], (int)kSizes[k], MPI_BYTE, any ? MPI_ANY_SOURCE : prev_,
                        any ? MPI_ANY_TAG : kTag, MPI_COMM_WORLD, &recvs[k]));
  barrier();
  send_stream(out, sends, round);
  if (mode == 1) barrier();  /* the messages are on their way first */
  for (int k = before; k < kStream; ++k) {
    if (mode == 1) {
      CHECK_MPI(MPI_Recv(in[k], (int)kSizes[k], MPI_BYTE, prev_, kTag, MPI_COMM_WORLD,
                         &statuses[k]));
      recvs[k] = MPI_REQUEST_NULL;
    } else {
      CHECK_MPI(MPI_Irecv(in[k], (int)kSizes[k], MPI_BYTE, prev_, kTag, MPI_COMM_WORLD,
                          &recvs[k]));
    }
  }
  MPI_Status waited[kStream];
  CHECK_MPI(MPI_Waitall(kStream, recvs, waited));
  for (int k = 0; k < before; ++k) statuses[k] = waited[k];
  if (mode != 1)
    for (int k = before; k < kStream; ++k) statuses[k] = waited[k];
  CHECK_MPI(MPI_Waitall(kStream, sends, MPI_STATUSES_IGNORE));
  check_stream(in, statuses, round, any);
}

/* 2. Probes. */
static void probes(int round) {
  char small[8], large[70000], got_small[8], got_large[70000];
  MPI_Request sends[4];
  MPI_Status status;
  fill_pattern(small, sizeof small, seed_of(rank_, next_, 0, round));
  fill_pattern(large, sizeof large, seed_of(rank_, next_, 2, round));
  CHECK_MPI(MPI_Isend(small, sizeof small, MPI_BYTE, next_, 5, MPI_COMM_WORLD, &sends[0]));
  CHECK_MPI(MPI_Isend(large, sizeof large, MPI_BYTE, next_, 6, MPI_COMM_WORLD, &sends[1]));
  int flag = 0;
  while (!flag)
    CHECK_MPI(MPI_Iprobe(prev_, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status));
  CHECK_STATUS(status, prev_, 5, MPI_BYTE, sizeof small);
  CHECK_MPI(MPI_Recv(got_small, sizeof got_small, MPI_BYTE, prev_, 5, MPI_COMM_WORLD, &status));
  CHECK_PATTERN(got_small, sizeof got_small, seed_of(prev_, rank_, 0, round), "probed small");
  CHECK_MPI(MPI_Probe(prev_, MPI_ANY_TAG, MPI_COMM_WORLD, &status));
  CHECK_STATUS(status, prev_, 6, MPI_BYTE, sizeof large);
  CHECK_MPI(MPI_Recv(got_large, sizeof got_large, MPI_BYTE, prev_, 6, MPI_COMM_WORLD, &status));
  CHECK_PATTERN(got_large, sizeof got_large, seed_of(prev_, rank_, 2, round), "probed large");
  CHECK_MPI(MPI_Waitall(2, sends, MPI_STATUSES_IGNORE));

  /* A posted receive takes the earlier message; the probe finds the
   * later one, whoever delivered the first. */
  barrier();
  MPI_Request recv;
  CHECK_MPI(MPI_Irecv(got_small, sizeof got_small, MPI_BYTE, prev_, MPI_ANY_TAG,
                      MPI_COMM_WORLD, &recv));
  barrier();
  CHECK_MPI(MPI_Isend(small, sizeof small, MPI_BYTE, next_, 7, MPI_COMM_WORLD, &sends[2]));
  CHECK_MPI(MPI_Isend(small, 4, MPI_BYTE, next_, 8, MPI_COMM_WORLD, &sends[3]));
  flag = 0;
  while (!flag)
    CHECK_MPI(MPI_Iprobe(prev_, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status));
  CHECK_STATUS(status, prev_, 8, MPI_BYTE, 4);
  CHECK_MPI(MPI_Wait(&recv, &status));
  CHECK_STATUS(status, prev_, 7, MPI_BYTE, sizeof small);
  CHECK_PATTERN(got_small, sizeof got_small, seed_of(prev_, rank_, 0, round), "posted small");
  CHECK_MPI(MPI_Recv(got_small, 4, MPI_BYTE, prev_, 8, MPI_COMM_WORLD, &status));
  CHECK_MPI(MPI_Waitall(2, &sends[2], MPI_STATUSES_IGNORE));
}

/* 3. Cancel. */
static void cancels(int round) {
  char buf[64], out[64];
  MPI_Request recv, send;
  MPI_Status status;
  int cancelled = 0;
  /* Nothing is sent to it. */
  CHECK_MPI(MPI_Irecv(buf, sizeof buf, MPI_BYTE, prev_, 20, MPI_COMM_WORLD, &recv));
  CHECK_MPI(MPI_Cancel(&recv));
  CHECK_MPI(MPI_Wait(&recv, &status));
  CHECK_MPI(MPI_Test_cancelled(&status, &cancelled));
  CHECK(cancelled, "a receive nothing was sent to was not cancelled");
  /* Tested (so told), then cancelled. */
  int flag = 1;
  CHECK_MPI(MPI_Irecv(buf, sizeof buf, MPI_BYTE, prev_, 22, MPI_COMM_WORLD, &recv));
  CHECK_MPI(MPI_Test(&recv, &flag, &status));
  CHECK(!flag, "a receive nothing was sent to completed");
  CHECK_MPI(MPI_Cancel(&recv));
  CHECK_MPI(MPI_Wait(&recv, &status));
  CHECK_MPI(MPI_Test_cancelled(&status, &cancelled));
  CHECK(cancelled, "a tested receive nothing was sent to was not cancelled");
  /* Its message came before the cancel. */
  CHECK_MPI(MPI_Irecv(buf, sizeof buf, MPI_BYTE, prev_, 21, MPI_COMM_WORLD, &recv));
  barrier();
  fill_pattern(out, sizeof out, seed_of(rank_, next_, 1, round));
  CHECK_MPI(MPI_Isend(out, sizeof out, MPI_BYTE, next_, 21, MPI_COMM_WORLD, &send));
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  /* The sender's Ssend of a marker after it: matched only once the first
   * message is, since both go to the same receiver in order. */
  int marker = round;
  CHECK_MPI(MPI_Ssend(&marker, 1, MPI_INT, next_, 23, MPI_COMM_WORLD));
  barrier();
  CHECK_MPI(MPI_Cancel(&recv));
  CHECK_MPI(MPI_Wait(&recv, &status));
  CHECK_MPI(MPI_Test_cancelled(&status, &cancelled));
  CHECK(!cancelled, "a receive whose message had come was cancelled");
  CHECK_STATUS(status, prev_, 21, MPI_BYTE, sizeof buf);
  CHECK_PATTERN(buf, sizeof buf, seed_of(prev_, rank_, 1, round), "cancelled too late");
}

/* The marker of cancels(): received before the sender's Ssend returns. */
static void cancels_marker_recv(MPI_Request *marker_recv, int *marker) {
  CHECK_MPI(MPI_Irecv(marker, 1, MPI_INT, prev_, 23, MPI_COMM_WORLD, marker_recv));
}

/* 4. Synchronous sends; `other`: another communicator. */
static void ssends(int round, MPI_Comm other) {
  char in[16], out[16], extra[8];
  MPI_Request recv, send;
  MPI_Status status;
  fill_pattern(out, sizeof out, seed_of(rank_, next_, 3, round));
  CHECK_MPI(MPI_Irecv(in, sizeof in, MPI_BYTE, prev_, 30, MPI_COMM_WORLD, &recv));
  barrier();
  if (size_ > 1) {
    CHECK_MPI(MPI_Ssend(out, sizeof out, MPI_BYTE, next_, 30, MPI_COMM_WORLD));
  } else {
    CHECK_MPI(MPI_Issend(out, sizeof out, MPI_BYTE, next_, 30, MPI_COMM_WORLD, &send));
    CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  }
  CHECK_MPI(MPI_Wait(&recv, &status));
  CHECK_STATUS(status, prev_, 30, MPI_BYTE, sizeof in);
  CHECK_PATTERN(in, sizeof in, seed_of(prev_, rank_, 3, round), "ssend into a posted receive");
  /* Sent first, received after. */
  CHECK_MPI(MPI_Issend(out, 8, MPI_BYTE, next_, 31, MPI_COMM_WORLD, &send));
  barrier();
  CHECK_MPI(MPI_Recv(in, sizeof in, MPI_BYTE, prev_, 31, MPI_COMM_WORLD, &status));
  CHECK_STATUS(status, prev_, 31, MPI_BYTE, 8);
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  /* A receive posted, then a blocking one on another communicator: the
   * partner's synchronous send into the first must be matched meanwhile. */
  int partner = rank_ ^ 1;
  if (partner >= size_) return;
  if (rank_ % 2 == 0) {
    CHECK_MPI(MPI_Irecv(in, sizeof in, MPI_BYTE, partner, 32, MPI_COMM_WORLD, &recv));
    CHECK_MPI(MPI_Recv(extra, sizeof extra, MPI_BYTE, partner, 33, other, &status));
    CHECK_MPI(MPI_Wait(&recv, &status));
    CHECK_STATUS(status, partner, 32, MPI_BYTE, 8);
    CHECK_PATTERN(in, 8, seed_of(partner, rank_, 3, round), "ssend before a blocking receive");
  } else {
    fill_pattern(out, 8, seed_of(rank_, partner, 3, round));
    CHECK_MPI(MPI_Ssend(out, 8, MPI_BYTE, partner, 32, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(out, 8, MPI_BYTE, partner, 33, other));
  }
}

/* 5. Completion calls over receives completed out of order. */
static void completions(int round) {
  enum { kMany = 6 };
  char in[kMany][32], out[kMany][32];
  MPI_Request recvs[kMany], sends[kMany];
  for (int k = 0; k < kMany; ++k)
    CHECK_MPI(MPI_Irecv(in[k], sizeof in[k], MPI_BYTE, prev_, 50 + k, MPI_COMM_WORLD,
                        &recvs[k]));
  barrier();
  for (int k = kMany - 1; k >= 0; --k) {
    fill_pattern(out[k], sizeof out[k], seed_of(rank_, next_, k, round));
    CHECK_MPI(MPI_Isend(out[k], sizeof out[k], MPI_BYTE, next_, 50 + k, MPI_COMM_WORLD,
                        &sends[k]));
  }
  int seen = 0;
  for (int n = 0; n < kMany / 2; ++n) {
    int index = -1;
    MPI_Status status;
    CHECK_MPI(MPI_Waitany(kMany, recvs, &index, &status));
    CHECK(index >= 0 && index < kMany && status.MPI_TAG == 50 + index,
          "Waitany: index %d tag %d", index, status.MPI_TAG);
    CHECK_PATTERN(in[index], sizeof in[index], seed_of(prev_, rank_, index, round), "waitany");
    ++seen;
  }
  while (seen < kMany) {
    int outcount = 0, indices[kMany];
    MPI_Status statuses[kMany];
    CHECK_MPI(MPI_Testsome(kMany, recvs, &outcount, indices, statuses));
    CHECK(outcount != MPI_UNDEFINED, "Testsome: no active request with %d of %d seen", seen,
          kMany);
    for (int j = 0; j < outcount; ++j) {
      int k = indices[j];
      CHECK(statuses[j].MPI_TAG == 50 + k, "Testsome: index %d tag %d", k, statuses[j].MPI_TAG);
      CHECK_PATTERN(in[k], sizeof in[k], seed_of(prev_, rank_, k, round), "testsome");
    }
    seen += outcount;
  }
  CHECK_MPI(MPI_Waitall(kMany, sends, MPI_STATUSES_IGNORE));
  /* A freed receive still takes its message in order: the next message
   * with the same envelope goes to the receive after it. */
  static char freed[8];
  char after[8];
  MPI_Request recv;
  MPI_Status status;
  CHECK_MPI(MPI_Irecv(freed, sizeof freed, MPI_BYTE, prev_, 60, MPI_COMM_WORLD, &recv));
  CHECK_MPI(MPI_Request_free(&recv));
  barrier();
  char first[8] = "first", second[8] = "second";
  CHECK_MPI(MPI_Send(first, sizeof first, MPI_BYTE, next_, 60, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Send(second, sizeof second, MPI_BYTE, next_, 60, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(after, sizeof after, MPI_BYTE, prev_, 60, MPI_COMM_WORLD, &status));
  CHECK(strcmp(after, "second") == 0, "after a freed receive: '%.8s', want 'second'", after);
}

/* 6. Halo exchanges, nothing between posting and sending. */
static void halos(int round) {
  enum { kKinds = 3, kSteps = 20 };
  static const int sizes[kKinds] = {8, 100, 2000};
  char in[2][kKinds][2000], out[2][kKinds][2000];
  for (int step = 0; step < kSteps; ++step) {
    MPI_Request requests[4 * kKinds];
    int n = 0;
    for (int k = 0; k < kKinds; ++k) {
      CHECK_MPI(MPI_Irecv(in[0][k], sizes[k], MPI_BYTE, prev_, 70 + k, MPI_COMM_WORLD,
                          &requests[n++]));
      CHECK_MPI(MPI_Irecv(in[1][k], sizes[k], MPI_BYTE, next_, 80 + k, MPI_COMM_WORLD,
                          &requests[n++]));
    }
    for (int k = 0; k < kKinds; ++k) {
      fill_pattern(out[0][k], (size_t)sizes[k], seed_of(rank_, next_, k, round * kSteps + step));
      fill_pattern(out[1][k], (size_t)sizes[k], seed_of(rank_, prev_, k, round * kSteps + step));
      CHECK_MPI(MPI_Isend(out[0][k], sizes[k], MPI_BYTE, next_, 70 + k, MPI_COMM_WORLD,
                          &requests[n++]));
      CHECK_MPI(MPI_Isend(out[1][k], sizes[k], MPI_BYTE, prev_, 80 + k, MPI_COMM_WORLD,
                          &requests[n++]));
    }
    CHECK_MPI(MPI_Waitall(n, requests, MPI_STATUSES_IGNORE));
    for (int k = 0; k < kKinds; ++k) {
      CHECK_PATTERN(in[0][k], (size_t)sizes[k], seed_of(prev_, rank_, k, round * kSteps + step),
                    "halo from the previous rank");
      CHECK_PATTERN(in[1][k], (size_t)sizes[k], seed_of(next_, rank_, k, round * kSteps + step),
                    "halo from the next rank");
    }
    int mine = rank_ * 1000 + step, theirs = -1;
    MPI_Status status;
    CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, next_, 90, &theirs, 1, MPI_INT, prev_, 90,
                           MPI_COMM_WORLD, &status));
    CHECK(theirs == prev_ * 1000 + step, "sendrecv got %d, want %d", theirs,
          prev_ * 1000 + step);
  }
}

/* 7. A flood of small nonblocking sends. */
static void flood(int round) {
  enum { kFlood = 40, kLarge = 10, kSync = 20, kAny = 30, kTold = kFlood / 2 };
  static char large_out[70000], large_in[70000];
  int out[kFlood][2], in[kFlood][2];
  MPI_Request recvs[kFlood], sends[kFlood];
  MPI_Status statuses[kFlood];
  for (int k = 0; k < kTold; ++k) {
    void *buffer = k == kLarge ? (void *)large_in : (void *)in[k];
    int bytes = k == kLarge ? (int)sizeof large_in : (int)sizeof in[k];
    CHECK_MPI(MPI_Irecv(buffer, bytes, MPI_BYTE, prev_, 100, MPI_COMM_WORLD, &recvs[k]));
  }
  int flag = 1;
  CHECK_MPI(MPI_Iprobe(prev_, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
  CHECK(!flag, "a message on tag 999 nobody sent");
  fill_pattern(large_out, sizeof large_out, seed_of(rank_, next_, 2, round));
  for (int k = 0; k < kFlood; ++k) {
    out[k][0] = rank_;
    out[k][1] = k * 7 + round;
    if (k == kLarge) {
      CHECK_MPI(MPI_Isend(large_out, sizeof large_out, MPI_BYTE, next_, 100, MPI_COMM_WORLD,
                          &sends[k]));
    } else if (k == kSync) {
      CHECK_MPI(MPI_Issend(out[k], sizeof out[k], MPI_BYTE, next_, 100, MPI_COMM_WORLD,
                           &sends[k]));
    } else {
      CHECK_MPI(MPI_Isend(out[k], sizeof out[k], MPI_BYTE, next_, 100, MPI_COMM_WORLD,
                          &sends[k]));
    }
  }
  for (int k = kTold; k < kFlood; ++k)
    CHECK_MPI(MPI_Irecv(in[k], sizeof in[k], MPI_BYTE, k == kAny ? MPI_ANY_SOURCE : prev_,
                        100, MPI_COMM_WORLD, &recvs[k]));
  CHECK_MPI(MPI_Waitall(kFlood, recvs, statuses));
  CHECK_MPI(MPI_Waitall(kFlood, sends, MPI_STATUSES_IGNORE));
  for (int k = 0; k < kFlood; ++k) {
    int count = -1;
    CHECK_MPI(MPI_Get_count(&statuses[k], MPI_BYTE, &count));
    CHECK(statuses[k].MPI_SOURCE == prev_, "flood message %d from %d, want %d", k,
          statuses[k].MPI_SOURCE, prev_);
    if (k == kLarge) {
      CHECK(count == (int)sizeof large_in, "flood message %d: %d bytes", k, count);
      CHECK_PATTERN(large_in, sizeof large_in, seed_of(prev_, rank_, 2, round), "flood's large");
      continue;
    }
    CHECK(count == (int)sizeof in[k], "flood message %d: %d bytes", k, count);
    CHECK(in[k][0] == prev_ && in[k][1] == k * 7 + round,
          "flood message %d (round %d): %d %d, want %d %d", k, round, in[k][0], in[k][1], prev_,
          k * 7 + round);
  }
}

/* 8. A token around the ring. */
enum { kTokenSizeCount = 8 };
static const int kTokenSizes[kTokenSizeCount] = {8, 4096, 4097, 0, 8, 960, 961, 8};

static void token_recv(char *in, int trip, int round) {
  int bytes = kTokenSizes[trip % kTokenSizeCount];
  MPI_Status status;
  int count = -1;
  memset(in, 0, (size_t)bytes + 1);
  CHECK_MPI(MPI_Recv(in, bytes, MPI_BYTE, trip % 3 == 2 ? MPI_ANY_SOURCE : prev_,
                     200 + trip % 2, MPI_COMM_WORLD, &status));
  CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &count));
  CHECK(status.MPI_SOURCE == prev_ && count == bytes,
        "token trip %d: %d bytes from %d, want %d from %d", trip, count, status.MPI_SOURCE,
        bytes, prev_);
  CHECK_PATTERN(in, (size_t)count, seed_of(prev_, rank_, trip % kStream, round), "token");
}

static void token_send(char *out, int trip, int round) {
  int bytes = kTokenSizes[trip % kTokenSizeCount];
  fill_pattern(out, (size_t)bytes, seed_of(rank_, next_, trip % kStream, round));
  CHECK_MPI(MPI_Send(out, bytes, MPI_BYTE, next_, 200 + trip % 2, MPI_COMM_WORLD));
}

static void token(int round) {
  enum { kTrips = 24 };
  static char out[4200], in[4200];
  for (int trip = 0; trip < kTrips; ++trip) {
    /* Longer than a spin lasts: the next rank's wait falls back to the
     * master (and its later waits back off). */
    if (rank_ == 1 % size_ && trip % 8 == 5) usleep(3000);
    if (rank_ == 0) {
      token_send(out, trip, round);
      token_recv(in, trip, round);
    } else {
      token_recv(in, trip, round);
      token_send(out, trip, round);
    }
  }
}

/* 9. Every rank sends to the next before that one posts the receive its
 * message needs, with a receive of another tag posted first. */
static void late_posts(int round) {
  static char out[2][1025], in[2][1025];
  int bytes = round % 2 == 0 ? 1024 : 8;
  MPI_Request other;
  MPI_Status status;
  int count = -1;
  barrier();
  for (int i = 0; i < 2; ++i) {
    memset(in[i], 0, sizeof in[i]);
    fill_pattern(out[i], (size_t)bytes, seed_of(rank_, next_, i, round));
  }
  CHECK_MPI(MPI_Irecv(in[1], bytes, MPI_BYTE, prev_, 301, MPI_COMM_WORLD, &other));
  CHECK_MPI(MPI_Send(out[0], bytes, MPI_BYTE, next_, 300, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(in[0], bytes, MPI_BYTE, prev_, 300, MPI_COMM_WORLD, &status));
  CHECK_MPI(MPI_Send(out[1], bytes, MPI_BYTE, next_, 301, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &count));
  CHECK(count == bytes, "late post: %d bytes, want %d", count, bytes);
  CHECK_MPI(MPI_Wait(&other, &status));
  CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &count));
  CHECK(count == bytes && status.MPI_TAG == 301, "late post: %d bytes tag %d, want %d tag 301",
        count, status.MPI_TAG, bytes);
  for (int i = 0; i < 2; ++i)
    CHECK_PATTERN(in[i], (size_t)bytes, seed_of(prev_, rank_, i, round), "late post");
}

/* 10. Messages sent before any receive for them is posted. */
static void early_sends(int round) {
  enum { kEarly = 6 };
  static const size_t kEarlySizes[kEarly] = {8, 12, 100, 70000, 1024, 1025};
  static const int kEarlyTags[kEarly] = {40, 41, 40, 40, 40, 40};
  static char out[kEarly][70000], in[70000];
  MPI_Request sends[kEarly + 3];
  MPI_Status status;
  /* Cancelled before its receive is posted (while no earlier message to
   * that rank waits at BDMPI's master): then it never arrives. */
  int doomed = round, cancelled = 0;
  CHECK_MPI(MPI_Isend(&doomed, 1, MPI_INT, next_, 42, MPI_COMM_WORLD, &sends[kEarly + 1]));
  CHECK_MPI(MPI_Cancel(&sends[kEarly + 1]));
  CHECK_MPI(MPI_Wait(&sends[kEarly + 1], &status));
  CHECK_MPI(MPI_Test_cancelled(&status, &cancelled));
  for (int k = 0; k < kEarly; ++k) {
    fill_pattern(out[k], kEarlySizes[k], seed_of(rank_, next_, k, round));
    CHECK_MPI(MPI_Isend(out[k], (int)kEarlySizes[k], MPI_BYTE, next_, kEarlyTags[k],
                        MPI_COMM_WORLD, &sends[k]));
  }
  /* Every other int of 32, received into a vector type. */
  int strided[16], got[32];
  for (int i = 0; i < 16; ++i) strided[i] = rank_ * 1000 + round * 100 + i;
  CHECK_MPI(MPI_Isend(strided, 16, MPI_INT, next_, 44, MPI_COMM_WORLD, &sends[kEarly]));
  CHECK_MPI(MPI_Isend(&cancelled, 1, MPI_INT, next_, 43, MPI_COMM_WORLD, &sends[kEarly + 2]));
  barrier();
  /* The first message of tag 40 (8 B) is the one a probe sees. */
  CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &status));
  CHECK_STATUS(status, prev_, 40, MPI_BYTE, kEarlySizes[0]);
  MPI_Message message;
  int flag = 0;
  while (!flag)
    CHECK_MPI(MPI_Improbe(prev_, 41, MPI_COMM_WORLD, &flag, &message, &status));
  CHECK_STATUS(status, prev_, 41, MPI_BYTE, kEarlySizes[1]);
  CHECK_MPI(MPI_Recv(in, (int)kEarlySizes[0], MPI_BYTE, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD,
                     &status));
  CHECK_STATUS(status, prev_, 40, MPI_BYTE, kEarlySizes[0]);
  CHECK_PATTERN(in, kEarlySizes[0], seed_of(prev_, rank_, 0, round), "early 0");
  for (int k = 2; k < kEarly; ++k) {
    CHECK_MPI(MPI_Recv(in, (int)kEarlySizes[k], MPI_BYTE, prev_, 40, MPI_COMM_WORLD, &status));
    CHECK_STATUS(status, prev_, 40, MPI_BYTE, kEarlySizes[k]);
    CHECK_PATTERN(in, kEarlySizes[k], seed_of(prev_, rank_, k, round), "early message");
  }
  CHECK_MPI(MPI_Mrecv(in, (int)kEarlySizes[1], MPI_BYTE, &message, &status));
  CHECK_STATUS(status, prev_, 41, MPI_BYTE, kEarlySizes[1]);
  CHECK_PATTERN(in, kEarlySizes[1], seed_of(prev_, rank_, 1, round), "matched probe");
  int was_cancelled = -1;
  CHECK_MPI(MPI_Recv(&was_cancelled, 1, MPI_INT, prev_, 43, MPI_COMM_WORLD, &status));
  CHECK_MPI(MPI_Iprobe(prev_, 42, MPI_COMM_WORLD, &flag, &status));
  if (was_cancelled) {
    CHECK(!flag, "a cancelled send arrived");
  } else {
    int value = -1;
    CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, prev_, 42, MPI_COMM_WORLD, &status));
    CHECK(value == round, "send not cancelled: %d, want %d", value, round);
  }
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(16, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  memset(got, 0xff, sizeof got);
  CHECK_MPI(MPI_Recv(got, 1, every_other, prev_, MPI_ANY_TAG, MPI_COMM_WORLD, &status));
  CHECK(status.MPI_TAG == 44, "strided message: tag %d", status.MPI_TAG);
  CHECK_MPI(MPI_Type_free(&every_other));
  for (int i = 0; i < 16; ++i) {
    CHECK(got[2 * i] == prev_ * 1000 + round * 100 + i, "strided %d: %d", i, got[2 * i]);
    CHECK(got[2 * i + 1] == -1, "strided gap %d written", i);
  }
  CHECK_MPI(MPI_Waitall(kEarly + 3, sends, MPI_STATUSES_IGNORE));
  barrier();
}

/* 11. More small messages to rank 0 than an inbox holds. */
static void fan_in(int round) {
  enum { kFlood = 150, kAnswered = 2, kAnsweredFlood = 32 };
  static int out[kFlood][2];
  /* Answered floods (isendflood's round): each sender waits in MPI_Recv
     for rank 0's answer, which comes once rank 0 has taken every flood;
     the first answer comes late (rank 0 sleeps 5 ms), so a waiter that
     polls gives up and backs off, and the next ones come at once. */
  for (int sub = 0; sub <= kAnswered; ++sub) {
    int flood = sub == kAnswered ? kFlood : kAnsweredFlood;
    if (rank_ != 0) {
      MPI_Request sends[kFlood];
      for (int k = 0; k < flood; ++k) {
        out[k][0] = round * 16 + sub;
        out[k][1] = k;
        CHECK_MPI(MPI_Isend(out[k], 2, MPI_INT, 0, 60, MPI_COMM_WORLD, &sends[k]));
      }
      CHECK_MPI(MPI_Waitall(flood, sends, MPI_STATUSES_IGNORE));
      if (sub == kAnswered) break;
      int answer[2] = {-1, -1};
      CHECK_MPI(MPI_Recv(answer, 2, MPI_INT, 0, 61, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(answer[0] == round * 16 + sub && answer[1] == rank_,
            "fan-in answer %d %d, want %d %d", answer[0], answer[1], round * 16 + sub, rank_);
      continue;
    }
    int seen[64] = {0};
    for (int k = 0; k < flood * (size_ - 1); ++k) {
      int in[2] = {-1, -1};
      MPI_Status status;
      CHECK_MPI(MPI_Recv(in, 2, MPI_INT, MPI_ANY_SOURCE, 60, MPI_COMM_WORLD, &status));
      int from = status.MPI_SOURCE;
      CHECK(from > 0 && from < size_ && from < 64, "fan-in from %d", from);
      CHECK(in[0] == round * 16 + sub && in[1] == seen[from],
            "fan-in from %d: message %d of round %d, want %d", from, in[1], in[0], seen[from]);
      ++seen[from];
    }
    if (sub == kAnswered) break;
    if (sub == 0) usleep(5000);
    for (int peer = 1; peer < size_; ++peer) {
      int answer[2] = {round * 16 + sub, peer};
      CHECK_MPI(MPI_Send(answer, 2, MPI_INT, peer, 61, MPI_COMM_WORLD));
    }
  }
  /* A flood on two tags, taken by receives of one tag at a time (any
     source): a receive of one tag is posted while messages of the other
     wait for theirs (BDMPI's senders then claim it without the inbox's
     lock), and each sender's order per tag holds. */
  enum { kTwoTags = 48 };
  if (rank_ != 0) {
    MPI_Request sends[kTwoTags];
    for (int k = 0; k < kTwoTags; ++k) {
      out[k][0] = round;
      out[k][1] = k;
      CHECK_MPI(MPI_Isend(out[k], 2, MPI_INT, 0, 62 + k % 2, MPI_COMM_WORLD, &sends[k]));
    }
    CHECK_MPI(MPI_Waitall(kTwoTags, sends, MPI_STATUSES_IGNORE));
  } else {
    int seen[64][2] = {{0}};
    for (int k = 0; k < kTwoTags * (size_ - 1); ++k) {
      int in[2] = {-1, -1}, tag = k % 2;
      MPI_Status status;
      CHECK_MPI(MPI_Recv(in, 2, MPI_INT, MPI_ANY_SOURCE, 62 + tag, MPI_COMM_WORLD, &status));
      int from = status.MPI_SOURCE;
      CHECK(from > 0 && from < size_ && from < 64, "two-tag fan-in from %d", from);
      CHECK(in[0] == round && in[1] == 2 * seen[from][tag] + tag,
            "two-tag fan-in from %d, tag %d: message %d of round %d, want %d", from, 62 + tag,
            in[1], in[0], 2 * seen[from][tag] + tag);
      ++seen[from][tag];
    }
  }
  barrier();
}

/* 12. Polling with the completion calls that do not block. */
enum { kPollTag = 70, kPollRecvs = 4, kPollSends = 4, kPollCount = 6, kPollMax = 70000 };
static const int kPollSizes[kPollCount] = {8, 32768, 1000, kPollMax, 16, 5000};

/* A message's first 8 bytes name it: sender, number, round. */
static void poll_fill(char *out, int dst, int k, int round) {
  int bytes = kPollSizes[k % kPollCount];
  fill_pattern(out, (size_t)bytes, seed_of(rank_, dst, k % kStream, round));
  if (bytes >= 8) {
    int head[2] = {rank_ * 1000 + k, round};
    memcpy(out, head, sizeof head);
  }
}

/* The receives' starts, numbered: a sender's messages must fill receives
 * started in their order (poll_took: the start that took message k of a
 * sender, -1 none yet). */
enum { kPollMaxRanks = 64 };
static long poll_started[kPollRecvs], poll_stamp;
static long poll_took[kPollMaxRanks][kPollCount];

/* Takes the message receive `i` completed with, checks it, and restarts
 * the receive. */
static void poll_take(char (*ins)[kPollMax], MPI_Request *recvs, int i,
                      const MPI_Status *status, int round, int *got) {
  char *in = ins[i];
  int count = -1;
  CHECK_MPI(MPI_Get_count(status, MPI_BYTE, &count));
  int head[2] = {-1, -1};
  memcpy(head, in, sizeof head);
  int from = head[0] / 1000, k = head[0] % 1000;
  CHECK(status->MPI_TAG == kPollTag && from == status->MPI_SOURCE && head[1] == round &&
            k >= 0 && k < kPollCount && count == kPollSizes[k],
        "polled message from %d (tag %d): names %d/%d of round %d, %d bytes",
        status->MPI_SOURCE, status->MPI_TAG, from, k, head[1], count);
  char want[kPollMax];
  memset(want, 0, sizeof want);
  int me = rank_;
  rank_ = from;  /* poll_fill writes as the sender */
  poll_fill(want, me, k, round);
  rank_ = me;
  CHECK(memcmp(want, in, (size_t)count) == 0, "polled message %d from %d differs", k, from);
  CHECK(poll_took[from][k] < 0, "polled message %d from %d twice", k, from);
  poll_took[from][k] = poll_started[i];
  ++*got;
  CHECK_MPI(MPI_Start(&recvs[i]));
  poll_started[i] = poll_stamp++;
}

/* Polls the receives once; returns how many messages it took. */
static int poll_once(char (*in)[kPollMax], MPI_Request *recvs, int round) {
  int got = 0;
  if (round % 2 == 0) {
    int index = -1, flag = 0;
    MPI_Status status;
    CHECK_MPI(MPI_Testany(kPollRecvs, recvs, &index, &flag, &status));
    if (flag && index != MPI_UNDEFINED) poll_take(in, recvs, index, &status, round, &got);
  } else {
    int count = 0, indices[kPollRecvs];
    MPI_Status statuses[kPollRecvs];
    CHECK_MPI(MPI_Testsome(kPollRecvs, recvs, &count, indices, statuses));
    for (int j = 0; j < count && count != MPI_UNDEFINED; ++j)
      poll_take(in, recvs, indices[j], &statuses[j], round, &got);
  }
  return got;
}

/* Cancels and frees persistent receives that no message is left for. */
static void cancel_persistent(MPI_Request *recvs, int n, const char *what) {
  for (int i = 0; i < n; ++i) {
    MPI_Status status;
    int cancelled = 0;
    CHECK_MPI(MPI_Cancel(&recvs[i]));
    CHECK_MPI(MPI_Wait(&recvs[i], &status));
    CHECK_MPI(MPI_Test_cancelled(&status, &cancelled));
    CHECK(cancelled, "%s receive %d not cancelled", what, i);
    CHECK_MPI(MPI_Request_free(&recvs[i]));
  }
}

static void polling(int round) {
  /* The token: each rank waits for it in a test loop, the previous rank
   * sends it (8 B, then 32 KiB: the master's way). */
  static char token_buf[32768];
  for (int t = 0; t < 2; ++t) {
    int bytes = t == 0 ? 8 : (int)sizeof token_buf;
    if (rank_ > 0) {
      MPI_Request recv;
      int flag = 0;
      long tests = 0;
      CHECK_MPI(MPI_Irecv(token_buf, bytes, MPI_BYTE, rank_ - 1, kPollTag + 1, MPI_COMM_WORLD,
                          &recv));
      while (!flag) {
        CHECK_MPI(MPI_Test(&recv, &flag, MPI_STATUS_IGNORE));
        ++tests;
      }
      CHECK(tests > 0 && token_buf[0] == (char)(round + t), "token %d: %d", t, token_buf[0]);
    }
    if (rank_ + 1 < size_) {
      memset(token_buf, round + t, (size_t)bytes);
      CHECK_MPI(MPI_Send(token_buf, bytes, MPI_BYTE, rank_ + 1, kPollTag + 1, MPI_COMM_WORLD));
    }
  }
  static char in[kPollRecvs][kPollMax], out[kPollSends][kPollMax];
  MPI_Request recvs[kPollRecvs], sends[kPollSends];
  CHECK(size_ <= kPollMaxRanks, "%d ranks", size_);
  memset(poll_took, 0xff, sizeof poll_took);
  poll_stamp = 0;
  for (int i = 0; i < kPollRecvs; ++i) {
    CHECK_MPI(MPI_Recv_init(in[i], kPollMax, MPI_BYTE, MPI_ANY_SOURCE, kPollTag, MPI_COMM_WORLD,
                            &recvs[i]));
    CHECK_MPI(MPI_Start(&recvs[i]));
    poll_started[i] = poll_stamp++;
  }
  for (int i = 0; i < kPollSends; ++i) sends[i] = MPI_REQUEST_NULL;
  /* Every rank, this one first: its messages to itself go through the
   * master into receives it polls. */
  int expected = size_ * kPollCount, got = 0;
  for (int step = 0; step < size_; ++step) {
    int dst = (rank_ + step) % size_;
    for (int k = 0; k < kPollCount; ++k) {
      int index = -1, flag = 0;
      while (!flag) {  /* a free send buffer, polling meanwhile */
        got += poll_once(in, recvs, round);
        CHECK_MPI(MPI_Testany(kPollSends, sends, &index, &flag, MPI_STATUS_IGNORE));
      }
      if (index == MPI_UNDEFINED) index = 0;  /* all null */
      for (int i = 0; i < kPollSends; ++i)
        if (sends[i] == MPI_REQUEST_NULL) index = i;
      poll_fill(out[index], dst, k, round);
      /* Message 4 is synchronous: matched only once the receiver tells
       * the master of a receive for it. */
      if (k == 4)
        CHECK_MPI(MPI_Issend(out[index], kPollSizes[k], MPI_BYTE, dst, kPollTag, MPI_COMM_WORLD,
                             &sends[index]));
      else
        CHECK_MPI(MPI_Isend(out[index], kPollSizes[k], MPI_BYTE, dst, kPollTag, MPI_COMM_WORLD,
                            &sends[index]));
    }
  }
  while (got < expected) got += poll_once(in, recvs, round);
  CHECK(got == expected, "polled %d messages, want %d", got, expected);
  int done = 0;
  while (!done) {
    CHECK_MPI(MPI_Testall(kPollSends, sends, &done, MPI_STATUSES_IGNORE));
    got += poll_once(in, recvs, round);
  }
  MPI_Request barrier_request;
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &barrier_request));
  for (done = 0; !done;) {
    CHECK_MPI(MPI_Test(&barrier_request, &done, MPI_STATUS_IGNORE));
    got += poll_once(in, recvs, round);
  }
  CHECK(got == expected, "polled %d messages, want %d", got, expected);
  for (int from = 0; from < size_; ++from)
    for (int k = 1; k < kPollCount; ++k)
      CHECK(poll_took[from][k - 1] < poll_took[from][k],
            "polled messages %d and %d of %d out of order", k - 1, k, from);
  cancel_persistent(recvs, kPollRecvs, "polled");
  barrier();
}

/* 13. A stream of medium messages that outruns persistent receives. */
enum { kMedCount = 40, kMedTagBase = 100, kMedCancelTag = 99, kMedVerdictTag = 81,
       kMedRecvs = 4, kMedMax = 70000 };

/* Message q's size: 2 to 32 KiB, but an empty one and some above the
 * window (64 KiB). */
static int medium_size(int q) {
  if (q == 7) return 0;
  if (q % 8 == 5) return kMedMax;
  return 2048 + (q * 7919) % (30 * 1024 + 1);
}

static uint64_t medium_seed(int src, int q, int round) {
  return msg_seed(src, 0, (size_t)medium_size(q)) ^ ((uint64_t)(q + 1) << 16) ^
         ((uint64_t)round << 48);
}

static void medium_send(MPI_Comm comm, int round) {
  static char out[kMedCount][kMedMax], candidate[3000];
  MPI_Request sends[kMedCount];
  for (int q = 0; q < kMedCount; ++q) {
    fill_pattern(out[q], (size_t)medium_size(q), medium_seed(rank_, q, round));
    if (q % 16 == 3) {
      CHECK_MPI(MPI_Ssend(out[q], medium_size(q), MPI_BYTE, 0, kMedTagBase + q, comm));
      sends[q] = MPI_REQUEST_NULL;
    } else {
      CHECK_MPI(MPI_Isend(out[q], medium_size(q), MPI_BYTE, 0, kMedTagBase + q, comm,
                          &sends[q]));
    }
  }
  MPI_Request cancel;
  MPI_Status status;
  int verdict = 0;
  memset(candidate, round, sizeof candidate);
  CHECK_MPI(MPI_Isend(candidate, sizeof candidate, MPI_BYTE, 0, kMedCancelTag, comm, &cancel));
  CHECK_MPI(MPI_Cancel(&cancel));
  CHECK_MPI(MPI_Wait(&cancel, &status));
  CHECK_MPI(MPI_Test_cancelled(&status, &verdict));
  CHECK_MPI(MPI_Send(&verdict, 1, MPI_INT, 0, kMedVerdictTag, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Waitall(kMedCount, sends, MPI_STATUSES_IGNORE));
}

/* Rank 0's side: `stamp` numbers the receives' starts; a sender's
 * messages must fill receives started in their order. */
static void medium_receive(MPI_Comm comm, int round, int blocking) {
  static char in[kMedRecvs][kMedMax], want[kMedMax];
  MPI_Request recvs[kMedRecvs];
  long started[kMedRecvs], stamp = 0;
  /* Per sender: the start stamp of the receive that took message q. */
  static long took[64][kMedCount];
  int taken[64] = {0}, verdicts = 0, candidates = 0, cancelled = 0;
  int senders = size_ - 1;
  CHECK(senders < 64, "%d senders", senders);
  memset(took, 0xff, sizeof took);
  for (int i = 0; i < kMedRecvs; ++i) {
    CHECK_MPI(MPI_Recv_init(in[i], kMedMax, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm,
                            &recvs[i]));
    CHECK_MPI(MPI_Start(&recvs[i]));
    started[i] = stamp++;
  }
  usleep(200);  /* the senders get ahead */
  int total = senders * kMedCount;
  int done_count = 0;
  while (done_count < total + senders - cancelled || verdicts < senders) {
    int index = -1, flag = 0;
    MPI_Status status;
    if (blocking && verdicts == senders) {
      CHECK_MPI(MPI_Waitany(kMedRecvs, recvs, &index, &status));
      flag = index != MPI_UNDEFINED;
    } else {
      CHECK_MPI(MPI_Testany(kMedRecvs, recvs, &index, &flag, &status));
    }
    if (flag && index != MPI_UNDEFINED) {
      int from = status.MPI_SOURCE, count = -1;
      CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &count));
      CHECK(from > 0 && from < size_, "medium message from %d", from);
      if (status.MPI_TAG == kMedCancelTag) {
        ++candidates;
        CHECK(count == 3000 && in[index][0] == (char)round, "cancel candidate of %d: %d bytes",
              from, count);
      } else {
        int q = status.MPI_TAG - kMedTagBase;
        CHECK(q >= 0 && q < kMedCount && took[from][q] < 0 && count == medium_size(q),
              "medium message %d from %d: %d bytes, taken before: %ld", q, from, count,
              q >= 0 && q < kMedCount ? took[from][q] : -2L);
        fill_pattern(want, (size_t)count, medium_seed(from, q, round));
        CHECK(memcmp(want, in[index], (size_t)count) == 0, "medium message %d from %d differs",
              q, from);
        took[from][q] = started[index];
        ++taken[from];
      }
      ++done_count;
      CHECK_MPI(MPI_Start(&recvs[index]));
      started[index] = stamp++;
    }
    /* A probe sees a later message of its sender than any taken. */
    int probed = 0;
    MPI_Status seen;
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &probed, &seen));
    if (probed && seen.MPI_TAG != kMedCancelTag) {
      int q = seen.MPI_TAG - kMedTagBase, from = seen.MPI_SOURCE;
      CHECK(q >= 0 && q < kMedCount && from > 0 && from < size_ && took[from][q] < 0,
            "probed medium message %d from %d, taken already", q, from);
      for (int later = q + 1; later < kMedCount; ++later)
        CHECK(took[from][later] < 0, "probed message %d from %d after its message %d", q, from,
              later);
    }
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, kMedVerdictTag, MPI_COMM_WORLD, &probed, &seen));
    if (probed) {
      int verdict = -1;
      CHECK_MPI(MPI_Recv(&verdict, 1, MPI_INT, seen.MPI_SOURCE, kMedVerdictTag, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
      ++verdicts;
      cancelled += verdict != 0;
    }
  }
  CHECK(candidates + cancelled == senders, "%d cancel candidates received, %d cancelled, of %d",
        candidates, cancelled, senders);
  for (int from = 1; from < size_; ++from) {
    CHECK(taken[from] == kMedCount, "%d medium messages from %d", taken[from], from);
    for (int q = 1; q < kMedCount; ++q)
      CHECK(took[from][q - 1] < took[from][q], "medium messages %d and %d of %d out of order",
            q - 1, q, from);
  }
  cancel_persistent(recvs, kMedRecvs, "medium");
}

static void medium(MPI_Comm comm, int round, int blocking) {
  if (rank_ == 0)
    medium_receive(comm, round, blocking);
  else
    medium_send(comm, round);
  barrier();
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  rank_ = world_rank();
  size_ = world_size();
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;
  int rounds = (int)arg_ll(argc, argv, "--rounds", 2);
  size_t hold = (size_t)arg_ll(argc, argv, "--hold-memory", 0);
  char *held = NULL;
  if (hold > 0) {
    held = xmalloc(hold);
    memset(held, rank_ + 1, hold);
  }
  char *in[kStream], *out[kStream];
  for (int k = 0; k < kStream; ++k) {
    in[k] = xmalloc(kSizes[k] + 1);
    out[k] = xmalloc(kSizes[k] + 1);
  }
  MPI_Comm medium_comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &medium_comm));
  for (int round = 0; round < rounds; ++round) {
    /* Held memory: each switch writes it back; one round tells. */
    if (held == NULL || round == 0) medium(medium_comm, round, held != NULL);
    for (int mode = 0; mode < 4; ++mode) stream(in, out, mode, round);
    probes(round);
    MPI_Request marker_recv;
    int marker = -1;
    cancels_marker_recv(&marker_recv, &marker);
    cancels(round);
    CHECK_MPI(MPI_Wait(&marker_recv, MPI_STATUS_IGNORE));
    CHECK(marker == round, "marker %d, want %d", marker, round);
    ssends(round, medium_comm);
    completions(round);
    halos(round);
    flood(round);
    token(round);
    late_posts(round);
    early_sends(round);
    fan_in(round);
    if (held == NULL) polling(round);
    if (held != NULL) {
      for (size_t i = 0; i < hold; i += 4096)
        CHECK(held[i] == (char)(rank_ + 1), "held memory changed at %zu", i);
    }
  }
  for (int k = 0; k < kStream; ++k) {
    free(in[k]);
    free(out[k]);
  }
  free(held);
  CHECK_MPI(MPI_Comm_free(&medium_comm));
  barrier();
  if (rank_ == 0) printf("direct_mix: %d rounds on %d ranks passed\n", rounds, size_);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
