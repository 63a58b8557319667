#!/usr/bin/env python3
"""sample_ranges.py OUT [PERIOD]: while a bench/apps/run.sh invocation runs,
every PERIOD seconds (default 0.2), per rank of the newest bdmpi-apps-<pid>
memory cgroup: the page cache of its storage file (cachestat(2)), split into
what lies in the file ranges its mappings map from the file now ("in_maps":
pages it reads, pages read ahead of it within those blocks, file copies of
pages it wrote) and the rest ("outside": read-ahead past the end of a
file-mapped range into blocks mapped anonymous, holes, freed ranges), and
of the in_maps part, the pages under the rank's own (anonymous) copies of
file pages ("copies", pagemap); and its RssAnon and RssFile. Lines
"time pid anon file in_maps outside copies" (bytes). Needs root (pagemap)."""
import ctypes
import struct
import glob
import os
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)
SYS_cachestat = 451


class Range(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]


class Stat(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in
                ("cache", "dirty", "writeback", "evicted", "recently_evicted")]


def cached(fd, off=0, length=0):
    r, s = Range(off, length), Stat()
    if libc.syscall(SYS_cachestat, fd, ctypes.byref(r), ctypes.byref(s), 0) != 0:
        return 0
    return s.cache * 4096


def sample(pid):
    status = open(f"/proc/{pid}/status").read().split("\n")
    rss = {l.split(":")[0]: int(l.split()[1]) * 1024 for l in status if l.startswith("Rss")}
    ranges, vmas = [], []
    for line in open(f"/proc/{pid}/maps"):
        parts = line.split()
        if len(parts) < 6 or "/storage-" not in parts[5]:
            continue
        start, end = (int(x, 16) for x in parts[0].split("-"))
        off = int(parts[2], 16)
        ranges.append((off, off + end - start))
        vmas.append((start, end, off))
    # Runs of file offsets under anonymous pages of the file mappings.
    anon_runs = []
    with open(f"/proc/{pid}/pagemap", "rb") as pm:
        for start, end, off in vmas:
            n = (end - start) // 4096
            pm.seek(start // 4096 * 8)
            data = pm.read(n * 8)
            entries = struct.unpack(f"{len(data) // 8}Q", data)
            run = None
            for i, e in enumerate(entries):
                anon = (e >> 63) & 1 and not (e >> 61) & 1
                if anon and run is None:
                    run = i
                elif not anon and run is not None:
                    anon_runs.append((off + run * 4096, (i - run) * 4096))
                    run = None
            if run is not None:
                anon_runs.append((off + run * 4096, (len(entries) - run) * 4096))
    fd_path = None
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if "/storage-" in os.readlink(f"/proc/{pid}/fd/{fd}"):
                fd_path = f"/proc/{pid}/fd/{fd}"
                break
        except OSError:
            pass
    if fd_path is None:
        return None
    fd = os.open(fd_path, os.O_RDONLY)
    try:
        total = cached(fd)
        ranges.sort()
        merged = []
        for a, b in ranges:
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        inside = sum(cached(fd, a, b - a) for a, b in merged)
        copies = sum(cached(fd, a, n) for a, n in anon_runs)
    finally:
        os.close(fd)
    return rss.get("RssAnon", 0), rss.get("RssFile", 0), inside, total - inside, copies


out, period = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 0.2
seen = False
with open(out, "a") as f:
    while True:
        cgs = glob.glob("/sys/fs/cgroup/memory/bdmpi-apps-[0-9]*")
        if not cgs:
            if seen:
                break
            time.sleep(period)
            continue
        seen = True
        now = time.time()
        try:
            pids = open(cgs[0] + "/cgroup.procs").read().split()
        except OSError:
            continue
        for pid in pids:
            try:
                s = sample(pid)
            except OSError:
                continue
            if s is not None:
                f.write(f"{now:.2f} {pid} {s[0]} {s[1]} {s[2]} {s[3]} {s[4]}\n")
        f.flush()
        time.sleep(period)
