/*
 * order: MPI's non-overtaking rule. Messages from one sender that match the
 * same receive arrive in the order they were sent, even when their sizes
 * alternate between the small (memory-buffered) and large (spilled) paths,
 * which a runtime moves by different routes.
 *
 * Each rank sends kMessages messages to its right neighbour (itself with one
 * rank), all with MPI_Isend before any receive, then receives from its left:
 *  1. one tag for all; received in order with that tag;
 *  2. tags cycling 1,2,3; received with MPI_ANY_TAG in send order;
 *  3. tags cycling 1,2,3; all tag-3 messages received first, then tag 2,
 *     then tag 1: each tag's messages must still arrive in send order.
 * Every message carries its sequence number and size in its first ints.
 */
#include "check.h"

enum { kMessages = 48, kTags = 3 };

/* Sizes in bytes, cycling; alternate small and large around 4 KiB / 64 KiB
 * so that a small message is sent right after a large one and vice versa. */
static const size_t kCycle[] = {8,    65537, 4095,   4097, 16,      65536,
                                4096, 65535, 200000, 8,    1 << 20, 12};
enum { kCycleLen = sizeof(kCycle) / sizeof(kCycle[0]) };

static size_t msg_bytes(int i) { return kCycle[i % kCycleLen]; }

static int msg_tag(int phase, int i) { return phase == 1 ? 5 : 1 + i % kTags; }

/* Checks one received message: sequence, size, tag and the payload. */
static void check_msg(const int *in, const MPI_Status *st, int left, int rank,
                      int want_seq, int want_tag) {
  const size_t bytes = msg_bytes(want_seq);
  CHECK(in[0] == want_seq, "tag %d: got message %d where %d was due",
        st->MPI_TAG, in[0], want_seq);
  CHECK_STATUS(*st, left, want_tag, MPI_BYTE, bytes);
  CHECK_PATTERN(in + 1, bytes - sizeof(int), msg_seed(left, rank, in[0]),
                "message payload");
}

static void run_phase(int phase, int rank, int right, int left) {
  unsigned char *out[kMessages];
  MPI_Request reqs[kMessages];
  for (int i = 0; i < kMessages; ++i) {
    const size_t bytes = msg_bytes(i);
    out[i] = xmalloc(bytes);
    fill_pattern(out[i] + sizeof(int), bytes - sizeof(int),
                 msg_seed(rank, right, (size_t)i));
    memcpy(out[i], &i, sizeof(int));
    MPI_Isend(out[i], (int)bytes, MPI_BYTE, right, msg_tag(phase, i),
              MPI_COMM_WORLD, &reqs[i]);
  }

  int *in = xmalloc(1 << 20);
  MPI_Status st;
  if (phase < 3) {
    const int tag = phase == 1 ? msg_tag(1, 0) : MPI_ANY_TAG;
    for (int i = 0; i < kMessages; ++i) {
      MPI_Recv(in, 1 << 20, MPI_BYTE, left, tag, MPI_COMM_WORLD, &st);
      check_msg(in, &st, left, rank, i, msg_tag(phase, i));
    }
  } else {
    for (int tag = kTags; tag >= 1; --tag) {
      for (int i = tag - 1; i < kMessages; i += kTags) {
        MPI_Recv(in, 1 << 20, MPI_BYTE, left, tag, MPI_COMM_WORLD, &st);
        check_msg(in, &st, left, rank, i, tag);
      }
    }
  }
  free(in);
  MPI_Waitall(kMessages, reqs, MPI_STATUSES_IGNORE);
  for (int i = 0; i < kMessages; ++i) free(out[i]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int phase = 1; phase <= 3; ++phase) {
    run_phase(phase, rank, right, left);
    /* Keep the phases apart so that phase 3's tags cannot meet phase 2's. */
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
