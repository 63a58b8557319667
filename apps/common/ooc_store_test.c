/* ooc_store round trip without MPI: arrays survive save/load bit for bit,
 * read-write arrays keep modifications made between saves, pointers are NULL
 * while saved, and the store's file is never visible in its directory. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ooc_store.h"

static int failures = 0;
#define CHECK(cond)                                              \
  do {                                                           \
    if (!(cond)) {                                               \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,     \
              __LINE__, #cond);                                  \
      ++failures;                                                \
    }                                                            \
  } while (0)

static int dir_entries(const char* dir) {
  DIR* d = opendir(dir);
  int n = 0;
  for (struct dirent* e; (e = readdir(d)) != NULL;)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) ++n;
  closedir(d);
  return n;
}

int main(void) {
  char dir[] = "/tmp/ooc_store_test.XXXXXX";
  if (mkdtemp(dir) == NULL) return 2;
  app_ooc_store* store = app_ooc_open(dir, 3);
  CHECK(dir_entries(dir) == 0);

  const size_t ro_n = 3u << 20, rw_n = 100003;  /* odd sizes on purpose */
  uint32_t* ro = malloc(ro_n * sizeof *ro);
  double* rw = malloc(rw_n * sizeof *rw);
  void* empty = NULL;
  for (size_t i = 0; i < ro_n; ++i) ro[i] = (uint32_t)(i * 2654435761u);
  for (size_t i = 0; i < rw_n; ++i) rw[i] = (double)i * 0.25;  /* exact, so += 1.0 is exact too */
  app_ooc_add(store, (void**)&ro, ro_n * sizeof *ro, APP_OOC_READONLY);
  app_ooc_add(store, (void**)&rw, rw_n * sizeof *rw, APP_OOC_READWRITE);
  app_ooc_add(store, &empty, 0, APP_OOC_READWRITE);

  for (int round = 0; round < 4; ++round) {
    app_ooc_save(store);
    CHECK(ro == NULL && rw == NULL);
    app_ooc_load(store);
    CHECK(ro != NULL && rw != NULL);
    int ro_ok = 1, rw_ok = 1;
    for (size_t i = 0; i < ro_n; ++i) ro_ok &= ro[i] == (uint32_t)(i * 2654435761u);
    for (size_t i = 0; i < rw_n; ++i) rw_ok &= rw[i] == (double)i * 0.25 + round;
    CHECK(ro_ok);
    CHECK(rw_ok);
    for (size_t i = 0; i < rw_n; ++i) rw[i] += 1.0;  /* must survive the next save */
  }
  app_ooc_close(store);
  CHECK(dir_entries(dir) == 0);
  free(ro);
  free(rw);
  free(empty);
  rmdir(dir);
  if (failures == 0) printf("ooc_store_test: PASS\n");
  return failures == 0 ? 0 : 1;
}
