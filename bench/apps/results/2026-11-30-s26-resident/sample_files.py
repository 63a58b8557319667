#!/usr/bin/env python3
"""sample_files.py OUT [PERIOD]: while a bench/apps/run.sh invocation runs,
every PERIOD seconds (default 0.2), per process of the newest
bdmpi-apps-<pid> memory cgroup: its RssAnon and RssFile and the page cache
(cachestat(2), Linux 6.5+) of the regular files it holds open, summed by
kind: "time pid comm anon file storage_cache other_cache" in bytes, where
storage_cache is the ranks' storage files (storage-*) and other_cache the
rest (the master's spill files, /dev/shm memory files included)."""
import ctypes
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


def cached(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return 0
    try:
        r, s = Range(0, 0), Stat()
        if libc.syscall(SYS_cachestat, fd, ctypes.byref(r), ctypes.byref(s), 0) != 0:
            return 0
        return s.cache * 4096
    finally:
        os.close(fd)


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
                comm = open(f"/proc/{pid}/comm").read().strip()
                status = open(f"/proc/{pid}/status").read().split("\n")
                rss = {l.split(":")[0]: int(l.split()[1]) * 1024 for l in status if l.startswith("Rss")}
                storage = other = 0
                done = set()
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    try:
                        target = os.readlink(f"/proc/{pid}/fd/{fd}")
                    except OSError:
                        continue
                    if not target.startswith("/") or target.startswith(("/proc", "/dev/null", "/dev/pts")) or target in done:
                        continue
                    done.add(target)
                    if not os.path.isfile(f"/proc/{pid}/fd/{fd}"):
                        continue
                    c = cached(f"/proc/{pid}/fd/{fd}")
                    if "/storage-" in target:
                        storage += c
                    else:
                        other += c
            except OSError:
                continue
            f.write(f"{now:.3f} {pid} {comm} {rss.get('RssAnon', 0)} {rss.get('RssFile', 0)} {storage} {other}\n")
        f.flush()
        time.sleep(period)
