/* The explicit out-of-core discipline of the paper's "-ooc" variants: before
 * a blocking MPI call a rank writes its large arrays to its own file and
 * frees them; after the call it allocates and reads them back. With BDMPI
 * (APP_HAVE_BDMPI) the I/O runs inside BDMPI_Enter_critical/Exit_critical so
 * that only `-nc` ranks of a node do I/O at a time; under Open MPI there is
 * no critical section and the store still works.
 *
 * Usage:
 *   app_ooc_store* s = app_ooc_open(dir, rank);
 *   app_ooc_add(s, (void**)&matrix, matrix_bytes, APP_OOC_READONLY);
 *   app_ooc_add(s, (void**)&state, state_bytes, APP_OOC_READWRITE);
 *   ... each iteration:
 *   app_ooc_save(s);  MPI_Allreduce(...);  app_ooc_load(s);
 *   app_ooc_close(s);
 * Registered arrays must come from malloc; save frees them and sets the
 * pointers to NULL, load mallocs new ones. READONLY arrays are written once
 * and afterwards only dropped and re-read.
 *
 * This file is compiled into each program (not into bdmpi_app_common) because
 * the critical sections exist only in the BDMPI build. */
#ifndef BDMPI_APPS_OOC_STORE_H
#define BDMPI_APPS_OOC_STORE_H

#include <stddef.h>

#define APP_OOC_READONLY 1
#define APP_OOC_READWRITE 2

typedef struct app_ooc_store app_ooc_store;

/* Creates the rank's file in `dir` (NULL: $TMPDIR or /tmp). The file is
 * unlinked at once and lives only as long as the store, so a crashed rank
 * leaves nothing behind. Exits with a message on failure. */
app_ooc_store* app_ooc_open(const char* dir, int rank);

/* Registers *array (bytes long; may be 0). Call while the arrays are loaded. */
void app_ooc_add(app_ooc_store* store, void** array, size_t bytes, int flags);

/* Writes the arrays that need it to the file and frees all of them. */
void app_ooc_save(app_ooc_store* store);

/* Allocates and reads back every array. */
void app_ooc_load(app_ooc_store* store);

/* Closes (and so removes) the file. Registered arrays stay as they are:
 * loaded ones remain the caller's to free. */
void app_ooc_close(app_ooc_store* store);

#endif
