/*
 * any_source_tag: wildcard receives and what the status reports.
 *
 * Every rank (rank 0 included, to itself) sends kPerSender messages to
 * rank 0 with tags and lengths that depend on sender and sequence number;
 * each message also carries its sender, tag, length and sequence number in
 * its first ints, so rank 0 can check the status and that messages from one
 * sender arrive in the order sent (non-overtaking holds for wildcards too).
 * Rank 0 receives them with MPI_ANY_SOURCE + MPI_ANY_TAG, then with
 * ANY_SOURCE + a given tag, then with a given source + ANY_TAG, and checks
 * MPI_SOURCE, MPI_TAG and MPI_Get_count against what the message says.
 * Last, MPI_Get_count returns MPI_UNDEFINED for a 7-byte message counted
 * in ints, and 0 for an empty message.
 */
#include "check.h"

/* Per-message tags start at kTagA and stay below kTagB for up to 4000 ranks. */
enum {
  kPerSender = 6,
  kHeader = 4,
  kTagA = 1000,
  kTagB = 30000,
  kTagC = 31000
};

/* Length in ints of message i from src; some cross the 4 KiB threshold. */
static int msg_ints(int src, int i) {
  return kHeader + ((src * 7 + i * 13) % 5) * 700 + (i % 2) * 17000;
}

static int msg_tag(int src, int i) { return kTagA + src * kPerSender + i; }

static void send_all(int rank, int **bufs, MPI_Request *reqs, int tag_base) {
  for (int i = 0; i < kPerSender; ++i) {
    const int n = msg_ints(rank, i);
    const int tag = tag_base ? tag_base : msg_tag(rank, i);
    bufs[i] = xmalloc((size_t)n * sizeof(int));
    for (int j = 0; j < n; ++j) bufs[i][j] = rank * 1000 + j;
    bufs[i][0] = rank;
    bufs[i][1] = tag;
    bufs[i][2] = n;
    bufs[i][3] = i;
    MPI_Isend(bufs[i], n, MPI_INT, 0, tag, MPI_COMM_WORLD, &reqs[i]);
  }
}

static void finish_sends(int **bufs, MPI_Request *reqs) {
  MPI_Waitall(kPerSender, reqs, MPI_STATUSES_IGNORE);
  for (int i = 0; i < kPerSender; ++i) free(bufs[i]);
}

/* Receives one message with the given source/tag (wildcards allowed) and
 * checks the status against the header and that it is the seq-th message
 * of its sender; returns the sender. */
static int recv_one(int source, int tag, int *buf, int cap, const int *seq) {
  MPI_Status st;
  MPI_Recv(buf, cap, MPI_INT, source, tag, MPI_COMM_WORLD, &st);
  CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < world_size(), "source %d",
        st.MPI_SOURCE);
  CHECK_STATUS(st, buf[0], buf[1], MPI_INT, buf[2]);
  CHECK(source == MPI_ANY_SOURCE || st.MPI_SOURCE == source,
        "asked for source %d, got %d", source, st.MPI_SOURCE);
  CHECK(tag == MPI_ANY_TAG || st.MPI_TAG == tag, "asked for tag %d, got %d",
        tag, st.MPI_TAG);
  CHECK(buf[3] == seq[st.MPI_SOURCE],
        "message %d of rank %d arrived as its %d-th", buf[3], st.MPI_SOURCE,
        seq[st.MPI_SOURCE]);
  for (int j = kHeader; j < buf[2]; ++j) {
    CHECK(buf[j] == buf[0] * 1000 + j, "message from %d: int %d is %d", buf[0],
          j, buf[j]);
  }
  return st.MPI_SOURCE;
}

/* Phase with the given send tag (0: per-message tags) and receive pattern. */
static void phase(int rank, int size, int send_tag, int recv_by_source,
                  int recv_tag) {
  int *bufs[kPerSender];
  MPI_Request reqs[kPerSender];
  send_all(rank, bufs, reqs, send_tag);
  if (rank == 0) {
    const int cap = kHeader + 4 * 700 + 17000;
    int *in = xmalloc((size_t)cap * sizeof(int));
    int *seen = calloc((size_t)size, sizeof(int));
    for (int src = 0; src < size; ++src) {
      for (int i = 0; i < kPerSender; ++i) {
        const int from = recv_one(recv_by_source ? src : MPI_ANY_SOURCE,
                                  recv_tag, in, cap, seen);
        ++seen[from];
      }
    }
    for (int src = 0; src < size; ++src) {
      CHECK(seen[src] == kPerSender, "got %d messages from %d, want %d",
            seen[src], src, kPerSender);
    }
    free(seen);
    free(in);
  }
  finish_sends(bufs, reqs);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();

  phase(rank, size, 0, 0, MPI_ANY_TAG);     /* any source, any tag */
  phase(rank, size, kTagB, 0, kTagB);       /* any source, given tag */
  phase(rank, size, kTagC, 1, MPI_ANY_TAG); /* given source, any tag */

  /* MPI_Get_count of a message that is not a whole number of elements. */
  const int peer = size - 1;
  if (rank == peer) {
    char seven[7] = "abcdef";
    MPI_Send(seven, 7, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
    MPI_Send(seven, 0, MPI_BYTE, 0, 8, MPI_COMM_WORLD);
  }
  if (rank == 0) {
    char in[16];
    MPI_Status st;
    int n = -1;
    MPI_Recv(in, (int)sizeof in, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
             MPI_COMM_WORLD, &st);
    CHECK_STATUS(st, peer, 7, MPI_BYTE, 7);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == MPI_UNDEFINED, "7 bytes as MPI_INT: count %d, want %d", n,
          MPI_UNDEFINED);
    MPI_Get_count(&st, MPI_SHORT, &n);
    CHECK(n == MPI_UNDEFINED, "7 bytes as MPI_SHORT: count %d, want %d", n,
          MPI_UNDEFINED);
    MPI_Get_count(&st, MPI_CHAR, &n);
    CHECK(n == 7, "7 bytes as MPI_CHAR: count %d", n);
    CHECK(memcmp(in, "abcdef", 7) == 0, "7-byte message content differs");
    MPI_Recv(in, (int)sizeof in, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD,
             &st);
    CHECK_STATUS(st, peer, 8, MPI_INT, 0);
  }
  MPI_Finalize();
  return 0;
}
