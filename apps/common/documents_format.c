#define _GNU_SOURCE
#include "documents_format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_io.h"

uint64_t app_documents_bytes(const app_header* header) {
  uint64_t rows = header->dims[0], nnz = header->dims[2];
  /* A header with absurd dimensions must not wrap around to a small size
   * that happens to match the file; no real file reaches 2^60 bytes. */
  if (rows > (1ull << 56) || nnz > (1ull << 56)) return UINT64_MAX;
  return APP_HEADER_BYTES + 8 * (rows + 1) + sizeof(app_doc_entry) * nnz;
}

uint64_t app_documents_rowptr_offset(uint64_t row) {
  return APP_HEADER_BYTES + 8 * row;
}

uint64_t app_documents_entry_offset(uint64_t rows, uint64_t entry) {
  return APP_HEADER_BYTES + 8 * (rows + 1) + sizeof(app_doc_entry) * entry;
}

int app_documents_open(const char* path, app_documents* doc) {
  memset(doc, 0, sizeof *doc);
  doc->path = path;
  doc->fd = app_data_open(path, APP_KIND_DOCUMENTS, app_documents_bytes,
                          &doc->header);
  if (doc->fd < 0) return -1;
  doc->rows = doc->header.dims[0];
  doc->cols = doc->header.dims[1];
  doc->nnz = doc->header.dims[2];
  if (doc->cols == 0 || doc->cols > UINT32_MAX + 1ull) {
    fprintf(stderr, "%s: %llu columns; a document file has 1 .. 2^32\n", path,
            (unsigned long long)doc->cols);
    app_documents_close(doc);
    return -1;
  }
  return 0;
}

void app_documents_close(app_documents* doc) {
  if (doc->fd >= 0) close(doc->fd);
  doc->fd = -1;
}

/* pread, for the calls every reader of a file makes (split, stream). */
static const app_block_reader kPread = {NULL, NULL};

static int read_rowptr_via(const app_documents* doc, const app_block_reader* reader,
                           uint64_t first, uint64_t count, uint64_t* out) {
  if (first + count > doc->rows) {
    fprintf(stderr, "%s: row pointers %llu..%llu requested, file has %llu\n",
            doc->path, (unsigned long long)first,
            (unsigned long long)(first + count), (unsigned long long)doc->rows);
    return -1;
  }
  if (app_read_block(reader, doc->fd, doc->path, out, 8 * (count + 1),
                     app_documents_rowptr_offset(first)))
    return -1;
  for (uint64_t i = 0; i <= count; ++i) {
    int bad = out[i] > doc->nnz || (i > 0 && out[i] < out[i - 1]) ||
              (first + i == 0 && out[i] != 0) ||
              (first + i == doc->rows && out[i] != doc->nnz);
    if (bad) {
      fprintf(stderr,
              "%s: corrupt row pointer %llu (value %llu; %llu non-zeros)\n",
              doc->path, (unsigned long long)(first + i),
              (unsigned long long)out[i], (unsigned long long)doc->nnz);
      return -1;
    }
  }
  return 0;
}

/* A collective reader is called even for no entries: every rank reads. */
static int read_entries_via(const app_documents* doc, const app_block_reader* reader,
                            uint64_t first, uint64_t count, app_doc_entry* out) {
  if (count == 0 && reader->read == NULL) return 0;
  if (app_read_block(reader, doc->fd, doc->path, out, sizeof(app_doc_entry) * count,
                     app_documents_entry_offset(doc->rows, first)))
    return -1;
  for (uint64_t i = 0; i < count; ++i) {
    if (out[i].col >= doc->cols) {
      fprintf(stderr, "%s: corrupt entry %llu: column %u of %llu\n", doc->path,
              (unsigned long long)(first + i), out[i].col,
              (unsigned long long)doc->cols);
      return -1;
    }
  }
  return 0;
}

int app_documents_read_rowptr(const app_documents* doc, uint64_t first,
                              uint64_t count, uint64_t* out) {
  return read_rowptr_via(doc, &kPread, first, count, out);
}

int app_documents_read_entries(const app_documents* doc, uint64_t first,
                               uint64_t count, app_doc_entry* out) {
  return read_entries_via(doc, &kPread, first, count, out);
}

uint64_t app_documents_split(const app_documents* doc, uint64_t part,
                             uint64_t parts) {
  if (part == 0) return 0;
  if (part >= parts) return doc->rows;
  uint64_t target =
      (uint64_t)((unsigned __int128)part * doc->nnz / parts);
  /* Smallest i in [0, rows] with rowptr[i] >= target. */
  uint64_t lo = 0, hi = doc->rows;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2, value;
    if (app_documents_read_rowptr(doc, mid, 0, &value) != 0) return UINT64_MAX;
    if (value >= target)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

int app_documents_read_rows(const app_documents* doc, uint64_t first,
                            uint64_t last, app_doc_rows* rows) {
  memset(rows, 0, sizeof *rows);
  uint64_t count = last - first;
  uint64_t* rowptr = malloc(8 * (count + 1));
  if (rowptr == NULL) {
    fprintf(stderr, "%s: no memory for %llu row pointers\n", doc->path,
            (unsigned long long)count + 1);
    return -1;
  }
  if (read_rowptr_via(doc, &doc->blocks, first, count, rowptr) != 0) {
    free(rowptr);
    return -1;
  }
  uint64_t base = rowptr[0], nnz = rowptr[count] - base;
  /* malloc(0) may return NULL; a block without entries is fine. */
  app_doc_entry* entries = malloc(sizeof(app_doc_entry) * (nnz ? nnz : 1));
  if (entries == NULL) {
    fprintf(stderr, "%s: no memory for %llu entries\n", doc->path,
            (unsigned long long)nnz);
    free(rowptr);
    return -1;
  }
  if (read_entries_via(doc, &doc->blocks, base, nnz, entries) != 0) {
    free(rowptr);
    free(entries);
    return -1;
  }
  for (uint64_t i = 0; i <= count; ++i) rowptr[i] -= base;
  rows->first = first;
  rows->count = count;
  rows->nnz = nnz;
  rows->rowptr = rowptr;
  rows->entries = entries;
  return 0;
}

void app_doc_rows_free(app_doc_rows* rows) {
  free(rows->rowptr);
  free(rows->entries);
  memset(rows, 0, sizeof *rows);
}

void app_documents_stream_init(app_documents_stream* s,
                               const app_documents* doc, size_t chunk_bytes) {
  memset(s, 0, sizeof *s);
  s->doc = doc;
  s->chunk_bytes = chunk_bytes < sizeof(app_doc_entry) ? sizeof(app_doc_entry)
                                                       : chunk_bytes;
  /* Row pointers cost 8 bytes a row against 8 a non-zero for entries:
   * reading ahead chunk/64 rows wastes little even where rows are short,
   * and a piece ends at the window when rows average under 8 entries. */
  s->window_rows = s->chunk_bytes / 64 ? s->chunk_bytes / 64 : 1;
}

void app_documents_stream_rewind(app_documents_stream* s) { s->next_row = 0; }

int app_documents_stream_next(app_documents_stream* s,
                              const app_doc_rows** piece) {
  const app_documents* doc = s->doc;
  if (s->next_row >= doc->rows) return 0;
  app_doc_rows* p = &s->piece;
  if (p->rowptr == NULL) {
    p->rowptr = malloc(8 * (s->window_rows + 1));
    if (p->rowptr == NULL) {
      fprintf(stderr, "%s: no memory for a row-pointer window\n", doc->path);
      return -1;
    }
  }
  uint64_t window = doc->rows - s->next_row;
  if (window > s->window_rows) window = s->window_rows;
  if (app_documents_read_rowptr(doc, s->next_row, window, p->rowptr) != 0)
    return -1;
  /* As many rows as fit in chunk_bytes of entries, but at least one. */
  uint64_t base = p->rowptr[0];
  uint64_t budget = s->chunk_bytes / sizeof(app_doc_entry);
  uint64_t count = 1;
  while (count < window && p->rowptr[count + 1] - base <= budget) ++count;
  uint64_t nnz = p->rowptr[count] - base;
  if (nnz > s->entry_capacity) {
    free(p->entries);
    p->entries = malloc(sizeof(app_doc_entry) * nnz);
    s->entry_capacity = p->entries ? nnz : 0;
    if (p->entries == NULL) {
      fprintf(stderr, "%s: no memory for %llu entries\n", doc->path,
              (unsigned long long)nnz);
      return -1;
    }
  }
  if (app_documents_read_entries(doc, base, nnz, p->entries) != 0) return -1;
  for (uint64_t i = 0; i <= count; ++i) p->rowptr[i] -= base;
  p->first = s->next_row;
  p->count = count;
  p->nnz = nnz;
  s->next_row += count;
  *piece = p;
  return 1;
}

void app_documents_stream_free(app_documents_stream* s) {
  app_doc_rows_free(&s->piece);
  s->entry_capacity = 0;
}
