#!/usr/bin/env python3
"""gap.py SAMPLES ERR OUT: sets the samples of sample_cgroup.sh taken while
a run of bench/apps/run.sh ran (its OUT's first and last time stamps)
against the master's "counted resident" debug lines (--log debug
--log-categories disk) in its ERR, and prints the means, in MiB, of the
cgroup's usage, of what the master counts and of the parts of the
difference. ERR "-": no master's count (the cgroup's columns only)."""
import re
import sys

samples, err, out = sys.argv[1:4]
counted = []
for line in open(err) if err != "-" else []:
    m = re.search(r"counted resident (\d+) bytes \(unpageable (\d+), messages (\d+)\) at ([\d.]+)", line)
    if m:
        counted.append((float(m.group(4)), int(m.group(1)), int(m.group(2)), int(m.group(3))))
stamps = [float(line.split()[0]) for line in open(out) if line.strip()]
start, end = stamps[0], stamps[-1]
rows = []
for line in open(samples):
    fields = line.split()
    t = float(fields[0])
    if not start <= t <= end:
        continue
    kv = dict(f.split("=") for f in fields[1:])
    before = [c for c in counted if c[0] <= t] or ([(t, 0, 0, 0)] if err == "-" else [])
    if not before:
        continue
    rows.append((t, {k: int(v) for k, v in kv.items()}, before[-1]))
MiB = 1 << 20
def mean(values):
    return sum(values) / len(values) / MiB if values else 0
cols = {
    "usage": lambda s, c: s["usage"],
    "counted": lambda s, c: c[1],
    "usage - counted": lambda s, c: s["usage"] - c[1],
    "rss (anon)": lambda s, c: s["rss"],
    "mapped file": lambda s, c: s["mapped_file"],
    "page cache not mapped (cache - mapped - shmem)": lambda s, c: s["cache"] - s["mapped_file"] - s["shmem"],
    "shmem": lambda s, c: s["shmem"],
    "dirty + writeback": lambda s, c: s["dirty"] + s["writeback"],
    "active file": lambda s, c: s["active_file"],
    "inactive file": lambda s, c: s["inactive_file"],
    "counted unpageable": lambda s, c: c[2],
    "counted messages": lambda s, c: c[3],
    "anon + mapped - counted": lambda s, c: s["rss"] + s["mapped_file"] + s["shmem"] - c[1],
}
for name in ("ranks rss_anon", "ranks rss_file", "ranks rss_shmem", "master rss_anon", "master rss_file"):
    key = name.replace(" ", "_")
    if rows and key in rows[0][1]:
        cols[name] = (lambda k: lambda s, c: s.get(k, 0))(key)
print(f"{len(rows)} samples over {end - start:.1f} s")
print("| " + " | ".join(cols) + " |")
print("|" + "---|" * len(cols))
print("| " + " | ".join(f"{mean([f(s, c) for _, s, c in rows]):.0f}" for f in cols.values()) + " |")
