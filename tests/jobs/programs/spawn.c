/*
 * spawn.c -- MPI_Comm_spawn and MPI_Comm_spawn_multiple: the children's
 * own MPI_COMM_WORLD, MPI_Comm_get_parent, MPI_APPNUM, and the
 * intercommunicator between parents and children with point-to-point in
 * both directions, a broadcast and an allreduce across it, MPI_Intercomm_merge
 * and MPI_Comm_disconnect. The program spawns itself (argv[0]) with a
 * role as its first argument.
 */
#include "check.h"

enum { kChildren = 3 };

/* Messages, collectives and a merge across `inter`; `parents` says which
 * side this rank is on. */
static void exchange(MPI_Comm inter, int parents) {
  int rank = rank_in(inter), size = size_of(inter), remote = 0;
  CHECK_MPI(MPI_Comm_remote_size(inter, &remote));
  int nparents = parents ? size : remote, nchildren = parents ? remote : size;
  /* Parent p sends to child p % nchildren; each child answers parent 0. */
  if (parents) {
    int value = 100 + rank;
    CHECK_MPI(MPI_Send(&value, 1, MPI_INT, rank % nchildren, 7, inter));
  } else {
    for (int p = rank; p < nparents; p += nchildren) {
      int value = -1;
      MPI_Status status;
      CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 7, inter, &status));
      CHECK(value == 100 + status.MPI_SOURCE && status.MPI_SOURCE % nchildren == rank,
            "child %d got %d from parent %d", rank, value, status.MPI_SOURCE);
    }
    int mine = 1000 + rank;
    CHECK_MPI(MPI_Send(&mine, 1, MPI_INT, 0, 8, inter));
  }
  if (parents && rank == 0) {
    int seen = 0;
    for (int c = 0; c < nchildren; ++c) {
      int value = -1;
      MPI_Status status;
      CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 8, inter, &status));
      CHECK(value == 1000 + status.MPI_SOURCE, "parent 0 got %d from child %d", value,
            status.MPI_SOURCE);
      seen |= 1 << status.MPI_SOURCE;
    }
    CHECK(seen == (1 << nchildren) - 1, "children heard from: %#x", seen);
  }
  /* Parent 0 broadcasts to the children. */
  int word = parents ? 4242 : 0;
  int root = parents ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  CHECK_MPI(MPI_Bcast(&word, 1, MPI_INT, root, inter));
  if (!parents) CHECK(word == 4242, "child %d: broadcast gave %d", rank, word);
  /* Each side gets the sum of the other's contributions. */
  int contribution = parents ? 1 : 10, sum = 0;
  CHECK_MPI(MPI_Allreduce(&contribution, &sum, 1, MPI_INT, MPI_SUM, inter));
  int want = parents ? 10 * nchildren : nparents;
  CHECK(sum == want, "allreduce across: %d, want %d", sum, want);
  /* Parents first in the merged communicator. */
  MPI_Comm merged;
  CHECK_MPI(MPI_Intercomm_merge(inter, parents ? 0 : 1, &merged));
  int mrank = rank_in(merged), msize = size_of(merged);
  CHECK(msize == nparents + nchildren, "merged size %d", msize);
  CHECK(mrank == (parents ? rank : nparents + rank), "merged rank %d of %s %d", mrank,
        parents ? "parent" : "child", rank);
  int total = 0;
  CHECK_MPI(MPI_Allreduce(&mrank, &total, 1, MPI_INT, MPI_SUM, merged));
  CHECK(total == msize * (msize - 1) / 2, "sum of merged ranks %d", total);
  CHECK_MPI(MPI_Barrier(merged));
  CHECK_MPI(MPI_Comm_free(&merged));
}

static void child(const char *role) {
  MPI_Comm parent;
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  CHECK(parent != MPI_COMM_NULL, "a spawned rank without a parent");
  int flag = 0, *appnum = NULL;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
  CHECK(flag, "no MPI_APPNUM");
  int rank = world_rank(), size = world_size();
  if (strcmp(role, "child") == 0) {
    CHECK(size == kChildren, "children's world has %d ranks", size);
    CHECK(*appnum == 0, "MPI_APPNUM %d", *appnum);
  } else {
    /* spawn_multiple: one "first", then two "second". */
    CHECK(size == 3, "children's world has %d ranks", size);
    CHECK(strcmp(role, rank == 0 ? "first" : "second") == 0, "child %d is %s", rank, role);
    CHECK(*appnum == (rank == 0 ? 0 : 1), "child %d: MPI_APPNUM %d", rank, *appnum);
  }
  /* Their own world works on its own. */
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size * (size - 1) / 2, "children's allreduce %d", sum);
  exchange(parent, 0);
  CHECK_MPI(MPI_Comm_disconnect(&parent));
  CHECK(parent == MPI_COMM_NULL, "disconnect left the handle");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1) {
    child(argv[1]);
    MPI_Finalize();
    return 0;
  }
  MPI_Comm parent;
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  CHECK(parent == MPI_COMM_NULL, "the first ranks have a parent");
  int flag = 0, *universe = NULL;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag));
  CHECK(flag && *universe >= 1, "MPI_UNIVERSE_SIZE missing");

  char *args[] = {"child", NULL};
  int errcodes[kChildren];
  MPI_Comm inter;
  CHECK_MPI(MPI_Comm_spawn(argv[0], args, kChildren, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                           errcodes));
  for (int i = 0; i < kChildren; ++i)
    CHECK(errcodes[i] == MPI_SUCCESS, "errcode %d: %d", i, errcodes[i]);
  int remote = 0, is_inter = 0;
  CHECK_MPI(MPI_Comm_test_inter(inter, &is_inter));
  CHECK_MPI(MPI_Comm_remote_size(inter, &remote));
  CHECK(is_inter && remote == kChildren, "intercommunicator to %d children", remote);
  exchange(inter, 1);
  CHECK_MPI(MPI_Comm_disconnect(&inter));

  /* Two commands: one rank of the first, two of the second. */
  char *commands[2] = {argv[0], argv[0]};
  char *first[] = {"first", NULL}, *second[] = {"second", NULL};
  char **argvs[2] = {first, second};
  int maxprocs[2] = {1, 2};
  MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
  CHECK_MPI(MPI_Comm_spawn_multiple(2, commands, argvs, maxprocs, infos, 0, MPI_COMM_WORLD,
                                    &inter, MPI_ERRCODES_IGNORE));
  CHECK_MPI(MPI_Comm_remote_size(inter, &remote));
  CHECK(remote == 3, "spawn_multiple made %d", remote);
  exchange(inter, 1);
  CHECK_MPI(MPI_Comm_disconnect(&inter));
  MPI_Finalize();
  return 0;
}
