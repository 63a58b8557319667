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

/* libbdmpi is built with hidden visibility: what is declared here is its
 * interface, exported by the library. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
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

/*
 * Storage-backed memory (out of core without swap). Under bdmpiexec every
 * malloc/calloc/realloc/posix_memalign/aligned_alloc (and so C++ new) of at
 * least `--storage-threshold` bytes (default 1m) is served from a private,
 * sparse scratch file of the rank in the job's scratch directory. When a
 * rank blocks in MPI and the node's memory budget (`--node-memory`) is
 * exceeded, the runtime writes the rank's modified pages back with large
 * sequential writes and drops them; when the rank resumes they are read
 * back (`--prefetch lazy`, the default: on first touch; `eager`: what it
 * had rewritten with large reads before the MPI call returns, the rest on
 * first touch). With enough memory nothing is written. A full
 * scratch disk makes the allocation fail (NULL, errno ENOMEM) with a
 * message naming the scratch directory. `--storage-alloc off` switches all
 * of this off (then these calls act on ordinary memory).
 *
 * For programs that want control (paper section 5.6):
 *   BDMPI_Alloc_storage: a storage-backed block of `size` bytes whatever its
 *     size (zero-filled); ordinary malloc memory when storage-backed
 *     allocation is off or the program was not started by bdmpiexec;
 *     NULL when out of memory or disk.
 *   BDMPI_Free_storage: frees it (free() does the same).
 *   BDMPI_Prefetch: reads the range back now, with large reads.
 *   BDMPI_Release: writes the range's modified pages back and drops the
 *     range from memory (its contents are kept; they come back on touch).
 *   BDMPI_Discard: drops the pages wholly inside the range WITHOUT writing
 *     them back: they read as zero afterwards. For data that is dead.
 * The three range calls act on the pages of the range that belong to
 * storage-backed blocks (any block, also one from malloc) and ignore other
 * memory; they may be called before MPI_Init. They return MPI_SUCCESS, or
 * MPI_ERR_IO when the scratch disk fails.
 */
void *BDMPI_Alloc_storage(size_t size);
void BDMPI_Free_storage(void *ptr);
int BDMPI_Prefetch(void *ptr, size_t bytes);
int BDMPI_Release(void *ptr, size_t bytes);
int BDMPI_Discard(void *ptr, size_t bytes);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* BDMPI_BDMPI_H_INCLUDED */
