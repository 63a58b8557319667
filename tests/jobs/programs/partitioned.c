/*
 * partitioned: MPI-4 partitioned communication (MPI 4.1 chapter 4).
 *
 * Each rank sends to its right neighbour and receives from its left with
 * MPI_Psend_init/MPI_Precv_init, three rounds of MPI_Startall, the
 * partitions marked ready out of order by MPI_Pready, MPI_Pready_range and
 * MPI_Pready_list, and MPI_Parrived asked before and after; the data and
 * the status (source, tag, count) are checked each round. Then: the two
 * sides partitioned differently (4 x 6 ints sent, 3 x 8 received); a
 * derived type with gaps, freed while the requests live; MPI_PROC_NULL
 * peers; a receive with MPI_ANY_SOURCE and MPI_ANY_TAG posted first, which
 * must take the ordinary message of the same tag and never the partitioned
 * one; a partition marked ready twice, which fails with MPI_ERR_ARG; and
 * two sends and two receives of one envelope, of different sizes, made
 * ready and started in other orders than they were made: MPI pairs them
 * in the order of their init calls, every round (MPI 4.1 4.2.2).
 *
 * Open MPI 4.1 has no partitioned communication, so there is no mpirun
 * oracle: every value is computed here from the ranks.
 */
#include "check.h"

enum { kPartitions = 8, kPerPartition = 1000, kTag = 77 };

static double value(int sender, int round, int i) { return sender * 1e6 + round * 1e4 + i; }

static void ring_rounds(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  static double out[kPartitions * kPerPartition], in[kPartitions * kPerPartition];
  MPI_Request requests[2];
  CHECK_MPI(MPI_Precv_init(in, kPartitions, kPerPartition, MPI_DOUBLE, left, kTag, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &requests[0]));
  CHECK_MPI(MPI_Psend_init(out, kPartitions, kPerPartition, MPI_DOUBLE, right, kTag,
                           MPI_COMM_WORLD, MPI_INFO_NULL, &requests[1]));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kPartitions * kPerPartition; ++i) in[i] = -1;
    CHECK_MPI(MPI_Startall(2, requests));
    /* Fill and mark the partitions out of order: 5, then 0..2, then the
     * rest by a list, the last one with MPI_Pready. */
    int order[kPartitions] = {5, 0, 1, 2, 7, 3, 6, 4};
    for (int k = 0; k < kPartitions; ++k) {
      int p = order[k];
      for (int i = 0; i < kPerPartition; ++i)
        out[p * kPerPartition + i] = value(rank, round, p * kPerPartition + i);
    }
    CHECK_MPI(MPI_Pready(5, requests[1]));
    CHECK_MPI(MPI_Pready_range(0, 2, requests[1]));
    int list[3] = {7, 3, 6};
    CHECK_MPI(MPI_Pready_list(3, list, requests[1]));
    int flag = -1;
    CHECK_MPI(MPI_Parrived(requests[0], 0, &flag));
    CHECK(flag == 0 || flag == 1, "MPI_Parrived flag %d", flag);
    CHECK_MPI(MPI_Pready(4, requests[1]));
    MPI_Status statuses[2];
    CHECK_MPI(MPI_Waitall(2, requests, statuses));
    CHECK_STATUS(statuses[0], left, kTag, MPI_DOUBLE, kPartitions * kPerPartition);
    for (int p = 0; p < kPartitions; ++p) {
      CHECK_MPI(MPI_Parrived(requests[0], p, &flag));
      CHECK(flag, "round %d: partition %d not arrived after MPI_Waitall", round, p);
    }
    for (int i = 0; i < kPartitions * kPerPartition; ++i)
      CHECK(in[i] == value(left, round, i), "round %d: element %d is %g, want %g", round, i,
            in[i], value(left, round, i));
  }
  CHECK_MPI(MPI_Request_free(&requests[0]));
  CHECK_MPI(MPI_Request_free(&requests[1]));
  CHECK(requests[0] == MPI_REQUEST_NULL && requests[1] == MPI_REQUEST_NULL,
        "MPI_Request_free left the handles");
}

/* 4 partitions of 6 ints sent, 3 of 8 received: only the total must agree. */
static void other_partitioning(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[24], in[24];
  for (int i = 0; i < 24; ++i) {
    out[i] = rank * 100 + i;
    in[i] = -1;
  }
  MPI_Request send, recv;
  CHECK_MPI(MPI_Precv_init(in, 3, 8, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &recv));
  CHECK_MPI(MPI_Psend_init(out, 4, 6, MPI_INT, right, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &send));
  CHECK_MPI(MPI_Start(&recv));
  CHECK_MPI(MPI_Start(&send));
  CHECK_MPI(MPI_Pready_range(0, 3, send));
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&recv, MPI_STATUS_IGNORE));
  for (int i = 0; i < 24; ++i)
    CHECK(in[i] == left * 100 + i, "other partitioning: element %d is %d", i, in[i]);
  CHECK_MPI(MPI_Request_free(&send));
  CHECK_MPI(MPI_Request_free(&recv));
}

/* A vector type with gaps (every other int), freed after the inits. */
static void derived_type(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(5, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  int out[2 * 10], in[2 * 10];
  for (int i = 0; i < 20; ++i) {
    out[i] = rank * 1000 + i;
    in[i] = -7;
  }
  MPI_Request requests[2];
  /* Two partitions of one vector each; the vector's extent is 9 ints. */
  CHECK_MPI(MPI_Precv_init(in, 2, 1, every_other, left, 9, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &requests[0]));
  CHECK_MPI(MPI_Psend_init(out, 2, 1, every_other, right, 9, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &requests[1]));
  CHECK_MPI(MPI_Type_free(&every_other));
  CHECK_MPI(MPI_Startall(2, requests));
  CHECK_MPI(MPI_Pready(1, requests[1]));
  CHECK_MPI(MPI_Pready(0, requests[1]));
  CHECK_MPI(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE));
  /* The second vector starts at its extent, 9 ints in. */
  for (int i = 0; i < 20; ++i) {
    int covered = i < 9 ? i % 2 == 0 : i < 18 && (i - 9) % 2 == 0;
    int want = covered ? left * 1000 + i : -7;
    CHECK(in[i] == want, "derived type: element %d is %d, want %d", i, in[i], want);
  }
  CHECK_MPI(MPI_Request_free(&requests[0]));
  CHECK_MPI(MPI_Request_free(&requests[1]));
}

static void proc_null(void) {
  int data[4] = {1, 2, 3, 4};
  MPI_Request requests[2];
  CHECK_MPI(MPI_Psend_init(data, 2, 2, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &requests[0]));
  CHECK_MPI(MPI_Precv_init(data, 2, 2, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &requests[1]));
  CHECK_MPI(MPI_Startall(2, requests));
  CHECK_MPI(MPI_Pready_range(0, 1, requests[0]));
  MPI_Status statuses[2];
  CHECK_MPI(MPI_Waitall(2, requests, statuses));
  CHECK(statuses[1].MPI_SOURCE == MPI_PROC_NULL, "receive from MPI_PROC_NULL: source %d",
        statuses[1].MPI_SOURCE);
  CHECK(data[0] == 1 && data[3] == 4, "MPI_PROC_NULL changed the buffer");
  CHECK_MPI(MPI_Request_free(&requests[0]));
  CHECK_MPI(MPI_Request_free(&requests[1]));
}

/* An ordinary receive of any source and tag, posted before both messages,
 * takes the ordinary one. */
static void no_mixing(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int ordinary = -1, partitioned = -1;
  MPI_Request any, recv, send;
  CHECK_MPI(MPI_Irecv(&ordinary, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &any));
  CHECK_MPI(MPI_Precv_init(&partitioned, 1, 1, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &recv));
  CHECK_MPI(MPI_Start(&recv));
  int mine = 500 + rank, also = 900 + rank;
  CHECK_MPI(MPI_Psend_init(&mine, 1, 1, MPI_INT, right, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &send));
  CHECK_MPI(MPI_Start(&send));
  CHECK_MPI(MPI_Pready(0, send));
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&recv, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Send(&also, 1, MPI_INT, right, 3, MPI_COMM_WORLD));
  MPI_Status status;
  CHECK_MPI(MPI_Wait(&any, &status));
  CHECK(partitioned == 500 + left && ordinary == 900 + left && status.MPI_TAG == 3,
        "partitioned %d, ordinary %d (tag %d)", partitioned, ordinary, status.MPI_TAG);
  CHECK_MPI(MPI_Request_free(&send));
  CHECK_MPI(MPI_Request_free(&recv));
}

static void ready_twice(void) {
  int data[2] = {0, 0};
  MPI_Request send;
  CHECK_MPI(MPI_Psend_init(data, 2, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &send));
  CHECK_MPI(MPI_Start(&send));
  CHECK_MPI(MPI_Pready(0, send));
  int rc = MPI_Pready(0, send), error_class = -1;
  CHECK_MPI(MPI_Error_class(rc, &error_class));
  CHECK(error_class == MPI_ERR_ARG, "partition marked ready twice: class %d", error_class);
  CHECK_MPI(MPI_Pready(1, send));
  CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Request_free(&send));
}

/* The first send and receive made of one envelope are a pair, so are the
 * second ones, however the rounds start and ready them. The first pair
 * moves 3 ints, the second 5: a crosswise match would truncate. */
static void init_order(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  enum { kSmall = 3, kLarge = 5, kOrderTag = 11 };
  int first_out[kSmall], second_out[kLarge], first_in[kSmall], second_in[kLarge];
  MPI_Request recvs[2], sends[2];
  CHECK_MPI(MPI_Precv_init(first_in, 1, kSmall, MPI_INT, left, kOrderTag, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &recvs[0]));
  CHECK_MPI(MPI_Precv_init(second_in, 1, kLarge, MPI_INT, left, kOrderTag, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &recvs[1]));
  CHECK_MPI(MPI_Psend_init(first_out, 1, kSmall, MPI_INT, right, kOrderTag, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &sends[0]));
  CHECK_MPI(MPI_Psend_init(second_out, 1, kLarge, MPI_INT, right, kOrderTag, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &sends[1]));
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < kSmall; ++i) first_out[i] = rank * 1000 + round * 100 + i, first_in[i] = -1;
    for (int i = 0; i < kLarge; ++i)
      second_out[i] = rank * 1000 + round * 100 + 50 + i, second_in[i] = -1;
    /* Odd rounds start the second receive first; every round readies the
     * second send first, and the receives are posted before either. */
    int first = round % 2;
    CHECK_MPI(MPI_Start(&recvs[first]));
    CHECK_MPI(MPI_Start(&recvs[1 - first]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Startall(2, sends));
    CHECK_MPI(MPI_Pready(0, sends[1]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Pready(0, sends[0]));
    MPI_Status statuses[2];
    CHECK_MPI(MPI_Waitall(2, recvs, statuses));
    CHECK_MPI(MPI_Waitall(2, sends, MPI_STATUSES_IGNORE));
    CHECK_STATUS(statuses[0], left, kOrderTag, MPI_INT, kSmall);
    CHECK_STATUS(statuses[1], left, kOrderTag, MPI_INT, kLarge);
    for (int i = 0; i < kSmall; ++i)
      CHECK(first_in[i] == left * 1000 + round * 100 + i,
            "round %d: the first receive's element %d is %d (another init's data?)", round, i,
            first_in[i]);
    for (int i = 0; i < kLarge; ++i)
      CHECK(second_in[i] == left * 1000 + round * 100 + 50 + i,
            "round %d: the second receive's element %d is %d (another init's data?)", round, i,
            second_in[i]);
  }
  for (int k = 0; k < 2; ++k) {
    CHECK_MPI(MPI_Request_free(&sends[k]));
    CHECK_MPI(MPI_Request_free(&recvs[k]));
  }
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = world_rank(), size = world_size();
  ring_rounds(rank, size);
  other_partitioning(rank, size);
  derived_type(rank, size);
  proc_null();
  no_mixing(rank, size);
  init_order(rank, size);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  ready_twice();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("partitioned: OK (%d ranks)\n", size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
