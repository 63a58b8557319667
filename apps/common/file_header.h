/* The header every BDMPI application data file starts with, and the checks
 * that make a truncated, foreign or mismatched file fail with a clear message
 * instead of wrong results.
 *
 * Layout (little endian, 64 bytes):
 *   magic    8 bytes  "BDMPIAPP"
 *   version  u32      kAppFormatVersion
 *   kind     u32      enum app_data_kind
 *   dims[5]  u64      meaning per kind (documented next to each kind)
 *   seed     u64      generator seed, for the record
 * The payload that follows is described by the kind's own header file. */
#ifndef BDMPI_APPS_FILE_HEADER_H
#define BDMPI_APPS_FILE_HEADER_H

#include <stdint.h>
#include <stdio.h>

#define APP_FORMAT_VERSION 1u
#define APP_HEADER_BYTES 64u

enum app_data_kind {
  APP_KIND_DOCUMENTS = 1, /* sparse document-term matrix (k-means) */
  APP_KIND_GRAPH = 2,     /* directed graph (PageRank) */
  APP_KIND_RATINGS = 3,   /* sparse user-item ratings (SGD) */
};

typedef struct app_header {
  uint32_t version;
  uint32_t kind;
  uint64_t dims[5];
  uint64_t seed;
} app_header;

/* Writes the header at the start of `f`. Returns 0, or -1 with errno set. */
int app_header_write(FILE* f, const app_header* header);

/* Reads and checks the header of `path`: magic, version, kind, and that the
 * file is exactly `expected_bytes(header)` long. On failure prints why to
 * stderr (naming the file) and returns -1. */
int app_header_read(const char* path, enum app_data_kind kind,
                    uint64_t (*expected_bytes)(const app_header*),
                    app_header* header);

const char* app_kind_name(enum app_data_kind kind);

#endif
