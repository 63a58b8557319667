/*
 * storage_cache: what a rank's storage-backed data leaves in the page
 * cache, which the memory cgroup charges and the node budget does not
 * count. Each rank holds one array of 10 MiB + 1 page (under BDMPI a block
 * of its own in its storage file, larger than the blocks a lazy resume
 * reads exactly, so that its faults read ahead past its end).
 *
 * Usage: storage_cache --switched | --copies [--rounds R]
 *   --switched: a token goes round the ranks R times (default 3); a rank
 *   that gets it reads its whole array, passes the token on and waits for
 *   it again. The rank that has the token looks at the previous one's
 *   storage file (cachestat(2) through /proc/<pid>/fd): once that rank is
 *   switched out (under BDMPI with a budget of a megabyte and one running
 *   rank it must be, for this one to run), no page of its file may stay
 *   in the page cache but those it maps (a heap page its runtime read
 *   while it was switched out), neither those it read nor those its
 *   faults read ahead past the array's end or in its heap. Rank 0 prints how many files it checked.
 *   --copies: for R rounds (default 2), each rank writes its array back
 *   (BDMPI_Release: the array then maps its storage file), writes every
 *   page of it, which copies each page and leaves the file's page in the
 *   cache, and blocks in a barrier; under a budget that switches nothing
 *   out, the file pages of the pages it wrote must be gone from the cache
 *   when the barrier returns (a few pages of a large folio at the array's
 *   ends may stay).
 * Both check the array's contents bit for bit; under mpirun that is all.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>
#include "check.h"
#ifdef BDMPI
#include <bdmpi.h>
#endif

enum { kPage = 4096 };
static const size_t kArrayBytes = (10u << 20) + kPage;

static uint64_t word_of(int rank, size_t word, int version) {
  uint64_t x = ((uint64_t)rank << 48) ^ ((uint64_t)version << 40) ^ (uint64_t)word;
  x ^= x >> 31;
  x *= 0x9e3779b97f4a7c15ull;
  x ^= x >> 29;
  return x;
}

static void fill(uint64_t *a, size_t words, int rank, int version) {
  for (size_t i = 0; i < words; ++i) a[i] = word_of(rank, i, version);
}

static void verify(const uint64_t *a, size_t words, int rank, int version, const char *when) {
  for (size_t i = 0; i < words; ++i)
    CHECK(a[i] == word_of(rank, i, version), "array %s: word %zu is %016llx, want %016llx",
          when, i, (unsigned long long)a[i], (unsigned long long)word_of(rank, i, version));
}

#ifdef BDMPI
/* cachestat(2), Linux 6.5 (no C library wrapper yet): the pages of a file
 * range in the page cache. Length 0: to the end of the file. */
struct cache_range {
  uint64_t offset, length;
};
struct cache_stat {
  uint64_t cached, dirty, writeback, evicted, recently_evicted;
};
static const long kSysCachestat = 451;

/* Cached pages of [offset, offset + length) of fd, or -1 (errno set). */
static long long cached_pages(int fd, uint64_t offset, uint64_t length) {
  struct cache_range range = {offset, length};
  struct cache_stat stat;
  if (syscall(kSysCachestat, fd, &range, &stat, 0) != 0) return -1;
  return (long long)stat.cached;
}

/* The file that the page at p maps and p's offset in it: this process's
 * descriptor of that file (the storage file under BDMPI, which the
 * runtime holds open), found by the inode /proc/self/maps names. False
 * when p maps no file (its data was never written back). */
static int mapped_file(const void *p, int *fd, uint64_t *offset) {
  FILE *maps = fopen("/proc/self/maps", "r");
  CHECK(maps != NULL, "cannot open /proc/self/maps");
  char line[512];
  unsigned long long inode = 0, at = 0;
  unsigned int dev_major = 0, dev_minor = 0;
  int found = 0;
  while (!found && fgets(line, sizeof line, maps) != NULL) {
    unsigned long long start, end, file_offset;
    if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu", &start, &end, &file_offset, &dev_major,
               &dev_minor, &inode) != 6)
      continue;
    if ((uintptr_t)p >= start && (uintptr_t)p < end && inode != 0) {
      at = file_offset + ((uintptr_t)p - start);
      found = 1;
    }
  }
  fclose(maps);
  if (!found) return 0;
  DIR *dir = opendir("/proc/self/fd");
  CHECK(dir != NULL, "cannot open /proc/self/fd");
  struct dirent *entry;
  *fd = -1;
  while (*fd < 0 && (entry = readdir(dir)) != NULL) {
    char path[300];
    struct stat st;
    snprintf(path, sizeof path, "/proc/self/fd/%s", entry->d_name);
    if (entry->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        (unsigned long long)st.st_ino == inode && major(st.st_dev) == dev_major &&
        minor(st.st_dev) == dev_minor)
      *fd = atoi(entry->d_name);
  }
  closedir(dir);
  *offset = at;
  return *fd >= 0;
}

/* Pages of the file with inode `inode` that process `pid` maps as the
 * file's (not its own copies): those the kernel keeps in the page cache
 * whatever is dropped, such as a heap page its runtime read while it
 * was being switched out. */
static long long mapped_file_pages(int pid, unsigned long long inode) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/smaps", pid);
  FILE *smaps = fopen(path, "r");
  CHECK(smaps != NULL, "cannot open %s", path);
  long long kib = 0;
  int in_file = 0;
  while (fgets(line, sizeof line, smaps) != NULL) {
    unsigned long long start, end, vma_inode;
    long long value;
    if (sscanf(line, "%llx-%llx %*s %*s %*s %llu", &start, &end, &vma_inode) == 3)
      in_file = vma_inode == inode;
    else if (in_file && sscanf(line, "Rss: %lld kB", &value) == 1)
      kib += value;
    else if (in_file && sscanf(line, "Anonymous: %lld kB", &value) == 1)
      kib -= value;
  }
  fclose(smaps);
  return kib * 1024 / kPage;
}

/* Waits up to 3 s for another process's file (its descriptor fd) to
 * hold no page in the page cache but those the process maps: its
 * switch-out may still be under way. Returns the pages cached beyond
 * those at the last look, -1 without cachestat. */
static long long wait_uncached(int pid, int fd) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
  int file = open(path, O_RDONLY | O_CLOEXEC);
  CHECK(file >= 0, "cannot open %s: %s", path, strerror(errno));
  struct stat st;
  CHECK(fstat(file, &st) == 0, "cannot stat %s", path);
  long long extra = 0;
  for (int look = 0; look < 600; ++look) {
    long long cached = cached_pages(file, 0, 0);
    if (cached < 0 && errno == ENOSYS) {
      extra = -1;
      break;
    }
    CHECK(cached >= 0, "cachestat of %s failed: %s", path, strerror(errno));
    extra = cached - mapped_file_pages(pid, (unsigned long long)st.st_ino);
    if (extra <= 0) {
      extra = 0;
      break;
    }
    usleep(5000);
  }
  close(file);
  return extra;
}

/* Whether this kernel has cachestat (older ones: nothing is checked). */
static int cachestat_works(int fd) {
  return cached_pages(fd, 0, 0) >= 0 || errno != ENOSYS;
}
#endif

/* The token: who sent it, and which descriptor of theirs is their storage
 * file (-1: none known yet). */
struct token {
  int round, pid, fd;
};

static void switched(int rank, int size, int rounds) {
  uint64_t *array = xmalloc(kArrayBytes);
  const size_t words = kArrayBytes / 8;
  fill(array, words, rank, 1);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int checked = 0;
  struct token token = {-1, 0, -1};
  for (int round = 0; round < rounds; ++round) {
    if (rank != 0 || round > 0) {
      MPI_Recv(&token, (int)(sizeof token / sizeof(int)), MPI_INT, prev, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      CHECK(token.round == (rank == 0 ? round - 1 : round), "token of round %d in round %d",
            token.round, round);
#ifdef BDMPI
      /* The previous rank waits for the token now, its data switched out. */
      long long cached = token.fd >= 0 ? wait_uncached(token.pid, token.fd) : -1;
      if (cached >= 0) {
        CHECK(cached == 0,
              "rank %d's storage file holds %lld pages in the page cache that it does not "
              "map while it is switched out", prev, cached);
        ++checked;
      }
#endif
    }
    verify(array, words, rank, 1, "read at its turn");
    token.round = round;
    token.pid = (int)getpid();
    token.fd = -1;
#ifdef BDMPI
    uint64_t offset;
    if (!mapped_file(array, &token.fd, &offset)) token.fd = -1;
#endif
    MPI_Send(&token, (int)(sizeof token / sizeof(int)), MPI_INT, next, 0, MPI_COMM_WORLD);
  }
  if (rank == 0)
    MPI_Recv(&token, (int)(sizeof token / sizeof(int)), MPI_INT, prev, 0, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  /* No rank ends while the next one may still look at its file. */
  MPI_Barrier(MPI_COMM_WORLD);
  int total = 0;
  MPI_Reduce(&checked, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) fprintf(stderr, "storage_cache: %d switched-out files checked\n", total);
  free(array);
}

static void copies(int rank, int rounds) {
  uint64_t *array = xmalloc(kArrayBytes);
  const size_t words = kArrayBytes / 8;
  int checked = 0;
  for (int round = 0; round < rounds; ++round) {
    fill(array, words, rank, 2 * round);
#ifdef BDMPI
    CHECK_MPI(BDMPI_Release(array, kArrayBytes));
    int fd = -1;
    uint64_t offset = 0;
    int mapped = mapped_file(array, &fd, &offset) && cachestat_works(fd);
    const uint64_t first = offset - offset % kPage, bytes = kArrayBytes + offset % kPage;
#endif
    fill(array, words, rank, 2 * round + 1); /* every page: a copy of the file's */
#ifdef BDMPI
    long long before = mapped ? cached_pages(fd, first, bytes) : 0;
#endif
    MPI_Barrier(MPI_COMM_WORLD);
#ifdef BDMPI
    if (mapped) {
      /* Read before anything faults the file again. */
      long long after = cached_pages(fd, first, bytes);
      const long long pages = (long long)(bytes / kPage);
      CHECK(before > pages / 2,
            "round %d: %lld of the array's %lld file pages cached after it wrote them all: "
            "its writes left no copies to drop, this checks nothing", round, before, pages);
      CHECK(after <= pages / 8,
            "round %d: %lld of the array's %lld file pages still cached after a blocking "
            "call (%lld before it): the file copies of the pages it wrote stay",
            round, after, pages, before);
      ++checked;
    }
#endif
    verify(array, words, rank, 2 * round + 1, "after the barrier");
  }
  int total = 0;
  MPI_Reduce(&checked, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) fprintf(stderr, "storage_cache: %d copies checked\n", total);
  free(array);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  int rounds = 0, mode = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--switched") == 0) mode = 1;
    else if (strcmp(argv[i], "--copies") == 0) mode = 2;
    else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = atoi(argv[++i]);
  }
  CHECK(mode != 0, "usage: storage_cache --switched | --copies [--rounds R]");
  if (mode == 1) switched(rank, size, rounds > 0 ? rounds : 3);
  else copies(rank, rounds > 0 ? rounds : 2);
  MPI_Finalize();
  return 0;
}
