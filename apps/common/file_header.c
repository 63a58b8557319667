#include "file_header.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static const char kMagic[8] = {'B', 'D', 'M', 'P', 'I', 'A', 'P', 'P'};

/* The format is little endian; every machine we run on is too. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "application data files are little endian");

const char* app_kind_name(enum app_data_kind kind) {
  switch (kind) {
    case APP_KIND_DOCUMENTS: return "documents";
    case APP_KIND_GRAPH: return "graph";
    case APP_KIND_RATINGS: return "ratings";
  }
  return "unknown";
}

int app_header_write(FILE* f, const app_header* header) {
  unsigned char raw[APP_HEADER_BYTES] = {0};
  memcpy(raw, kMagic, sizeof kMagic);
  memcpy(raw + 8, &header->version, 4);
  memcpy(raw + 12, &header->kind, 4);
  memcpy(raw + 16, header->dims, sizeof header->dims);
  memcpy(raw + 56, &header->seed, 8);
  if (fseek(f, 0, SEEK_SET) != 0) return -1;
  return fwrite(raw, 1, sizeof raw, f) == sizeof raw ? 0 : -1;
}

int app_header_read(const char* path, enum app_data_kind kind,
                    uint64_t (*expected_bytes)(const app_header*),
                    app_header* header) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
    return -1;
  }
  unsigned char raw[APP_HEADER_BYTES];
  size_t got = fread(raw, 1, sizeof raw, f);
  fclose(f);
  if (got != sizeof raw || memcmp(raw, kMagic, sizeof kMagic) != 0) {
    fprintf(stderr, "%s: not a BDMPI application data file (no %s header)\n",
            path, got != sizeof raw ? "complete" : "BDMPIAPP");
    return -1;
  }
  memcpy(&header->version, raw + 8, 4);
  memcpy(&header->kind, raw + 12, 4);
  memcpy(header->dims, raw + 16, sizeof header->dims);
  memcpy(&header->seed, raw + 56, 8);
  if (header->version != APP_FORMAT_VERSION) {
    fprintf(stderr, "%s: format version %u, this program reads version %u\n",
            path, header->version, APP_FORMAT_VERSION);
    return -1;
  }
  if (header->kind != (uint32_t)kind) {
    fprintf(stderr, "%s: holds %s data, expected %s\n", path,
            app_kind_name((enum app_data_kind)header->kind), app_kind_name(kind));
    return -1;
  }
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "%s: cannot stat: %s\n", path, strerror(errno));
    return -1;
  }
  uint64_t want = expected_bytes(header);
  if ((uint64_t)st.st_size != want) {
    fprintf(stderr,
            "%s: %llu bytes, but its header describes %llu (truncated or "
            "corrupt)\n",
            path, (unsigned long long)st.st_size, (unsigned long long)want);
    return -1;
  }
  return 0;
}
