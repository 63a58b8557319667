/*
 * mprobe: matched probes. A message found by MPI_Mprobe/MPI_Improbe leaves
 * matching: only MPI_Mrecv/MPI_Imrecv of its MPI_Message receives it.
 *
 *   * Every rank sends every other rank (and itself) one message of a size
 *     and tag the receiver cannot know; the receiver takes them with
 *     MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG) + MPI_Mrecv into a buffer of
 *     MPI_Get_count's size, and with MPI_Improbe + MPI_Imrecv in a second
 *     round. With -nr 1 a rank blocked in MPI_Mprobe lets the others run.
 *   * After MPI_Mprobe took the first of two messages, an MPI_ANY_SOURCE/
 *     MPI_ANY_TAG receive gets the second, not the probed one.
 *   * MPI_Mprobe + MPI_Mrecv complete an MPI_Issend.
 *   * MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC, whose receive is empty.
 *   * MPI_Recv and MPI_Mprobe leave the status's MPI_ERROR alone.
 *   * MPI_Mrecv into a vector type (a strided receive buffer).
 */
#include "check.h"

static size_t mp_bytes(int src, int dst, int round) {
  return ((size_t)src * 7919 + (size_t)dst * 104729 + (size_t)round * 50021) % 200000 *
         ((src + dst + round) % 3 != 0);
}
static int mp_tag(int src, int dst) { return 1 + (src * 31 + dst) % 97; }

static void exchange(int round, int size, int rank) {
  unsigned char **out = xmalloc((size_t)size * sizeof *out);
  MPI_Request *reqs = xmalloc((size_t)size * sizeof *reqs);
  for (int dst = 0; dst < size; ++dst) {
    const size_t bytes = mp_bytes(rank, dst, round);
    out[dst] = xmalloc(bytes);
    fill_pattern(out[dst], bytes, msg_seed(rank, dst, bytes));
    MPI_Isend(out[dst], (int)bytes, MPI_BYTE, dst, mp_tag(rank, dst), MPI_COMM_WORLD,
              &reqs[dst]);
  }
  int *seen = calloc((size_t)size, sizeof(int));
  for (int n = 0; n < size; ++n) {
    MPI_Message message = MPI_MESSAGE_NULL;
    MPI_Status st;
    if (round == 0) {
      MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &message, &st);
    } else {
      int flag = 0;
      while (!flag) MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &message, &st);
    }
    CHECK(message != MPI_MESSAGE_NULL, "a matched probe gave MPI_MESSAGE_NULL");
    const int src = st.MPI_SOURCE;
    CHECK(src >= 0 && src < size && !seen[src], 
          "round %d: matched probe found source %d (tag %d) again", round, src, st.MPI_TAG);
    seen[src] = 1;
    int bytes = -1;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    const size_t want = mp_bytes(src, rank, round);
    CHECK(bytes == (int)want && st.MPI_TAG == mp_tag(src, rank),
          "probe of message from %d: %d bytes tag %d, want %zu bytes tag %d", src, bytes,
          st.MPI_TAG, want, mp_tag(src, rank));
    unsigned char *in = xmalloc((size_t)bytes);
    MPI_Status rst;
    if (round == 0) {
      MPI_Mrecv(in, bytes, MPI_BYTE, &message, &rst);
    } else {
      MPI_Request req;
      MPI_Imrecv(in, bytes, MPI_BYTE, &message, &req);
      MPI_Wait(&req, &rst);
    }
    CHECK(message == MPI_MESSAGE_NULL, "the message handle is not MPI_MESSAGE_NULL after receipt");
    CHECK_STATUS(rst, src, mp_tag(src, rank), MPI_BYTE, bytes);
    CHECK_PATTERN(in, want, msg_seed(src, rank, want), "matched message");
    free(in);
  }
  free(seen);
  MPI_Waitall(size, reqs, MPI_STATUSES_IGNORE);
  for (int dst = 0; dst < size; ++dst) free(out[dst]);
  free(out);
  free(reqs);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status st;
  MPI_Message message;

  /* Barriers: the wildcard probes of a round meet only its messages. */
  exchange(0, size, rank);
  MPI_Barrier(MPI_COMM_WORLD);
  exchange(1, size, rank);
  MPI_Barrier(MPI_COMM_WORLD);

  /* The probed message is out of reach of other receives. */
  int first = 1000 + rank, second = 2000 + rank, got = -1, probed = -1;
  MPI_Send(&first, 1, MPI_INT, right, 40, MPI_COMM_WORLD);
  MPI_Send(&second, 1, MPI_INT, right, 41, MPI_COMM_WORLD);
  MPI_Mprobe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &message, &st);
  CHECK(st.MPI_TAG == 40, "MPI_Mprobe found tag %d, want the first message (40)", st.MPI_TAG);
  st.MPI_ERROR = MPI_ERR_TOPOLOGY;
  MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  CHECK_STATUS(st, left, 41, MPI_INT, 1);
  CHECK(st.MPI_ERROR == MPI_ERR_TOPOLOGY, "MPI_Recv set MPI_ERROR to %d", st.MPI_ERROR);
  CHECK(got == 2000 + left, "MPI_Recv after MPI_Mprobe got %d, want %d", got, 2000 + left);
  MPI_Mrecv(&probed, 1, MPI_INT, &message, &st);
  CHECK(probed == 1000 + left, "MPI_Mrecv got %d, want %d", probed, 1000 + left);

  /* A matched receive completes a synchronous send. */
  MPI_Request ssend;
  MPI_Issend(&first, 1, MPI_INT, right, 42, MPI_COMM_WORLD, &ssend);
  MPI_Mprobe(left, 42, MPI_COMM_WORLD, &message, &st);
  MPI_Mrecv(&probed, 1, MPI_INT, &message, &st);
  MPI_Wait(&ssend, MPI_STATUS_IGNORE);
  CHECK(probed == 1000 + left, "MPI_Mrecv after MPI_Issend got %d", probed);

  /* MPI_PROC_NULL. The single-completion calls leave MPI_ERROR alone. */
  st.MPI_ERROR = MPI_ERR_DIMS;
  MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &message, &st);
  CHECK(st.MPI_ERROR == MPI_ERR_DIMS, "MPI_Mprobe set MPI_ERROR to %d", st.MPI_ERROR);
  CHECK(message == MPI_MESSAGE_NO_PROC, "MPI_Mprobe(MPI_PROC_NULL) gave %d",
        (int)MPI_Message_c2f(message));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
        "MPI_Mprobe(MPI_PROC_NULL) status (%d, %d)", st.MPI_SOURCE, st.MPI_TAG);
  MPI_Mrecv(&got, 1, MPI_INT, &message, &st);
  CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
  CHECK(message == MPI_MESSAGE_NULL, "MPI_Mrecv left MPI_MESSAGE_NO_PROC");
  int flag = 0;
  MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &message, &st);
  CHECK(flag && message == MPI_MESSAGE_NO_PROC, "MPI_Improbe(MPI_PROC_NULL): flag %d", flag);
  MPI_Request req;
  MPI_Imrecv(&got, 1, MPI_INT, &message, &req);
  MPI_Wait(&req, &st);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "MPI_Imrecv of MPI_MESSAGE_NO_PROC: source %d",
        st.MPI_SOURCE);

  /* Into a strided buffer: every other int of 8. */
  int dense[4] = {1 + rank, 2 + rank, 3 + rank, 4 + rank}, strided[8];
  for (int i = 0; i < 8; ++i) strided[i] = -1;
  MPI_Datatype every_other;
  MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Send(dense, 4, MPI_INT, right, 43, MPI_COMM_WORLD);
  MPI_Mprobe(left, 43, MPI_COMM_WORLD, &message, &st);
  MPI_Mrecv(strided, 1, every_other, &message, &st);
  for (int i = 0; i < 8; ++i) {
    int want = i % 2 == 0 ? i / 2 + 1 + left : -1;
    CHECK(strided[i] == want, "strided[%d] = %d, want %d", i, strided[i], want);
  }
  MPI_Type_free(&every_other);

  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
