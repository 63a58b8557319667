#!/usr/bin/env python3
"""Where the ranks' kernel time goes, per cause, from a perf profile.

  kernel_causes.py PERF_DATA [--comm NAME ...]

PERF_DATA is a `perf record -g -e cpu-clock` of a run (bdmprun and its
ranks: `bench/ooc/run.sh --extra '--bdmprun WRAPPER'`, the wrapper running
`perf record -g -e cpu-clock -o FILE -- bdmprun "$@"`). Each kernel sample
of the ranks (processes named after the program: `--comm`, default
pagerank, kmeans and sgd) goes to the first of these its call chain passes
through, in this order: a fault's read-ahead, a copy-on-write, a fresh
anonymous page, a file page mapped (a fault inside a system call, say
pread's copy into a fresh buffer, counts as the fault), the system calls
pread, pwrite, fadvise, fallocate, mmap, madvise, process_vm_*, the message
queues, and a fault's own entry and page walk; and, within
it, to what it was doing (the memory cgroup's direct reclaim, its charge,
the reads' submission) or the rest: allocating pages, inserting them into
the page cache and its lists, zeroing, copying. Prints markdown, shares of
all samples (ranks and master, user and kernel). Call chains end in the
kernel at the fault or system call, so a fault is not told apart by the
program's line that took it: `perf report --no-children --sort sym` on
the same file gives the program's side.
"""
import argparse
import collections
import subprocess
import sys

# The first that matches wins: a fault's read-ahead is also a file fault.
ENTRIES = [
    ("fault: read-ahead (page cache filled)",
     ("page_cache_ra_unbounded", "page_cache_ra_order", "page_cache_async_ra",
      "page_cache_sync_ra")),
    ("fault: copy-on-write", ("do_wp_page",)),
    ("fault: fresh anonymous page", ("do_anonymous_page",)),
    ("fault: file page mapped", ("filemap_map_pages", "filemap_fault", "do_read_fault",
                                 "do_fault")),
    ("pread", ("__x64_sys_pread64",)),
    ("pwrite", ("__x64_sys_pwrite64",)),
    ("fadvise", ("__x64_sys_fadvise64",)),
    ("fallocate", ("__x64_sys_fallocate",)),
    ("mmap, munmap", ("__x64_sys_mmap", "__x64_sys_munmap")),
    ("madvise", ("__x64_sys_madvise",)),
    ("process_vm_readv/writev", ("__x64_sys_process_vm_readv", "__x64_sys_process_vm_writev")),
    ("message queues", ("__x64_sys_mq_timedreceive", "__x64_sys_mq_timedsend")),
    ("fault: other (entry, page walk)", ("exc_page_fault",)),
]
# Innermost match wins.
CAUSES = [
    ("reclaim", ("try_to_free_mem_cgroup_pages",)),
    ("charge", ("__mem_cgroup_charge", "mem_cgroup_charge")),
    ("read submission", ("read_pages",)),
]


def frames_of(sample):
    """The symbols of a `perf script -F comm,ip,sym` sample, leaf first."""
    frames = []
    for line in sample[1:]:
        parts = line.split(None, 1)
        frames.append(parts[1].split("+")[0].strip() if len(parts) > 1 else "")
    return frames


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data")
    parser.add_argument("--comm", action="append", default=None)
    args = parser.parse_args()
    comms = set(args.comm or ["pagerank", "kmeans", "sgd"])
    script = subprocess.run(["perf", "script", "-i", args.data, "-F", "comm,ip,sym"],
                            capture_output=True, text=True, check=True).stdout
    total = 0
    where = collections.Counter()
    by_entry = collections.Counter()
    split = collections.Counter()
    for chunk in script.split("\n\n"):
        sample = chunk.strip().split("\n")
        if not sample or not sample[0].strip():
            continue
        total += 1
        comm = sample[0].split()[0]
        kernel = len(sample) > 1 and sample[1].strip().startswith("ffff")
        where[(comm if comm in comms else "others", "kernel" if kernel else "user")] += 1
        if comm not in comms or not kernel:
            continue
        frames = frames_of(sample)
        entry = next((name for name, syms in ENTRIES if any(f in syms for f in frames)), "other")
        cause = next((name for name, syms in CAUSES if any(f in syms for f in frames)), "rest")
        by_entry[entry] += 1
        split[(entry, cause)] += 1
    if total == 0:
        sys.exit("no samples in " + args.data)

    def pct(n):
        return f"{100.0 * n / total:.1f}"

    print(f"{total} samples; " + ", ".join(f"{c} {k}: {pct(n)} %" for (c, k), n in where.most_common()))
    print()
    print("| ranks' kernel time, by entry | % of all samples | reclaim | charge | read submission | rest |")
    print("|---|---|---|---|---|---|")
    for entry, n in by_entry.most_common():
        cells = [pct(split[(entry, c)]) for c in ("reclaim", "charge", "read submission", "rest")]
        print(f"| {entry} | {pct(n)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
