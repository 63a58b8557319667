/*
 * sweep_serial_ooc -- the serial out-of-core baseline of `sweep`: one
 * process does all ranks' work on a file, a chunk at a time.
 *
 *   sweep_serial_ooc --ranks P --bytes-per-rank SIZE [--iters N]
 *                    [--chunk SIZE] [--ooc-dir DIR] [--expect CHECKSUM]
 *
 * The global array (P * SIZE bytes, rounded down to whole words per rank as
 * in sweep) lives in a file in DIR (default $TMPDIR or /tmp), unlinked as
 * soon as it is created. Filling it is not timed; each iteration then reads
 * every chunk (default 64m), sweeps it and writes it back, and prints
 * `ITER sweep <i> <seconds>`; at the end `RESULT sweep <value>`, equal to
 * sweep's for the same P, SIZE and N. This is what a programmer would write
 * by hand without MPI: the cost per iteration is one sequential read and one
 * sequential write of the data, which is what bench/ooc compares BDMPI with.
 * With --expect it exits 1 when its result differs, as sweep does.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_util.h"
#include "sweep_kernel.h"

static void usage(const char* message, const char* arg) {
  fprintf(stderr, "sweep_serial_ooc: %s%s%s\n", message, arg ? " " : "",
          arg ? arg : "");
  fprintf(stderr,
          "usage: sweep_serial_ooc --ranks P --bytes-per-rank SIZE "
          "[--iters N] [--chunk SIZE] [--ooc-dir DIR] [--expect CHECKSUM]\n");
  exit(2);
}

static long parse_count(const char* text, const char* name, long max) {
  char* end = NULL;
  errno = 0;
  long n = strtol(text, &end, 10);
  if (errno || end == text || *end || n < 1 || n > max) usage(name, text);
  return n;
}

static const char* g_path;

/* pread/pwrite move at most ~2 GiB per call and may stop short: loop. */
static void transfer(int fd, void* buf, size_t bytes, off_t offset, int write) {
  char* p = buf;
  while (bytes > 0) {
    ssize_t done = write ? pwrite(fd, p, bytes, offset) : pread(fd, p, bytes, offset);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) {
      fprintf(stderr, "sweep_serial_ooc: %s %s: %s\n", write ? "writing" : "reading",
              g_path, done < 0 ? strerror(errno) : "file shorter than expected");
      exit(1);
    }
    p += done;
    bytes -= (size_t)done;
    offset += done;
  }
}

int main(int argc, char** argv) {
  long ranks = 0, iters = 5;
  uint64_t bytes_per_rank = 0, chunk_bytes = 64ull << 20;
  const char* dir = getenv("TMPDIR");
  int have_expect = 0;
  uint64_t expect = 0;
  for (int a = 1; a < argc; a += 2) {
    if (a + 1 == argc) usage("missing value after", argv[a]);
    const char* v = argv[a + 1];
    if (strcmp(argv[a], "--ranks") == 0) {
      ranks = parse_count(v, "bad --ranks", 1L << 24);
    } else if (strcmp(argv[a], "--iters") == 0) {
      iters = parse_count(v, "bad --iters", 1000000);
    } else if (strcmp(argv[a], "--bytes-per-rank") == 0) {
      bytes_per_rank = app_parse_size(v, "sweep_serial_ooc --bytes-per-rank");
    } else if (strcmp(argv[a], "--chunk") == 0) {
      chunk_bytes = app_parse_size(v, "sweep_serial_ooc --chunk");
    } else if (strcmp(argv[a], "--ooc-dir") == 0) {
      dir = v;
    } else if (strcmp(argv[a], "--expect") == 0) {
      char* end = NULL;
      errno = 0;
      expect = strtoull(v, &end, 10);
      if (errno || end == v || *end) usage("--expect takes an unsigned integer, not", v);
      have_expect = 1;
    } else {
      usage("unknown option", argv[a]);
    }
  }
  if (ranks == 0) usage("--ranks P is required", NULL);
  if (bytes_per_rank < 8) usage("--bytes-per-rank SIZE (at least 8) is required", NULL);
  if (chunk_bytes < 8) usage("--chunk must be at least 8 bytes, not", "less");
  if (dir == NULL || *dir == '\0') dir = "/tmp";

  char path[4096];
  snprintf(path, sizeof path, "%s/sweep-serial-ooc-%ld.bin", dir, (long)getpid());
  g_path = path;
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    fprintf(stderr, "sweep_serial_ooc: creating %s: %s\n", path, strerror(errno));
    return 1;
  }
  unlink(path);  /* gone when we exit, however we exit */

  uint64_t total = (uint64_t)ranks * (bytes_per_rank / 8);
  uint64_t chunk = chunk_bytes / 8;
  if (chunk > total) chunk = total;
  uint64_t* buf = malloc(chunk * sizeof *buf);
  if (buf == NULL) {
    fprintf(stderr, "sweep_serial_ooc: cannot allocate a %" PRIu64 "-byte chunk\n",
            chunk * 8);
    return 1;
  }
  for (uint64_t g = 0; g < total; g += chunk) {
    uint64_t n = total - g < chunk ? total - g : chunk;
    for (uint64_t j = 0; j < n; ++j) buf[j] = sweep_initial(g + j);
    transfer(fd, buf, n * 8, (off_t)(g * 8), 1);
  }
  if (fsync(fd) != 0) {
    fprintf(stderr, "sweep_serial_ooc: fsync %s: %s\n", path, strerror(errno));
    return 1;
  }

  uint64_t result = SWEEP_FOLD_SEED;
  for (long i = 0; i < iters; ++i) {
    double start = app_now();
    uint64_t sum = 0;
    for (uint64_t g = 0; g < total; g += chunk) {
      uint64_t n = total - g < chunk ? total - g : chunk;
      transfer(fd, buf, n * 8, (off_t)(g * 8), 0);
      for (uint64_t j = 0; j < n; ++j) {
        uint64_t w = sweep_step(buf[j], (uint64_t)i);
        buf[j] = w;
        sum += w;
      }
      transfer(fd, buf, n * 8, (off_t)(g * 8), 1);
    }
    app_print_iteration("sweep", (int)i, app_now() - start);
    result = sweep_fold(result, sum);
  }
  printf("RESULT sweep %" PRIu64 "\n", result);
  free(buf);
  close(fd);
  if (have_expect && result != expect) {
    fprintf(stderr, "sweep_serial_ooc: RESULT %" PRIu64 " differs from --expect %" PRIu64 "\n",
            result, expect);
    return 1;
  }
  return 0;
}
