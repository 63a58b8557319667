/* Table-driven command-line parsing for the applications and generators:
 * "--name value" options and at most one positional argument (the data
 * file). Anything else prints the usage line and exits with status 2.
 * Header-only. */
#ifndef BDMPI_APPS_APP_ARGS_H
#define BDMPI_APPS_APP_ARGS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_util.h"

enum app_arg_type {
  APP_ARG_STRING, /* const char* */
  APP_ARG_SIZE,   /* uint64_t, with k/m/g suffixes (app_parse_size) */
  APP_ARG_U64,    /* uint64_t, plain decimal */
  APP_ARG_INT,    /* int, > 0 */
  APP_ARG_DOUBLE, /* double */
};

typedef struct app_arg {
  const char* name; /* "--iters" */
  enum app_arg_type type;
  void* value;
  int seen; /* set by app_parse_args */
} app_arg;

/* One table row: APP_ARG("--iters", APP_ARG_INT, &iters). */
#define APP_ARG(name, type, value) \
  { (name), (type), (value), 0 }

static inline void app_args_fail(const char* usage, const char* why,
                                 const char* what) {
  if (*why != '\0' || *what != '\0') fprintf(stderr, "%s%s\n", why, what);
  fprintf(stderr, "usage: %s\n", usage);
  exit(2);
}

/* Fills the options in `args` from argv; *positional gets the one
 * non-option argument (NULL if none; pass positional = NULL to allow none). */
static inline void app_parse_args(int argc, char** argv, app_arg* args,
                                  int nargs, const char** positional,
                                  const char* usage) {
  if (positional != NULL) *positional = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--", 2) != 0) {
      if (positional == NULL || *positional != NULL)
        app_args_fail(usage, "unexpected argument: ", argv[i]);
      *positional = argv[i];
      continue;
    }
    app_arg* arg = NULL;
    for (int k = 0; k < nargs && arg == NULL; ++k)
      if (strcmp(argv[i], args[k].name) == 0) arg = &args[k];
    if (arg == NULL) app_args_fail(usage, "unknown option: ", argv[i]);
    if (i + 1 >= argc) app_args_fail(usage, "missing value after ", argv[i]);
    const char* text = argv[++i];
    char* end = NULL;
    errno = 0;
    switch (arg->type) {
      case APP_ARG_STRING:
        *(const char**)arg->value = text;
        break;
      case APP_ARG_SIZE:
        *(uint64_t*)arg->value = app_parse_size(text, arg->name);
        break;
      case APP_ARG_U64:
        *(uint64_t*)arg->value = strtoull(text, &end, 10);
        break;
      case APP_ARG_INT: {
        long v = strtol(text, &end, 10);
        if (v <= 0 || v > 1000000000) errno = ERANGE;
        *(int*)arg->value = (int)v;
        break;
      }
      case APP_ARG_DOUBLE:
        *(double*)arg->value = strtod(text, &end);
        break;
    }
    if (end != NULL && (end == text || *end != '\0' || errno != 0)) {
      fprintf(stderr, "%s: bad value '%s'\n", arg->name, text);
      app_args_fail(usage, "", "");
    }
    arg->seen = 1;
  }
}

#endif
