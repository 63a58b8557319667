/* A group of ooc_store arrays that is read back only when next needed,
 * rather than right after every blocking call: a rank that blocks twice
 * before it next touches some arrays then reads them once, not twice.
 * `store` NULL (the plain, non-ooc build) makes both calls no-ops.
 * Header-only. */
#ifndef BDMPI_APPS_OOC_LAZY_H
#define BDMPI_APPS_OOC_LAZY_H

#include "ooc_store.h"

typedef struct app_ooc_lazy {
  app_ooc_store* store;
  int loaded; /* the arrays are in memory */
} app_ooc_lazy;

/* Before a blocking call: write what changed and free the arrays. */
static inline void app_ooc_lazy_save(app_ooc_lazy* group) {
  if (group->store != NULL && group->loaded) {
    app_ooc_save(group->store);
    group->loaded = 0;
  }
}

/* Before using the arrays: read them back if they are out. */
static inline void app_ooc_lazy_need(app_ooc_lazy* group) {
  if (group->store != NULL && !group->loaded) {
    app_ooc_load(group->store);
    group->loaded = 1;
  }
}

#endif
