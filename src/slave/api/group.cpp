// The extern "C" entry points of process groups (MPI-3.1 6.3): local
// operations on lists of world ranks (runtime/objects.h); a group made
// from a session's group keeps its session (runtime/session.h). Errors
// with groups go to MPI_COMM_WORLD's handler.
#include <mpi.h>

#include <string>

#include "common/error.h"
#include "slave/comm/comm.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/session.h"

using bdmpi::Error;
using bdmpi::Guard;

extern "C" {

#pragma weak MPI_Group_size = PMPI_Group_size
int PMPI_Group_size(MPI_Group group, int* size) {
  return Guard("MPI_Group_size", MPI_COMM_WORLD, [&] {
    *size = static_cast<int>(bdmpi::LookupGroup(group).size());
  });
}

#pragma weak MPI_Group_rank = PMPI_Group_rank
int PMPI_Group_rank(MPI_Group group, int* rank) {
  return Guard("MPI_Group_rank", MPI_COMM_WORLD,
               [&] { *rank = bdmpi::GroupRank(group); });
}

#pragma weak MPI_Group_free = PMPI_Group_free
int PMPI_Group_free(MPI_Group* group) {
  return Guard("MPI_Group_free", MPI_COMM_WORLD, [&] {
    MPI_Group freed = *group;
    bdmpi::FreeGroup(group);
    bdmpi::ForgetGroupSession(freed);
  });
}

#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                              MPI_Group group2, int ranks2[]) {
  return Guard("MPI_Group_translate_ranks", MPI_COMM_WORLD, [&] {
    bdmpi::GroupTranslateRanks(group1, n, ranks1, group2, ranks2);
  });
}

#pragma weak MPI_Group_compare = PMPI_Group_compare
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  return Guard("MPI_Group_compare", MPI_COMM_WORLD,
               [&] { *result = bdmpi::GroupCompare(group1, group2); });
}

#pragma weak MPI_Group_incl = PMPI_Group_incl
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return Guard("MPI_Group_incl", MPI_COMM_WORLD,
               [&] {
                 *newgroup = bdmpi::GroupIncl(group, n, ranks);
                 bdmpi::SetGroupSession(*newgroup, bdmpi::GroupSession(group));
               });
}

#pragma weak MPI_Group_excl = PMPI_Group_excl
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return Guard("MPI_Group_excl", MPI_COMM_WORLD,
               [&] {
                 *newgroup = bdmpi::GroupExcl(group, n, ranks);
                 bdmpi::SetGroupSession(*newgroup, bdmpi::GroupSession(group));
               });
}

#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return Guard("MPI_Group_range_incl", MPI_COMM_WORLD,
               [&] {
                 *newgroup = bdmpi::GroupRangeIncl(group, n, ranges);
                 bdmpi::SetGroupSession(*newgroup, bdmpi::GroupSession(group));
               });
}

#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return Guard("MPI_Group_range_excl", MPI_COMM_WORLD,
               [&] {
                 *newgroup = bdmpi::GroupRangeExcl(group, n, ranges);
                 bdmpi::SetGroupSession(*newgroup, bdmpi::GroupSession(group));
               });
}

#pragma weak MPI_Group_union = PMPI_Group_union
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return Guard("MPI_Group_union", MPI_COMM_WORLD,
               [&] {
                 *newgroup = bdmpi::GroupUnion(group1, group2);
                 bdmpi::SetGroupSession(*newgroup, bdmpi::GroupSession(group1));
               });
}

#pragma weak MPI_Group_intersection = PMPI_Group_intersection
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return Guard("MPI_Group_intersection", MPI_COMM_WORLD,
               [&] {
                 *newgroup = bdmpi::GroupIntersection(group1, group2);
                 bdmpi::SetGroupSession(*newgroup, bdmpi::GroupSession(group1));
               });
}

#pragma weak MPI_Group_difference = PMPI_Group_difference
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return Guard("MPI_Group_difference", MPI_COMM_WORLD,
               [&] {
                 *newgroup = bdmpi::GroupDifference(group1, group2);
                 bdmpi::SetGroupSession(*newgroup, bdmpi::GroupSession(group1));
               });
}

}  // extern "C"
