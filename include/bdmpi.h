/*
 * bdmpi.h -- BDMPI's extensions to MPI (paper section 5.6, Table 2).
 *
 * Include it after mpi.h. A program that uses these is still an MPI program
 * when guarded with #ifdef BDMPI (mpi.h defines BDMPI).
 */
#ifndef BDMPI_BDMPI_H_INCLUDED
#define BDMPI_BDMPI_H_INCLUDED

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BDMPI_VERSION_MAJOR 0
#define BDMPI_VERSION_MINOR 1

/*
 * Predefined communicators (besides MPI_COMM_WORLD and MPI_COMM_SELF); they
 * cannot be freed (MPI_Comm_free fails with MPI_ERR_COMM).
 *   BDMPI_COMM_CWORLD: all the ranks of MPI_COMM_WORLD, numbered cyclically
 *     across the nodes: the i-th rank of node k (of nnodes) has rank
 *     i * nnodes + k, so consecutive ranks run on different nodes;
 *   BDMPI_COMM_NODE: the ranks of MPI_COMM_WORLD that run on this node,
 *     in world rank order.
 */
#define BDMPI_COMM_CWORLD ((MPI_Comm)0x44000002)
#define BDMPI_COMM_NODE ((MPI_Comm)0x44000003)

/*
 * Critical sections: at most `bdmpiexec -nc N` slaves of a node are inside
 * one at a time, so that running slaves take turns at the disk (e.g. while
 * loading or saving their data). A slave waiting to enter gives up its
 * running slot. Do not block in MPI inside a critical section.
 */
int BDMPI_Enter_critical(void);
int BDMPI_Exit_critical(void);

/*
 * Where a communicator's members run. Nodes are numbered by bdmpiexec; a
 * communicator spans the nodes that run at least one of its members.
 *   BDMPI_Comm_nsize: how many nodes it spans;
 *   BDMPI_Comm_nrank: this node's index among them (in node order);
 *   BDMPI_Comm_lsize: how many of its members run on this node;
 *   BDMPI_Comm_lrank: this rank's index among those (in rank order);
 *   BDMPI_Comm_rrank: the communicator rank of this node's first member
 *     (the lowest rank among the members on this node), e.g. a natural
 *     root for a per-node step.
 * They are local: no communication.
 */
int BDMPI_Comm_nsize(MPI_Comm comm, int *nsize);
int BDMPI_Comm_nrank(MPI_Comm comm, int *nrank);
int BDMPI_Comm_lsize(MPI_Comm comm, int *lsize);
int BDMPI_Comm_lrank(MPI_Comm comm, int *lrank);
int BDMPI_Comm_rrank(MPI_Comm comm, int *rrank);

#ifdef __cplusplus
}
#endif

#endif /* BDMPI_BDMPI_H_INCLUDED */
