#include "ooc_store.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef APP_HAVE_BDMPI
#include "bdmpi.h"
#define OOC_ENTER() BDMPI_Enter_critical()
#define OOC_EXIT() BDMPI_Exit_critical()
#else
#define OOC_ENTER() ((void)0)
#define OOC_EXIT() ((void)0)
#endif

typedef struct ooc_array {
  void** array;
  size_t bytes;
  off_t offset;  /* where the array lives in the file */
  int flags;
  int on_disk;   /* the file holds the current contents */
} ooc_array;

struct app_ooc_store {
  int fd;
  char path[4096];
  ooc_array* arrays;
  int count;
  int capacity;
  off_t end;
};

static void ooc_fail(const app_ooc_store* store, const char* what) {
  fprintf(stderr, "ooc store %s: %s failed: %s\n", store->path, what,
          strerror(errno));
  exit(1);
}

app_ooc_store* app_ooc_open(const char* dir, int rank) {
  /* Saving an array is only worth it if free() gives its memory back to
   * the system. glibc raises its mmap threshold to the size of each large
   * block freed (up to 32 MiB), after which blocks below that come from the
   * heap and their free() returns nothing: measured, the summed RSS of
   * pagerank_ooc on 8 ranks stayed at 446 MiB, as without the store. A
   * fixed threshold keeps large arrays in their own mappings (156 MiB). */
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  app_ooc_store* store = calloc(1, sizeof *store);
  if (store == NULL) {
    fprintf(stderr, "ooc store: out of memory\n");
    exit(1);
  }
  if (dir == NULL) dir = getenv("TMPDIR");
  if (dir == NULL || *dir == '\0') dir = "/tmp";
  snprintf(store->path, sizeof store->path, "%s/app-ooc-%ld-r%d.bin", dir,
           (long)getpid(), rank);
  store->fd = open(store->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (store->fd < 0) ooc_fail(store, "open");
  unlink(store->path);  /* lives as long as the descriptor: no leftovers */
  return store;
}

void app_ooc_add(app_ooc_store* store, void** array, size_t bytes, int flags) {
  if (store->count == store->capacity) {
    int capacity = store->capacity ? 2 * store->capacity : 8;
    ooc_array* grown = realloc(store->arrays, capacity * sizeof *grown);
    if (grown == NULL) ooc_fail(store, "realloc");
    store->arrays = grown;
    store->capacity = capacity;
  }
  ooc_array entry = {array, bytes, store->end, flags, 0};
  store->arrays[store->count++] = entry;
  store->end += (off_t)bytes;
}

/* pwrite/pread move at most 2 GiB per call; loop until done. */
static void ooc_transfer(app_ooc_store* store, char* data, size_t bytes,
                         off_t offset, int write) {
  while (bytes > 0) {
    ssize_t done = write ? pwrite(store->fd, data, bytes, offset)
                         : pread(store->fd, data, bytes, offset);
    if (done < 0 && errno == EINTR) continue;
    if (done < 0) ooc_fail(store, write ? "write" : "read");
    if (done == 0) {
      errno = EIO;
      ooc_fail(store, "read (file shorter than expected)");
    }
    data += done;
    bytes -= (size_t)done;
    offset += done;
  }
}

void app_ooc_save(app_ooc_store* store) {
  OOC_ENTER();
  for (int i = 0; i < store->count; ++i) {
    ooc_array* a = &store->arrays[i];
    if (*a->array == NULL) continue;  /* already saved */
    if (!a->on_disk || a->flags == APP_OOC_READWRITE) {
      ooc_transfer(store, *a->array, a->bytes, a->offset, 1);
      a->on_disk = 1;
    }
    free(*a->array);
    *a->array = NULL;
  }
  OOC_EXIT();
}

void app_ooc_load(app_ooc_store* store) {
  OOC_ENTER();
  for (int i = 0; i < store->count; ++i) {
    ooc_array* a = &store->arrays[i];
    if (*a->array != NULL) continue;  /* never saved */
    *a->array = malloc(a->bytes ? a->bytes : 1);
    if (*a->array == NULL) ooc_fail(store, "malloc");
    ooc_transfer(store, *a->array, a->bytes, a->offset, 0);
  }
  /* The file's pages stay in the page cache: when memory is plentiful the
   * next load reads them from there, and under pressure the kernel drops
   * these clean pages first, more cheaply than we could decide. */
  OOC_EXIT();
}

void app_ooc_close(app_ooc_store* store) {
  close(store->fd);
  free(store->arrays);
  free(store);
}
