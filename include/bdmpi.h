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
 * Critical sections: at most `bdmpiexec -nc N` slaves of a node are inside
 * one at a time, so that running slaves take turns at the disk (e.g. while
 * loading or saving their data). A slave waiting to enter gives up its
 * running slot. Do not block in MPI inside a critical section.
 */
int BDMPI_Enter_critical(void);
int BDMPI_Exit_critical(void);

#ifdef __cplusplus
}
#endif

#endif /* BDMPI_BDMPI_H_INCLUDED */
