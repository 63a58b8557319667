/*
 * tool_interface: the MPI tool interface (MPI_T).
 *
 * Under any MPI: calls before MPI_T_init_thread fail with
 * MPI_T_ERR_NOT_INITIALIZED; init and finalize nest; every control
 * variable, performance variable, category and enumeration can be listed,
 * each name leads back to its index, and bad indices and names give the
 * standard's error classes; every control variable not bound to an object
 * is read (under Open MPI, only its MPI layer's: see readable()), and
 * every performance variable not bound to an object gets a
 * handle that is started (unless continuous), read and stopped.
 *
 * Under BDMPI (mpi.h defines BDMPI) also the values: the control variables
 * against the options the test gives bdmpiexec (--expect-mem-threshold N,
 * --expect-prefetch NAME, --expect-bcast NAME) and the rank layout, and the
 * performance variables against messages this program sends: rank 0 sends
 * rank 1 small messages (inline) and window-sized ones (the master's
 * memory) that rank 1 receives only after a barrier, so that none is
 * placed, and checks what its handles counted, that a stopped handle
 * counts nothing, and reset, write and readreset.
 *
 * Events (MPI-4's MPI_T_event_*, under BDMPI and MPI 4 libraries: MPICH 4
 * has them and no events, Open MPI 4.1 not at all): every event and source
 * is listed, its name leads back to its index, the categories list every
 * event once, and bad indices, names and safety levels give the standard's
 * error classes. Under BDMPI the events themselves: rank 1 blocks in a
 * receive that rank 0 answers only after a pause, so it gives up its slot,
 * and its callbacks (registered at different safety levels) must have seen
 * it switched out and resumed when MPI_Recv returns, with elements,
 * timestamps and source that agree; with --hold-memory the write-back and
 * read-back events add up to the performance variables, and with
 * --spill-bytes N rank 0's message of N bytes (through disk under
 * --memory-payloads off) is seen as spilled.
 */
#include "check.h"

#ifdef BDMPI
#include <bdmpi.h>
#endif

enum { kInlineMessages = 10, kInlineBytes = 100, kWindowMessages = 5, kWindowBytes = 8192 };

/* A name through MPI_T's two-step string protocol: the length first. */
static void check_string_protocol(int cvar) {
  int len = 0;
  CHECK_MPI(MPI_T_cvar_get_info(cvar, NULL, &len, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL));
  CHECK(len >= 2, "cvar %d: name length %d", cvar, len);
  char *name = xmalloc((size_t)len);
  int got = len;
  CHECK_MPI(MPI_T_cvar_get_info(cvar, name, &got, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL));
  CHECK(got == len && strlen(name) + 1 == (size_t)len,
        "cvar %d: name '%s' length %d, first said %d", cvar, name, got, len);
  free(name);
}

/* Open MPI gives MPI_T_ERR_INVALID_INDEX (or, for performance variables,
 * MPI_T_ERR_INVALID) for indices below the count whose variable is gone (a
 * component not loaded); BDMPI's tables have no holes. */
static int skip_hole(int rc) {
#ifdef BDMPI
  (void)rc;
  return 0;
#else
  return rc == MPI_T_ERR_INVALID_INDEX || rc == MPI_T_ERR_INVALID;
#endif
}

/* Which control variables are read. Open MPI 4.1 lists the variables of
 * components it has closed and unloaded again, and MPI_T_cvar_read of one
 * of those faults (their storage is gone): there only the MPI layer's own
 * (mpi_*), which stay loaded. BDMPI's are all read. */
static int readable(const char *name) {
#ifdef BDMPI
  (void)name;
  return 1;
#else
  return strncmp(name, "mpi_", 4) == 0;
#endif
}

static size_t type_bytes(MPI_Datatype type) {
  int size = 0;
  CHECK_MPI(MPI_Type_size(type, &size));
  return (size_t)size;
}

static void check_cvars(void) {
  int num = -1;
  CHECK_MPI(MPI_T_cvar_get_num(&num));
  CHECK(num >= 0, "MPI_T_cvar_get_num gave %d", num);
  for (int i = 0; i < num; ++i) {
    char name[256], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc;
    int verbosity = -1, bind = -1, scope = -1;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    int rc = MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc,
                                 &desc_len, &bind, &scope);
    if (skip_hole(rc)) continue;
    CHECK_MPI(rc);
    CHECK(name_len >= 1 && name_len <= (int)sizeof name, "cvar %d name length %d", i,
          name_len);
    if (name_len < (int)sizeof name) {
      int index = -1;
      CHECK_MPI(MPI_T_cvar_get_index(name, &index));
      CHECK(index == i, "cvar '%s' is index %d, get_index says %d", name, i, index);
    }
    if (i < 3 && name_len > 1) check_string_protocol(i);
    if (enumtype != MPI_T_ENUM_NULL) {
      int items = -1;
      char ename[256];
      int elen = sizeof ename;
      CHECK_MPI(MPI_T_enum_get_info(enumtype, &items, ename, &elen));
      CHECK(items >= 1, "enumeration of %s has %d items", name, items);
      for (int k = 0; k < items; ++k) {
        int value = 0;
        char item[256];
        int ilen = sizeof item;
        CHECK_MPI(MPI_T_enum_get_item(enumtype, k, &value, item, &ilen));
      }
      int value = 0, ilen = 0;
      CHECK_CLASS(MPI_T_enum_get_item(enumtype, items, &value, NULL, &ilen),
                  MPI_T_ERR_INVALID_INDEX);
    }
    if (bind != MPI_T_BIND_NO_OBJECT || !readable(name)) continue;
    MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
    int count = -1;
    rc = MPI_T_cvar_handle_alloc(i, NULL, &handle, &count);
    if (skip_hole(rc)) continue;
    CHECK_MPI(rc);
    CHECK(count >= 0, "cvar %s: count %d", name, count);
    char *buf = xmalloc(((size_t)count + 1) * type_bytes(type));
    rc = MPI_T_cvar_read(handle, buf);
    if (!skip_hole(rc)) CHECK_MPI(rc);
    if (rc == MPI_SUCCESS && type == MPI_CHAR && count > 0) {
      CHECK(memchr(buf, '\0', (size_t)count) != NULL, "cvar %s: text not terminated", name);
    }
    free(buf);
    CHECK_MPI(MPI_T_cvar_handle_free(&handle));
    CHECK(handle == MPI_T_CVAR_HANDLE_NULL, "cvar %s: handle not reset by free", name);
  }
  int index = -1;
  CHECK_CLASS(MPI_T_cvar_get_index("no_such_variable_anywhere", &index),
              MPI_T_ERR_INVALID_NAME);
  char name[64];
  int len = sizeof name, verbosity, bind, scope;
  MPI_Datatype type;
  MPI_T_enum enumtype;
  int rc = MPI_T_cvar_get_info(num, name, &len, &verbosity, &type, &enumtype, NULL, NULL,
                               &bind, &scope);
#ifdef BDMPI
  CHECK(rc == MPI_T_ERR_INVALID_INDEX, "cvar index %d of %d: %d", num, num, rc);
#else
  /* Open MPI 4.1 says MPI_T_ERR_INVALID where the standard has _INDEX. */
  CHECK(rc == MPI_T_ERR_INVALID_INDEX || rc == MPI_T_ERR_INVALID, "cvar index %d of %d: %d",
        num, num, rc);
#endif
}

static void check_pvars(void) {
  int num = -1;
  CHECK_MPI(MPI_T_pvar_get_num(&num));
  CHECK(num >= 0, "MPI_T_pvar_get_num gave %d", num);
  MPI_T_pvar_session session = MPI_T_PVAR_SESSION_NULL;
  CHECK_MPI(MPI_T_pvar_session_create(&session));
  for (int i = 0; i < num; ++i) {
    char name[256];
    int name_len = sizeof name;
    int verbosity, var_class = -1, bind = -1, readonly, continuous = -1, atomic;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype;
    char desc[1024];
    int desc_len = sizeof desc;
    int rc = MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &type,
                                 &enumtype, desc, &desc_len, &bind, &readonly, &continuous,
                                 &atomic);
    if (skip_hole(rc)) continue;
    CHECK_MPI(rc);
    CHECK(var_class >= MPI_T_PVAR_CLASS_STATE && var_class <= MPI_T_PVAR_CLASS_GENERIC,
          "pvar %s: class %d", name, var_class);
    if (name_len < (int)sizeof name) {
      int index = -1;
      CHECK_MPI(MPI_T_pvar_get_index(name, var_class, &index));
      /* Names are unique per class, not overall. */
      CHECK(index == i, "pvar '%s' is index %d, get_index says %d", name, i, index);
    }
    if (bind != MPI_T_BIND_NO_OBJECT) continue;
    MPI_T_pvar_handle handle = MPI_T_PVAR_HANDLE_NULL;
    int count = -1;
    rc = MPI_T_pvar_handle_alloc(session, i, NULL, &handle, &count);
    if (skip_hole(rc)) continue;
    CHECK_MPI(rc);
    CHECK(count >= 0, "pvar %s: count %d", name, count);
    char *buf = xmalloc(((size_t)count + 1) * type_bytes(type));
    if (!continuous) CHECK_MPI(MPI_T_pvar_start(session, handle));
    CHECK_MPI(MPI_T_pvar_read(session, handle, buf));
    if (!continuous) CHECK_MPI(MPI_T_pvar_stop(session, handle));
    free(buf);
    CHECK_MPI(MPI_T_pvar_handle_free(session, &handle));
  }
  CHECK_MPI(MPI_T_pvar_session_free(&session));
  CHECK(session == MPI_T_PVAR_SESSION_NULL, "session not reset by free");
}

static void check_categories(void) {
  int num = -1, cvars = 0, pvars = 0;
  CHECK_MPI(MPI_T_category_get_num(&num));
  CHECK_MPI(MPI_T_cvar_get_num(&cvars));
  CHECK_MPI(MPI_T_pvar_get_num(&pvars));
  for (int i = 0; i < num; ++i) {
    char name[256];
    int name_len = sizeof name, ncvars = -1, npvars = -1, ncats = -1;
    char desc[1024];
    int desc_len = sizeof desc;
    int rc = MPI_T_category_get_info(i, name, &name_len, desc, &desc_len, &ncvars, &npvars,
                                     &ncats);
    if (skip_hole(rc)) continue;
    CHECK_MPI(rc);
    CHECK(ncvars >= 0 && npvars >= 0 && ncats >= 0, "category %s: %d %d %d", name,
          ncvars, npvars, ncats);
    int *indices = xmalloc(sizeof(int) * (size_t)(ncvars + npvars + ncats + 1));
    CHECK_MPI(MPI_T_category_get_cvars(i, ncvars, indices));
    for (int k = 0; k < ncvars; ++k)
      CHECK(indices[k] >= 0 && indices[k] < cvars, "category %s: cvar %d", name, indices[k]);
    CHECK_MPI(MPI_T_category_get_pvars(i, npvars, indices));
    for (int k = 0; k < npvars; ++k)
      CHECK(indices[k] >= 0 && indices[k] < pvars, "category %s: pvar %d", name, indices[k]);
    CHECK_MPI(MPI_T_category_get_categories(i, ncats, indices));
    for (int k = 0; k < ncats; ++k)
      CHECK(indices[k] >= 0 && indices[k] < num, "category %s: category %d", name,
            indices[k]);
    free(indices);
    if (name_len < (int)sizeof name) {
      int index = -1;
      CHECK_MPI(MPI_T_category_get_index(name, &index));
      CHECK(index == i, "category '%s' is index %d, get_index says %d", name, i, index);
    }
  }
  int stamp = -1;
  CHECK_MPI(MPI_T_category_changed(&stamp));
}


#if defined(BDMPI) || MPI_VERSION >= 4
#define HAVE_EVENTS 1
#include <pthread.h>
#include <unistd.h>

static void free_info(MPI_Info *info) {
  if (*info != MPI_INFO_NULL) CHECK_MPI(MPI_Info_free(info));
}

static int g_freed = 0;
static void count_free(MPI_T_event_registration reg, MPI_T_cb_safety safety, void *data) {
  (void)reg;
  (void)safety;
  CHECK(data == &g_freed, "free callback: user data %p", data);
  ++g_freed;
}

static void never_called(MPI_T_event_instance instance, MPI_T_event_registration reg,
                         MPI_T_cb_safety safety, void *data) {
  (void)instance;
  (void)reg;
  (void)safety;
  (void)data;
  CHECK(0, "a callback of a handle without events was called");
}

static void check_events(void) {
  int num = -1, nsources = -1, ncats = 0;
  CHECK_MPI(MPI_T_event_get_num(&num));
  CHECK(num >= 0, "MPI_T_event_get_num gave %d", num);
  for (int i = 0; i < num; ++i) {
    char name[256], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity = -1, bind = -1;
    int elements = 8;
    MPI_Datatype types[8];
    MPI_Aint displs[8];
    MPI_T_enum enumtype;
    MPI_Info info = MPI_INFO_NULL;
    CHECK_MPI(MPI_T_event_get_info(i, name, &name_len, &verbosity, types, displs, &elements,
                                   &enumtype, &info, desc, &desc_len, &bind));
    free_info(&info);
    CHECK(elements >= 0, "event %s: %d elements", name, elements);
    for (int k = 0; k < elements && k < 8; ++k)
      CHECK(types[k] != MPI_DATATYPE_NULL && displs[k] >= 0, "event %s: element %d", name, k);
    int index = -1;
    CHECK_MPI(MPI_T_event_get_index(name, &index));
    CHECK(index == i, "event '%s' is index %d, get_index says %d", name, i, index);
  }
  /* Every argument given: MPICH 4.0 checks its pointers (MPI_T_ERR_INVALID)
   * before the index. */
  char name[64], desc[64];
  int len = sizeof name, desc_len = sizeof desc, verbosity, bind, elements = 1;
  MPI_Datatype type;
  MPI_Aint displ;
  MPI_T_enum enumtype;
  MPI_Info info;
  CHECK_CLASS(MPI_T_event_get_info(num, name, &len, &verbosity, &type, &displ, &elements,
                                   &enumtype, &info, desc, &desc_len, &bind),
              MPI_T_ERR_INVALID_INDEX);
  int index = -1;
  CHECK_CLASS(MPI_T_event_get_index("no_such_event_anywhere", &index), MPI_T_ERR_INVALID_NAME);
  MPI_T_event_registration reg;
  CHECK_CLASS(MPI_T_event_handle_alloc(num, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);

  CHECK_MPI(MPI_T_source_get_num(&nsources));
  CHECK(nsources >= 0, "MPI_T_source_get_num gave %d", nsources);
  for (int i = 0; i < nsources; ++i) {
    char desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc;
    MPI_T_source_order order;
    MPI_Count ticks = 0, max_ticks = 0, t0 = 0, t1 = 0;
    MPI_Info info = MPI_INFO_NULL;
    CHECK_MPI(MPI_T_source_get_info(i, name, &name_len, desc, &desc_len, &order, &ticks,
                                    &max_ticks, &info));
    free_info(&info);
    CHECK(ticks > 0 && max_ticks > 0, "source %s: %lld ticks/s, max %lld", name,
          (long long)ticks, (long long)max_ticks);
    CHECK_MPI(MPI_T_source_get_timestamp(i, &t0));
    CHECK_MPI(MPI_T_source_get_timestamp(i, &t1));
    CHECK(t1 >= t0, "source %s went back: %lld then %lld", name, (long long)t0, (long long)t1);
  }
  MPI_Count stamp;
  CHECK_CLASS(MPI_T_source_get_timestamp(nsources, &stamp), MPI_T_ERR_INVALID_INDEX);
  MPI_T_source_order order;
  MPI_Count ticks, max_ticks;
  len = sizeof name;
  desc_len = sizeof desc;
  CHECK_CLASS(MPI_T_source_get_info(nsources, name, &len, desc, &desc_len, &order, &ticks,
                                    &max_ticks, &info),
              MPI_T_ERR_INVALID_INDEX);

  /* Each event is in at most one category. */
  CHECK_MPI(MPI_T_category_get_num(&ncats));
  int listed = 0;
  int *seen = calloc((size_t)num + 1, sizeof(int));
  for (int c = 0; c < ncats; ++c) {
    int n = -1;
    int rc = MPI_T_category_get_num_events(c, &n);
    if (skip_hole(rc)) continue;
    CHECK_MPI(rc);
    CHECK(n >= 0 && n <= num, "category %d: %d events of %d", c, n, num);
    int *indices = xmalloc(sizeof(int) * ((size_t)n + 1));
    CHECK_MPI(MPI_T_category_get_events(c, n, indices));
    for (int k = 0; k < n; ++k) {
      CHECK(indices[k] >= 0 && indices[k] < num, "category %d: event %d", c, indices[k]);
      CHECK(seen[indices[k]]++ == 0, "event %d in two categories", indices[k]);
    }
    listed += n;
    free(indices);
  }
  free(seen);
  int n = 0;
  CHECK_CLASS(MPI_T_category_get_num_events(ncats, &n), MPI_T_ERR_INVALID_INDEX);
  CHECK_CLASS(MPI_T_category_get_events(ncats, 0, NULL), MPI_T_ERR_INVALID_INDEX);
#ifdef BDMPI
  CHECK(listed == num, "categories list %d of %d events", listed, num);
#else
  (void)listed;
#endif
  if (num == 0) return;

  /* A handle: its hints, its callbacks, its end. */
  CHECK_MPI(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg));
  MPI_Info hints;
  CHECK_MPI(MPI_Info_create(&hints));
  CHECK_MPI(MPI_Info_set(hints, "bdmpi_nothing", "1"));
  CHECK_MPI(MPI_T_event_handle_set_info(reg, hints));
  MPI_Info used = MPI_INFO_NULL;
  CHECK_MPI(MPI_T_event_handle_get_info(reg, &used));
  free_info(&used);
  CHECK_CLASS(MPI_T_event_register_callback(reg, (MPI_T_cb_safety)99, MPI_INFO_NULL, NULL,
                                            never_called),
              MPI_T_ERR_INVALID);
  CHECK_MPI(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, hints, NULL,
                                          never_called));
  CHECK_MPI(MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, hints));
  CHECK_MPI(MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, &used));
  free_info(&used);
  /* Taken away again before anything can happen. */
  CHECK_MPI(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, NULL,
                                          NULL));
  CHECK_MPI(MPI_Info_free(&hints));
  g_freed = 0;
  CHECK_MPI(MPI_T_event_handle_free(reg, &g_freed, count_free));
#ifdef BDMPI
  /* No delivery holds it: freed at once, and gone. */
  CHECK(g_freed == 1, "free callback called %d times", g_freed);
  CHECK_CLASS(MPI_T_event_handle_free(reg, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
  CHECK_CLASS(MPI_T_event_set_dropped_handler(reg, NULL), MPI_T_ERR_INVALID_HANDLE);
  MPI_Count when;
  int source;
  CHECK_CLASS(MPI_T_event_get_timestamp(NULL, &when), MPI_T_ERR_INVALID_HANDLE);
  CHECK_CLASS(MPI_T_event_get_source(NULL, &source), MPI_T_ERR_INVALID_HANDLE);
  CHECK_CLASS(MPI_T_event_read(NULL, 0, &when), MPI_T_ERR_INVALID_HANDLE);
  CHECK_CLASS(MPI_T_event_copy(NULL, &when), MPI_T_ERR_INVALID_HANDLE);
#endif
}
#endif

#ifdef BDMPI
/* What one event's callbacks saw. */
struct seen_event {
  const char *name;
  int index;
  int count;
  int others;               /* calls of the callback that must not be chosen */
  unsigned char last[32];   /* MPI_T_event_copy of the last one */
  unsigned long long sum0;  /* the first element, summed */
  MPI_Count first_stamp, last_stamp;
  MPI_T_event_registration reg;
};

enum { kSwitchedOut, kResumed, kWrittenBack, kReadBack, kSpilled, kEvents };
static struct seen_event g_seen[kEvents] = {
    {"bdmpi_switched_out", -1, 0, 0, {0}, 0, 0, 0, NULL},
    {"bdmpi_resumed", -1, 0, 0, {0}, 0, 0, 0, NULL},
    {"bdmpi_written_back", -1, 0, 0, {0}, 0, 0, 0, NULL},
    {"bdmpi_read_back", -1, 0, 0, {0}, 0, 0, 0, NULL},
    {"bdmpi_message_spilled", -1, 0, 0, {0}, 0, 0, 0, NULL}};
static pthread_t g_main_thread;

static void on_event(MPI_T_event_instance instance, MPI_T_event_registration reg,
                     MPI_T_cb_safety safety, void *data) {
  struct seen_event *seen = data;
  CHECK(reg == seen->reg, "%s: another registration's callback", seen->name);
  CHECK(safety == MPI_T_CB_REQUIRE_NONE, "%s: called at safety %d", seen->name, (int)safety);
  CHECK(pthread_equal(pthread_self(), g_main_thread), "%s: called in another thread",
        seen->name);
  MPI_Count stamp = 0, now = 0;
  int source = -1;
  CHECK_MPI(MPI_T_event_get_timestamp(instance, &stamp));
  CHECK_MPI(MPI_T_event_get_source(instance, &source));
  CHECK(source == 0, "%s: source %d", seen->name, source);
  CHECK_MPI(MPI_T_source_get_timestamp(source, &now));
  CHECK(stamp > 0 && stamp <= now, "%s: stamped %lld, now %lld", seen->name,
        (long long)stamp, (long long)now);
  if (seen->count == 0) seen->first_stamp = stamp;
  seen->last_stamp = stamp;
  /* Each element where get_info says, as event_read gives it. */
  int elements = 4;
  MPI_Datatype types[4];
  MPI_Aint displs[4];
  CHECK_MPI(MPI_T_event_get_info(seen->index, NULL, NULL, NULL, types, displs, &elements, NULL,
                                 NULL, NULL, NULL, NULL));
  CHECK_MPI(MPI_T_event_copy(instance, seen->last));
  for (int k = 0; k < elements; ++k) {
    unsigned long long value = 0;
    CHECK_MPI(MPI_T_event_read(instance, k, &value));
    size_t bytes = types[k] == MPI_INT ? sizeof(int) : sizeof(unsigned long long);
    CHECK(memcmp(&value, seen->last + displs[k], bytes) == 0, "%s: element %d", seen->name, k);
    if (k == 0) seen->sum0 += value;
  }
  unsigned long long value;
  CHECK_CLASS(MPI_T_event_read(instance, elements, &value), MPI_T_ERR_INVALID_INDEX);
  ++seen->count;
}

static void on_event_other(MPI_T_event_instance instance, MPI_T_event_registration reg,
                           MPI_T_cb_safety safety, void *data) {
  (void)instance;
  (void)reg;
  (void)safety;
  ++((struct seen_event *)data)->others;
}

static void on_dropped(MPI_Count count, MPI_T_event_registration reg, int source,
                       MPI_T_cb_safety safety, void *data) {
  (void)reg;
  (void)source;
  (void)safety;
  CHECK(0, "%s: %lld events dropped", ((struct seen_event *)data)->name, (long long)count);
}

/* Registers every event: the switched-out one also at a stricter level,
 * where any context fits and the least restricted callback is chosen. */
static void register_events(void) {
  g_main_thread = pthread_self();
  for (int e = 0; e < kEvents; ++e) {
    struct seen_event *seen = &g_seen[e];
    CHECK_MPI(MPI_T_event_get_index(seen->name, &seen->index));
    CHECK_MPI(MPI_T_event_handle_alloc(seen->index, NULL, MPI_INFO_NULL, &seen->reg));
    MPI_T_cb_safety level = e == kResumed ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_NONE;
    CHECK_MPI(MPI_T_event_register_callback(seen->reg, level, MPI_INFO_NULL, seen, on_event));
    CHECK_MPI(MPI_T_event_set_dropped_handler(seen->reg, on_dropped));
  }
  CHECK_MPI(MPI_T_event_register_callback(g_seen[kSwitchedOut].reg,
                                          MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL,
                                          &g_seen[kSwitchedOut], on_event_other));
}

static void free_events(void) {
  for (int e = 0; e < kEvents; ++e) {
    g_freed = 0;
    CHECK_MPI(MPI_T_event_handle_free(g_seen[e].reg, &g_freed, count_free));
    CHECK(g_freed == 1, "%s: free callback called %d times", g_seen[e].name, g_freed);
  }
}

/* Rank 1 waits in MPI_Recv for a message rank 0 sends only a pause after
 * rank 1's previous message reached it: rank 1 gives up its slot, and
 * MPI_Recv returns only after its callbacks ran. */
static void check_switch_events(void) {
  int rank = world_rank();
  if (world_size() < 2) return;
  int token = 7;
  if (rank == 0) {
    CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    usleep(100000);
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 1, 11, MPI_COMM_WORLD));
  } else if (rank == 1) {
    int before = g_seen[kResumed].count;
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    const struct seen_event *out = &g_seen[kSwitchedOut], *in = &g_seen[kResumed];
    CHECK(in->count > before && out->count == in->count,
          "after a blocking receive: switched out %d, resumed %d times (%d before)",
          out->count, in->count, before);
    CHECK(out->others == 0, "the async-signal-safe callback was chosen %d times", out->others);
    unsigned long long out_switches, waited, in_switches;
    memcpy(&out_switches, out->last, sizeof out_switches);
    memcpy(&waited, in->last, sizeof waited);
    memcpy(&in_switches, in->last + 8, sizeof in_switches);
    CHECK(out_switches == in_switches && out_switches >= (unsigned long long)in->count,
          "switches: out %llu, resumed %llu", out_switches, in_switches);
    /* Rank 0 paused 100 ms before sending. */
    CHECK(waited >= 10000000ull && out->last_stamp < in->last_stamp &&
              (unsigned long long)(in->last_stamp - out->last_stamp) == waited,
          "waited %llu ns, stamps %lld .. %lld", waited, (long long)out->last_stamp,
          (long long)in->last_stamp);
  }
}

/* --spill-bytes N: rank 0's send of N bytes goes to disk. */
static void check_spill_event(long long bytes) {
  if (world_size() < 2) return;
  int rank = world_rank();
  char *data = xmalloc((size_t)bytes);
  memset(data, 3, (size_t)bytes);
  if (rank == 0) {
    int before = g_seen[kSpilled].count;
    CHECK_MPI(MPI_Send(data, (int)bytes, MPI_BYTE, 1, 12, MPI_COMM_WORLD));
    CHECK(g_seen[kSpilled].count == before + 1, "spilled events: %d, %d before",
          g_seen[kSpilled].count, before);
    unsigned long long got;
    int point_to_point;
    memcpy(&got, g_seen[kSpilled].last, sizeof got);
    memcpy(&point_to_point, g_seen[kSpilled].last + 8, sizeof point_to_point);
    CHECK(got == (unsigned long long)bytes && point_to_point == 1,
          "spilled %llu bytes (point to point %d), sent %lld", got, point_to_point, bytes);
  } else if (rank == 1) {
    CHECK_MPI(MPI_Recv(data, (int)bytes, MPI_BYTE, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  free(data);
}
#endif

#ifdef BDMPI
static const char *arg_text(int argc, char **argv, const char *name) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  return NULL;
}

static int cvar_index(const char *name) {
  int index = -1;
  CHECK_MPI(MPI_T_cvar_get_index(name, &index));
  return index;
}

static int read_int_cvar(const char *name) {
  MPI_T_cvar_handle handle;
  int count = 0, value = -1;
  CHECK_MPI(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &handle, &count));
  CHECK(count == 1, "%s: count %d", name, count);
  CHECK_MPI(MPI_T_cvar_read(handle, &value));
  CHECK_CLASS(MPI_T_cvar_write(handle, &value), MPI_T_ERR_CVAR_SET_NEVER);
  CHECK_MPI(MPI_T_cvar_handle_free(&handle));
  return value;
}

/* An enumerated setting's item name. */
static void read_enum_cvar(const char *name, char *item, int len) {
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;
  MPI_Datatype type;
  CHECK_MPI(MPI_T_cvar_get_info(cvar_index(name), NULL, NULL, NULL, &type, &enumtype,
                                NULL, NULL, NULL, NULL));
  CHECK(type == MPI_INT && enumtype != MPI_T_ENUM_NULL, "%s is not an enumeration", name);
  int value = read_int_cvar(name), items = 0;
  CHECK_MPI(MPI_T_enum_get_info(enumtype, &items, NULL, NULL));
  CHECK(value >= 0 && value < items, "%s: value %d of %d items", name, value, items);
  int got = -1;
  CHECK_MPI(MPI_T_enum_get_item(enumtype, value, &got, item, &len));
  CHECK(got == value, "%s: item %d has value %d", name, value, got);
}

static void check_bdmpi_cvars(int argc, char **argv) {
  int mem_threshold_index = cvar_index("bdmpi_mem_threshold");
  MPI_Datatype type;
  CHECK_MPI(MPI_T_cvar_get_info(mem_threshold_index, NULL, NULL, NULL, &type, NULL, NULL,
                                NULL, NULL, NULL));
  CHECK(type == MPI_UNSIGNED_LONG_LONG, "bdmpi_mem_threshold's type");
  MPI_T_cvar_handle handle;
  int count = 0;
  unsigned long long threshold = 0;
  CHECK_MPI(MPI_T_cvar_handle_alloc(mem_threshold_index, NULL, &handle, &count));
  CHECK_MPI(MPI_T_cvar_read(handle, &threshold));
  CHECK_MPI(MPI_T_cvar_handle_free(&handle));
  long long want = arg_ll(argc, argv, "--expect-mem-threshold", -1);
  if (want >= 0)
    CHECK(threshold == (unsigned long long)want, "bdmpi_mem_threshold %llu, want %lld",
          threshold, want);

  char item[64];
  const char *prefetch = arg_text(argc, argv, "--expect-prefetch");
  read_enum_cvar("bdmpi_prefetch", item, sizeof item);
  if (prefetch != NULL)
    CHECK(strcmp(item, prefetch) == 0, "bdmpi_prefetch %s, want %s", item, prefetch);
  const char *bcast = arg_text(argc, argv, "--expect-bcast");
  read_enum_cvar("bdmpi_bcast_algorithm", item, sizeof item);
  CHECK(strcmp(item, bcast != NULL ? bcast : "auto") == 0, "bdmpi_bcast_algorithm %s, want %s",
        item, bcast != NULL ? bcast : "auto");

  int lsize = 0;
  CHECK_MPI(BDMPI_Comm_lsize(MPI_COMM_WORLD, &lsize));
  int node_ranks = read_int_cvar("bdmpi_node_ranks");
  CHECK(node_ranks == lsize, "bdmpi_node_ranks %d, ranks on this node %d", node_ranks, lsize);
  int running = read_int_cvar("bdmpi_running_slots");
  CHECK(running >= 1, "bdmpi_running_slots %d", running);

  /* The job id is a text the size of its handle's count. */
  CHECK_MPI(MPI_T_cvar_handle_alloc(cvar_index("bdmpi_job_id"), NULL, &handle, &count));
  CHECK(count >= 2, "bdmpi_job_id: count %d", count);
  char *id = xmalloc((size_t)count);
  CHECK_MPI(MPI_T_cvar_read(handle, id));
  CHECK(strlen(id) + 1 == (size_t)count, "bdmpi_job_id '%s', count %d", id, count);
  free(id);
  CHECK_MPI(MPI_T_cvar_handle_free(&handle));
}

static int pvar_index(const char *name, int var_class) {
  int index = -1;
  CHECK_MPI(MPI_T_pvar_get_index(name, var_class, &index));
  return index;
}

static unsigned long long read_pvar(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  unsigned long long value = 0;
  CHECK_MPI(MPI_T_pvar_read(session, handle, &value));
  return value;
}

static const char *const kPaths[] = {"inline", "master_memory", "master_spill", "spill_file",
                                     "cross_node", "placed", "lent", "direct"};
enum { kPathCount = sizeof kPaths / sizeof kPaths[0] };

static void check_bdmpi_pvars(void) {
  int rank = world_rank(), size = world_size();
  MPI_T_pvar_session session;
  CHECK_MPI(MPI_T_pvar_session_create(&session));
  MPI_T_pvar_handle messages[kPathCount], bytes[kPathCount], switches, storage;
  int count = 0;
  for (int p = 0; p < kPathCount; ++p) {
    char name[96];
    snprintf(name, sizeof name, "bdmpi_sent_%s_messages", kPaths[p]);
    CHECK_MPI(MPI_T_pvar_handle_alloc(session, pvar_index(name, MPI_T_PVAR_CLASS_COUNTER),
                                      NULL, &messages[p], &count));
    snprintf(name, sizeof name, "bdmpi_sent_%s_bytes", kPaths[p]);
    CHECK_MPI(MPI_T_pvar_handle_alloc(session, pvar_index(name, MPI_T_PVAR_CLASS_COUNTER),
                                      NULL, &bytes[p], &count));
  }
  CHECK_MPI(MPI_T_pvar_handle_alloc(
      session, pvar_index("bdmpi_switches", MPI_T_PVAR_CLASS_COUNTER), NULL, &switches, &count));
  CHECK_MPI(MPI_T_pvar_handle_alloc(
      session, pvar_index("bdmpi_storage_bytes", MPI_T_PVAR_CLASS_LEVEL), NULL, &storage, &count));
  /* A level is continuous: neither started nor reset. */
  CHECK_CLASS(MPI_T_pvar_start(session, storage), MPI_T_ERR_PVAR_NO_STARTSTOP);
  CHECK_CLASS(MPI_T_pvar_reset(session, storage), MPI_T_ERR_PVAR_NO_WRITE);
  (void)read_pvar(session, storage);

  /* Nothing counts before its handle starts. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(read_pvar(session, messages[0]) == 0, "an unstarted handle counted");
  CHECK_MPI(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES));

  char small[kInlineBytes], *medium = xmalloc(kWindowBytes);
  memset(small, 1, sizeof small);
  memset(medium, 2, kWindowBytes);
  if (rank == 0 && size > 1) {
    for (int i = 0; i < kInlineMessages; ++i)
      CHECK_MPI(MPI_Send(small, kInlineBytes, MPI_BYTE, 1, 5, MPI_COMM_WORLD));
    for (int i = 0; i < kWindowMessages; ++i)
      CHECK_MPI(MPI_Send(medium, kWindowBytes, MPI_BYTE, 1, 6, MPI_COMM_WORLD));
  }
  /* The master has taken the sends before it answers the barrier. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 1) {
    for (int i = 0; i < kInlineMessages; ++i)
      CHECK_MPI(MPI_Recv(small, kInlineBytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < kWindowMessages; ++i)
      CHECK_MPI(MPI_Recv(medium, kWindowBytes, MPI_BYTE, 0, 6, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  }
  CHECK_MPI(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES));

  unsigned long long got[kPathCount][2];
  for (int p = 0; p < kPathCount; ++p) {
    got[p][0] = read_pvar(session, messages[p]);
    got[p][1] = read_pvar(session, bytes[p]);
  }
  if (rank == 0 && size > 1) {
    int lsize = 0;
    CHECK_MPI(BDMPI_Comm_lsize(MPI_COMM_WORLD, &lsize));
    unsigned long long all = kInlineMessages + kWindowMessages;
    /* Sent before their receives were posted: through the master (inline,
     * the window's into its memory or a spill file), or waiting in the
     * receiver's inbox on its node (counted as direct), whatever the size. */
    unsigned long long all_bytes =
        kInlineMessages * kInlineBytes + (unsigned long long)kWindowMessages * kWindowBytes;
    CHECK(got[0][0] + got[1][0] + got[2][0] + got[7][0] == all &&
              got[0][1] + got[1][1] + got[2][1] + got[7][1] == all_bytes,
          "inline, master memory, spill and direct: %llu + %llu + %llu + %llu messages, "
          "%llu + %llu + %llu + %llu bytes", got[0][0], got[1][0], got[2][0], got[7][0],
          got[0][1], got[1][1], got[2][1], got[7][1]);
    CHECK(got[0][0] <= kInlineMessages && got[1][0] + got[2][0] <= kWindowMessages,
          "inline %llu of %d, master memory and spill %llu of %d messages", got[0][0],
          kInlineMessages, got[1][0] + got[2][0], kWindowMessages);
    CHECK(got[3][0] == 0 && got[5][0] == 0 && got[6][0] == 0,
          "spill file %llu, placed %llu, lent %llu messages", got[3][0], got[5][0], got[6][0]);
    unsigned long long cross = lsize >= 2 ? 0 : all;
    CHECK(got[4][0] == cross, "cross_node: %llu messages, want %llu", got[4][0], cross);
  } else {
    for (int p = 0; p < kPathCount; ++p)
      CHECK(got[p][0] == 0 && got[p][1] == 0, "rank %d sent nothing, path %s counted %llu",
            rank, kPaths[p], got[p][0]);
  }
  /* Blocked in the barriers, the ranks gave up their slots. */
  unsigned long long gave_up = read_pvar(session, switches), total = 0;
  CHECK_MPI(MPI_Allreduce(&gave_up, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  if (size > 1) CHECK(total >= 1, "no rank gave up its slot in two barriers");

  /* A stopped handle counts nothing more. */
  if (rank == 0 && size > 1)
    CHECK_MPI(MPI_Send(small, kInlineBytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 1)
    CHECK_MPI(MPI_Recv(small, kInlineBytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(read_pvar(session, messages[0]) == got[0][0], "a stopped handle counted on");

  /* Write, readreset and reset act on the handle's value. */
  unsigned long long value = 1234, before = 0;
  CHECK_MPI(MPI_T_pvar_write(session, bytes[0], &value));
  CHECK(read_pvar(session, bytes[0]) == 1234, "pvar_write");
  CHECK_MPI(MPI_T_pvar_readreset(session, bytes[0], &before));
  CHECK(before == 1234 && read_pvar(session, bytes[0]) == 0, "pvar_readreset: %llu", before);
  CHECK_MPI(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES));
  CHECK(read_pvar(session, messages[0]) == 0, "pvar_reset");
  CHECK_CLASS(MPI_T_pvar_read(session, MPI_T_PVAR_ALL_HANDLES, &value),
              MPI_T_ERR_INVALID_HANDLE);
  free(medium);
  /* Freeing the session frees its handles. */
  CHECK_MPI(MPI_T_pvar_session_free(&session));
  CHECK_CLASS(MPI_T_pvar_read(session, messages[0], &value), MPI_T_ERR_INVALID_SESSION);
}

/* With --hold-memory N under a small --node-memory: each rank holds N
 * storage-backed bytes and the ranks take turns, so ranks are switched
 * out; the counters must show what was written back. */
static void check_write_back(long long hold, int eager) {
  MPI_T_pvar_session session;
  MPI_T_pvar_handle outs, written, read_back;
  int count = 0;
  CHECK_MPI(MPI_T_pvar_session_create(&session));
  CHECK_MPI(MPI_T_pvar_handle_alloc(
      session, pvar_index("bdmpi_switch_outs", MPI_T_PVAR_CLASS_COUNTER), NULL, &outs, &count));
  CHECK_MPI(MPI_T_pvar_handle_alloc(
      session, pvar_index("bdmpi_written_back_bytes", MPI_T_PVAR_CLASS_COUNTER), NULL,
      &written, &count));
  CHECK_MPI(MPI_T_pvar_handle_alloc(
      session, pvar_index("bdmpi_read_back_bytes", MPI_T_PVAR_CLASS_COUNTER), NULL,
      &read_back, &count));
  int written_events = g_seen[kWrittenBack].count, read_events = g_seen[kReadBack].count;
  unsigned long long written_sum = g_seen[kWrittenBack].sum0, read_sum = g_seen[kReadBack].sum0;
  CHECK_MPI(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES));
  unsigned char *data = xmalloc((size_t)hold);
  fill_pattern(data, (size_t)hold, (uint64_t)world_rank());
  for (int round = 0; round < 3; ++round) {
    for (long long i = 0; i < hold; i += 4096) data[i] ^= (unsigned char)round;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  unsigned long long mine[2] = {read_pvar(session, outs), read_pvar(session, written)}, all[2];
  unsigned long long read = read_pvar(session, read_back);
  /* The events of the calls so far, as the counters: the allreduce below
   * may switch out again. */
  int written_seen = g_seen[kWrittenBack].count - written_events;
  int read_seen = g_seen[kReadBack].count - read_events;
  unsigned long long written_bytes = g_seen[kWrittenBack].sum0 - written_sum;
  unsigned long long read_bytes = g_seen[kReadBack].sum0 - read_sum;
  CHECK_MPI(MPI_Allreduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  CHECK(all[0] >= 1 && all[1] >= 4096, "switch-outs %llu, written back %llu bytes", all[0],
        all[1]);
  CHECK(mine[0] > 0 || mine[1] == 0, "rank wrote back %llu bytes in no switch-out", mine[1]);
  /* Each switch-out an event, whose bytes add up to the counter's. */
  CHECK(written_seen == (int)mine[0] && written_bytes == mine[1],
        "written-back events: %d for %llu bytes; counters: %llu for %llu bytes", written_seen,
        written_bytes, mine[0], mine[1]);
  CHECK(read_bytes == read, "read-back events: %d for %llu bytes; counter %llu bytes", read_seen,
        read_bytes, read);
  unsigned long long read_all = 0;
  CHECK_MPI(MPI_Allreduce(&read, &read_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  if (eager) CHECK(read_all > 0, "--prefetch eager read nothing back");
  free(data);
  CHECK_MPI(MPI_T_pvar_session_free(&session));
}
#endif

int main(int argc, char **argv) {
  int num = -1, provided = -1;
  /* Compared directly: MPI_Error_class may not be called before MPI_Init. */
  int rc = MPI_T_cvar_get_num(&num);
  CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "MPI_T_cvar_get_num before MPI_T_init_thread: %d", rc);
  /* Before MPI_Init: the tool interface has a life of its own. */
  CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d",
        provided);
  CHECK_MPI(MPI_T_cvar_get_num(&num));
  CHECK_MPI(MPI_Init(&argc, &argv));
  /* Nested: the interface stays up until the last finalize. */
  CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  CHECK_MPI(MPI_T_finalize());
  CHECK_MPI(MPI_T_cvar_get_num(&num));

  check_cvars();
  check_pvars();
  check_categories();
#ifdef HAVE_EVENTS
  check_events();
#endif
#ifdef BDMPI
  check_bdmpi_cvars(argc, argv);
  register_events();
  check_bdmpi_pvars();
  check_switch_events();
  long long hold = arg_ll(argc, argv, "--hold-memory", 0);
  if (hold > 0) check_write_back(hold, arg_flag(argc, argv, "--eager"));
  long long spill = arg_ll(argc, argv, "--spill-bytes", 0);
  if (spill > 0) check_spill_event(spill);
  free_events();
#endif

  CHECK_MPI(MPI_T_finalize());
  CHECK_CLASS(MPI_T_cvar_get_num(&num), MPI_T_ERR_NOT_INITIALIZED);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (world_rank() == 0) printf("tool_interface: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
