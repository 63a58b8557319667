#!/usr/bin/env python3
"""What a run adds to the page cache, what takes it out again, and what is
read twice because the memory cgroup's reclaim took it, per file kind.

  page_cache_churn.py PERF_DATA [--comm NAME ...] [--master NAME]

PERF_DATA is a system-wide trace of the page cache's two tracepoints, with
call chains (the chain tells reclaim from fadvise and unlink):

  perf record -a -g -e filemap:mm_filemap_add_to_page_cache \\
      -e filemap:mm_filemap_delete_from_page_cache -o FILE -- COMMAND

say around one `bench/ooc/run.sh --modes bdmpi ...`. Only the events
between the first and the last of the ranks' own (processes named after the
program: `--comm`, default pagerank, kmeans and sgd) count. Each file is
given the kind of the process that added most of its pages: the ranks'
files (their storage files, and the input they read), the master's (`--master`,
default bdmprun: the messages it spills) and the rest. Prints markdown:
per kind, the bytes added by folio size (4 KiB pages cost the kernel per
page what a 2 MiB folio costs once), the bytes taken out per cause, and the
bytes added again after reclaim had taken them (a refault: read twice).
An add is not a read: a folio over a hole or an unwritten extent is filled
with zeros, so the bytes added beyond the ranks' disk reads (the run
report's `disk_read_bytes`) are zeros the kernel wrote.
"""
import argparse
import collections
import re
import subprocess
import sys

HEADER = re.compile(
    r"^\s*(?P<comm>\S.*?)\s+(?P<pid>\d+)\s+(?P<time>[0-9.]+):\s+filemap:(?P<event>\w+):"
    r"\s+dev (?P<dev>\S+) ino (?P<ino>\w+) pfn=\w+ ofs=(?P<ofs>\d+) order=(?P<order>\d+)")

# The first of these that a frame of a deletion's call chain names wins
# (fadvise's drop goes through an invalidation too).
CAUSES = [
    ("shrink_folio_list", "reclaim"),
    ("fadvise", "fadvise"),
    ("truncate", "unlink or truncate"),
    ("invalidate", "invalidate"),
]


def events(perf_data):
    """Yields (comm, time, event, file, offset, order, chain) from perf script."""
    script = subprocess.Popen(
        ["perf", "script", "-i", perf_data, "-F", "comm,pid,time,event,trace,ip,sym"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    current = None
    for line in script.stdout:
        match = HEADER.match(line)
        if match:
            if current:
                yield current
            current = (match["comm"], float(match["time"]), match["event"],
                       match["dev"] + ":" + match["ino"], int(match["ofs"]),
                       int(match["order"]), [])
        elif current and line.strip():
            parts = line.split()
            if len(parts) >= 2:
                current[6].append(parts[1])
    if current:
        yield current
    script.wait()


def cause_of(chain):
    for marker, cause in CAUSES:
        if any(marker in frame for frame in chain):
            return cause
    return "other"


def size_class(order):
    if order == 0:
        return "4 KiB"
    if order >= 9:
        return "2 MiB"
    return "4 KiB-1 MiB"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("perf_data")
    parser.add_argument("--comm", action="append", help="the ranks' process name")
    parser.add_argument("--master", default="bdmprun")
    args = parser.parse_args()
    ranks = set(args.comm or ["pagerank", "kmeans", "sgd"])

    trace = list(events(args.perf_data))
    rank_times = [e[1] for e in trace if e[0] in ranks]
    if not rank_times:
        sys.exit("no event of the ranks (%s) in %s" % (", ".join(sorted(ranks)), args.perf_data))
    start, end = min(rank_times), max(rank_times)
    trace = [e for e in trace if start <= e[1] <= end]

    # A file's kind: who added most of it.
    added_by = collections.defaultdict(collections.Counter)
    for comm, _, event, file, _, order, _ in trace:
        if event == "mm_filemap_add_to_page_cache":
            who = "ranks" if comm in ranks else "master" if comm == args.master else "other"
            added_by[file][who] += 4096 << order
    kind = {file: counts.most_common(1)[0][0] for file, counts in added_by.items()}

    added = collections.defaultdict(collections.Counter)
    removed = collections.defaultdict(collections.Counter)
    refaulted = collections.Counter()
    reclaimed = set()
    for _, _, event, file, offset, order, chain in trace:
        what = kind.get(file, "other")
        size = 4096 << order
        if event == "mm_filemap_add_to_page_cache":
            added[what][size_class(order)] += size
            if (file, offset) in reclaimed:
                refaulted[what] += size
                reclaimed.discard((file, offset))
        else:
            cause = cause_of(chain)
            removed[what][cause] += size
            if cause == "reclaim":
                reclaimed.add((file, offset))

    mib = lambda n: "%.0f" % (n / 2**20)
    print("Page cache over %.1f s (the ranks' first to last event)\n" % (end - start))
    sizes = ["4 KiB", "4 KiB-1 MiB", "2 MiB"]
    causes = [cause for _, cause in CAUSES] + ["other"]
    print("| files of | added, MiB (%s) | taken out, MiB (%s) | added again after reclaim, MiB |"
          % (", ".join(sizes), ", ".join(causes)))
    print("|---|---|---|---|")
    for what in ["ranks", "master", "other"]:
        if what not in added and what not in removed:
            continue
        total = sum(added[what].values())
        print("| %s | %s (%s) | %s (%s) | %s |" % (
            what, mib(total), ", ".join(mib(added[what][s]) for s in sizes),
            mib(sum(removed[what].values())), ", ".join(mib(removed[what][c]) for c in causes),
            mib(refaulted[what])))


if __name__ == "__main__":
    main()
