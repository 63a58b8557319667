/*
 * comm_create_group: communicators made by their members alone, and the
 * communicator calls around creation that comms.c leaves out.
 *
 *  1. MPI_Comm_create_group of the odd world ranks in reverse order, called
 *     by them only (the even ranks meanwhile make their own, in order, with
 *     another tag): ranks, sizes, MPI_Comm_compare with the group's
 *     communicator from MPI_Comm_create, point-to-point around a ring,
 *     barrier, bcast, allreduce, gather; freed while the others still work.
 *  2. Twice in a row on one communicator with the same tag, and a
 *     single-member group; MPI_GROUP_EMPTY gives MPI_COMM_NULL.
 *  3. MPI_Comm_create from a group not in rank order, and with each rank
 *     passing the group of its own parity (disjoint groups, MPI-2.2: two
 *     communicators); MPI_Comm_split_type
 *     with MPI_UNDEFINED; MPI_Comm_set_name/get_name (names are not
 *     copied by MPI_Comm_dup).
 */
#include "check.h"

/* Exercises comm, whose rank r is world rank world_of[r]. */
static void exercise(MPI_Comm comm, const int *world_of) {
  int me = rank_in(comm), n = size_of(comm);
  CHECK(world_of[me] == world_rank(), "rank %d of the new communicator is world rank %d", me,
        world_rank());
  int right = (me + 1) % n, left = (me + n - 1) % n, got = -1, value = world_rank();
  MPI_Status status;
  CHECK_MPI(MPI_Sendrecv(&value, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5, comm,
                         &status));
  CHECK(got == world_of[left] && status.MPI_SOURCE == left, "ring: got %d from %d", got,
        status.MPI_SOURCE);
  CHECK_MPI(MPI_Barrier(comm));
  int root_value = me == n - 1 ? 4242 : -1;
  CHECK_MPI(MPI_Bcast(&root_value, 1, MPI_INT, n - 1, comm));
  CHECK(root_value == 4242, "bcast: %d", root_value);
  int sum = 0, want = 0;
  for (int r = 0; r < n; ++r) want += world_of[r];
  CHECK_MPI(MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == want, "allreduce: %d, want %d", sum, want);
  int all[256];
  if (n <= 256) {
    CHECK_MPI(MPI_Gather(&value, 1, MPI_INT, all, 1, MPI_INT, 0, comm));
    for (int r = 0; me == 0 && r < n; ++r) CHECK(all[r] == world_of[r], "gather block %d", r);
  }
}

static void create_group(void) {
  int size = world_size(), me = world_rank();
  int members[256], n = 0;
  if (size > 256) return;
  MPI_Group world, group;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  /* Odd ranks, highest first; even ranks in order. */
  if (me % 2 == 1) {
    for (int r = size - 1; r >= 0; --r)
      if (r % 2 == 1) members[n++] = r;
  } else {
    for (int r = 0; r < size; ++r)
      if (r % 2 == 0) members[n++] = r;
  }
  CHECK_MPI(MPI_Group_incl(world, n, members, &group));
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, group, me % 2 == 1 ? 7 : 8, &comm));
  CHECK(comm != MPI_COMM_NULL, "MPI_Comm_create_group gave MPI_COMM_NULL to a member");
  CHECK(size_of(comm) == n, "size %d, want %d", size_of(comm), n);
  exercise(comm, members);
  /* Again with the same tag on the same parent. */
  MPI_Comm again;
  CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, group, me % 2 == 1 ? 7 : 8, &again));
  int result;
  CHECK_MPI(MPI_Comm_compare(comm, again, &result));
  CHECK(result == MPI_CONGRUENT, "two creations of one group compare as %d", result);
  exercise(again, members);
  CHECK_MPI(MPI_Comm_free(&comm));
  /* Made from the new communicator: the group of the first two members. */
  if (n >= 2) {
    MPI_Group sub;
    int two[2] = {0, 1};
    MPI_Group grp;
    MPI_Comm_group(again, &grp);
    CHECK_MPI(MPI_Group_incl(grp, 2, two, &sub));
    if (rank_in(again) < 2) {
      MPI_Comm pair;
      CHECK_MPI(MPI_Comm_create_group(again, sub, 0, &pair));
      exercise(pair, members);
      CHECK_MPI(MPI_Comm_free(&pair));
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&grp);
  }
  CHECK_MPI(MPI_Comm_free(&again));
  MPI_Group_free(&group);
  /* A group of one, and the empty group. */
  MPI_Group self;
  CHECK_MPI(MPI_Group_incl(world, 1, &me, &self));
  MPI_Comm alone;
  CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, self, 9, &alone));
  CHECK(size_of(alone) == 1 && rank_in(alone) == 0, "a group of one");
  exercise(alone, &me);
  CHECK_MPI(MPI_Comm_free(&alone));
  MPI_Group_free(&self);
  MPI_Comm none = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 3, &none));
  CHECK(none == MPI_COMM_NULL, "the empty group gave a communicator");
  MPI_Group_free(&world);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void create_and_names(void) {
  int size = world_size(), me = world_rank(), members[256];
  if (size > 256) return;
  MPI_Group world, reversed;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  for (int r = 0; r < size; ++r) members[r] = size - 1 - r;
  CHECK_MPI(MPI_Group_incl(world, size, members, &reversed));
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, reversed, &comm));
  CHECK(rank_in(comm) == size - 1 - me, "MPI_Comm_create in the group's order: rank %d",
        rank_in(comm));
  exercise(comm, members);
  int result;
  CHECK_MPI(MPI_Comm_compare(comm, MPI_COMM_WORLD, &result));
  CHECK(result == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare: %d", result);
  CHECK_MPI(MPI_Comm_set_name(comm, "reversed"));
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  CHECK_MPI(MPI_Comm_get_name(comm, name, &len));
  CHECK(strcmp(name, "reversed") == 0 && len == 8, "name '%s'", name);
  MPI_Comm copy;
  CHECK_MPI(MPI_Comm_dup(comm, &copy));
  CHECK_MPI(MPI_Comm_get_name(copy, name, &len));
  CHECK(strcmp(name, "reversed") != 0, "MPI_Comm_dup copied the name");
  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK_MPI(MPI_Comm_free(&comm));
  MPI_Group_free(&reversed);
  MPI_Group_free(&world);
  /* Disjoint groups: odd ranks pass the odd ones, even ranks the even. */
  int parity[256], n = 0;
  for (int r = me % 2; r < size; r += 2) parity[n++] = r;
  MPI_Group mine;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  CHECK_MPI(MPI_Group_incl(world, n, parity, &mine));
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, mine, &comm));
  CHECK(comm != MPI_COMM_NULL && size_of(comm) == n && rank_in(comm) == me / 2,
        "disjoint groups: rank %d of %d, want %d of %d", rank_in(comm), size_of(comm), me / 2,
        n);
  exercise(comm, parity);
  CHECK_MPI(MPI_Comm_free(&comm));
  MPI_Group_free(&mine);
  MPI_Group_free(&world);
  MPI_Comm undefined = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &undefined));
  CHECK(undefined == MPI_COMM_NULL, "MPI_Comm_split_type(MPI_UNDEFINED)");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  create_group();
  create_and_names();
  if (world_rank() == 0) printf("comm_create_group: ok\n");
  MPI_Finalize();
  return 0;
}
