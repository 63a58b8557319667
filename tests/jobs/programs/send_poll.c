/*
 * send_poll: a rank that streams sends and polls between them, as an
 * active-message library does (Graph500's AML tests a persistent receive
 * after every buffer it flushes).
 *
 * Stream: rank 0 sends --messages messages to each other rank in turn,
 * testing its persistent receive for their acknowledgements after each
 * send; every other rank acknowledges each message as it receives it. All
 * messages arrive intact and every acknowledgement comes back. With
 * --expect-turn (under bdmpiexec -nr 1) rank 0 also checks that it kept its
 * turn while it was sending: none of its tests found an acknowledgement
 * before its last send, since the ranks that acknowledge could not run.
 *
 * Ping: rank 0 keeps sending to rank 1 until a test finds rank 1's answer,
 * which rank 1 sends once it has the first message. A rank that keeps its
 * turn because it keeps sending must still let the others run in time.
 */
#include "check.h"

enum { kWords = 1024, kTagData = 1, kTagAck = 2, kTagPing = 3, kTagStop = 4 };

static int word_of(int dest, int message, int i) { return dest * 1000003 + message * 1009 + i; }

/* Each rank acknowledges rank 0's messages in order. */
static void check_ack(int ack, int source, int *next_ack) {
  CHECK(ack == next_ack[source], "rank %d acknowledged message %d, expected %d", source, ack,
        next_ack[source]);
  ++next_ack[source];
}

static void stream(int messages, int expect_turn) {
  const int rank = world_rank(), size = world_size();
  if (rank != 0) {
    int *data = malloc(kWords * sizeof(int));
    for (int m = 0; m < messages; ++m) {
      CHECK_MPI(MPI_Recv(data, kWords, MPI_INT, 0, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (int i = 0; i < kWords; ++i)
        CHECK(data[i] == word_of(rank, m, i), "message %d word %d is %d, expected %d", m, i,
              data[i], word_of(rank, m, i));
      CHECK_MPI(MPI_Send(&m, 1, MPI_INT, 0, kTagAck, MPI_COMM_WORLD));
    }
    free(data);
    return;
  }
  int *data = malloc(kWords * sizeof(int));
  int ack = -1;
  MPI_Request ack_request;
  CHECK_MPI(MPI_Recv_init(&ack, 1, MPI_INT, MPI_ANY_SOURCE, kTagAck, MPI_COMM_WORLD,
                          &ack_request));
  CHECK_MPI(MPI_Start(&ack_request));
  int *next_ack = calloc((size_t)size, sizeof(int));
  const int expected = (size - 1) * messages;
  int acks = 0, acks_while_sending = 0;
  for (int m = 0; m < messages; ++m) {
    for (int dest = 1; dest < size; ++dest) {
      for (int i = 0; i < kWords; ++i) data[i] = word_of(dest, m, i);
      CHECK_MPI(MPI_Send(data, kWords, MPI_INT, dest, kTagData, MPI_COMM_WORLD));
      const int last = m == messages - 1 && dest == size - 1;
      int found = 0;
      MPI_Status status;
      CHECK_MPI(MPI_Test(&ack_request, &found, &status));
      if (!found) continue;
      check_ack(ack, status.MPI_SOURCE, next_ack);
      if (!last) ++acks_while_sending;
      if (++acks < expected) CHECK_MPI(MPI_Start(&ack_request));
    }
  }
  while (acks < expected) {
    MPI_Status status;
    CHECK_MPI(MPI_Wait(&ack_request, &status));
    check_ack(ack, status.MPI_SOURCE, next_ack);
    if (++acks < expected) CHECK_MPI(MPI_Start(&ack_request));
  }
  CHECK_MPI(MPI_Request_free(&ack_request));
  if (expect_turn)
    CHECK(acks_while_sending == 0,
          "rank 0 found %d acknowledgements while it was still sending: it lost its turn "
          "at a test right after a send",
          acks_while_sending);
  free(next_ack);
  free(data);
}

static void ping(void) {
  const int rank = world_rank();
  if (rank == 1) {
    int first = 0, answer = 7, pings = 1, stop_count = -1;
    MPI_Status status;
    CHECK_MPI(MPI_Recv(&first, 1, MPI_INT, 0, kTagPing, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Send(&answer, 1, MPI_INT, 0, kTagPing, MPI_COMM_WORLD));
    for (;;) {
      int value = 0;
      CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status));
      if (status.MPI_TAG == kTagStop) {
        stop_count = value;
        break;
      }
      CHECK(value == pings, "ping %d carries %d", pings, value);
      ++pings;
    }
    CHECK(stop_count == pings, "rank 0 sent %d pings, rank 1 received %d", stop_count, pings);
  } else if (rank == 0) {
    int answer = 0, found = 0, sent = 0;
    MPI_Request answer_request;
    CHECK_MPI(MPI_Irecv(&answer, 1, MPI_INT, 1, kTagPing, MPI_COMM_WORLD, &answer_request));
    while (!found) {
      MPI_Request request;
      CHECK_MPI(MPI_Isend(&sent, 1, MPI_INT, 1, kTagPing, MPI_COMM_WORLD, &request));
      CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
      ++sent;
      CHECK_MPI(MPI_Test(&answer_request, &found, MPI_STATUS_IGNORE));
    }
    CHECK(answer == 7, "rank 1 answered %d, expected 7", answer);
    CHECK_MPI(MPI_Send(&sent, 1, MPI_INT, 1, kTagStop, MPI_COMM_WORLD));
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int messages = 16, expect_turn = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--messages") == 0 && i + 1 < argc) messages = atoi(argv[++i]);
    else if (strcmp(argv[i], "--expect-turn") == 0) expect_turn = 1;
  }
  CHECK(world_size() >= 2, "needs at least 2 ranks, has %d", world_size());
  stream(messages, expect_turn);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  ping();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Finalize();
  return 0;
}
