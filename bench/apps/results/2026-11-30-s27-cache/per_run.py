#!/usr/bin/env python3
"""per_run.py LOGS CGROUP RANGES: for each bdmpi run of a bench/apps/run.sh
invocation (LOGS: its logs/ folder, whose <tag>.out lines start with time
stamps), the means over the run of sample_cgroup.sh's samples (CGROUP:
usage, and the page cache no process maps: cache - mapped_file - shmem)
and of sample_ranges.py's (RANGES: the ranks' storage-file page cache in
and outside their file mappings, and under their own copies), in MiB."""
import collections
import glob
import os
import sys

logs, cgroup, ranges = sys.argv[1:4]
MiB = 1 << 20
cg = []
for line in open(cgroup):
    f = line.split()
    kv = dict(x.split("=") for x in f[1:])
    cg.append((float(f[0]), {k: int(v) for k, v in kv.items()}))
rs = collections.defaultdict(lambda: [0, 0, 0, 0, 0])
for line in open(ranges):
    f = line.split()
    if len(f) == 7:
        for i in range(5):
            rs[float(f[0])][i] += int(f[2 + i])
print("| run | usage | unmapped cache | storage cache in maps | outside maps | under copies | samples |")
print("|---|---|---|---|---|---|---|")
for out in sorted(glob.glob(os.path.join(logs, "*.out"))):
    tag = os.path.basename(out)[:-4]
    if "bdmpi" not in tag:
        continue
    stamps = []
    for line in open(out):
        try:
            stamps.append(float(line.split()[0]))
        except (ValueError, IndexError):
            pass
    if not stamps:
        continue
    a, b = stamps[0], stamps[-1]
    c = [kv for t, kv in cg if a <= t <= b]
    r = [v for t, v in rs.items() if a <= t <= b]
    if not c:
        continue
    usage = sum(kv["usage"] for kv in c) / len(c) / MiB
    unmapped = sum(kv["cache"] - kv["mapped_file"] - kv["shmem"] for kv in c) / len(c) / MiB
    m = [sum(v[i] for v in r) / len(r) / MiB if r else 0 for i in range(5)]
    print(f"| {tag} | {usage:.0f} | {unmapped:.0f} | {m[2]:.0f} | {m[3]:.0f} | {m[4]:.0f} | {len(c)}, {len(r)} |")
