#!/usr/bin/env python3
"""Tables, ratios, I/O figures and the plot of bench/apps/run.sh.

Reads the runs (runs.tsv, one line per run) and the BDMPI runs' run reports
(--report=json, schema bdmpi-run-report/8) and writes table.md, runs.csv,
io.csv and plot.png (with gnuplot) to --out; prints table.md.

Where the time goes, per BDMPI run, per iteration of the application:
  written back   the bytes its ranks wrote back at switch-outs
  read back      bytes read back up front at switch-ins plus 4 KiB per major
                 page fault (lazy read-back), or what the ranks' processes
                 read from disk (disk_read_bytes) when that is more: with
                 large folios one fault reads megabytes around it
  lower bound    excess = sum of the ranks' storage peaks - the limit: what
                 cannot stay in memory. At a point where every rank must
                 have run since the last such point (a collective, or an
                 exchange that chains all ranks), each rank that is not
                 resident must be read back: with P such points per
                 iteration, read >= P x excess and, where the ranks change
                 what they touch between two points, written >= P x excess.
                 P is the application's (SYNC_POINTS, below). The I/O time
                 bound is P x (excess / read bandwidth + excess / write
                 bandwidth) at dd's figures; the CG solvers' matrices are
                 read-only, so their write bound is lower. The same count
                 bounds the switch-outs: P x excess / storage peaks per
                 rank per iteration (N - C of N ranks at each point, C the
                 ranks that fit).
  in memory      the reference run's time per iteration (Open MPI, no
                 limit, both cores): what is left after it is the price of
                 running out of core, to set against the I/O bound
  switch-outs    per rank per iteration
  seconds        the ranks' summed running time (compute plus lazy page
                 faults) and waiting_memory time (for others' write-back),
                 against the job's wall time
  overlapped     the time an iteration would take if all of its reads and
                 writes overlapped the computation: the larger of the
                 in-memory time and those bytes at dd's figures; against
                 mpirun's time per iteration, the most a BDMPI run moving
                 those bytes could gain over swap
  refaulted      the cgroup's workingset_refault_file and _anon over the run
                 (logs/<run>.memstat, run_in_cg): pages that the kernel's
                 reclaim evicted and a fault or read brought back, against
                 the read back above (pages the master's switch-outs drop
                 leave no trace to refault)
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time

FIELDS = ["app", "size", "mode", "rep", "param", "status", "wall_s", "solve_s",
          "iterations", "answer", "verified", "peak_mib", "swapin_mib",
          "swapout_mib", "report", "diskin_mib", "diskout_mib", "setup_s", "progress_iters",
          "progress_s_iter", "progress_bound", "io_iters"]
MIB = 1 << 20

# Points per iteration where every rank must have run since the last one,
# each rank having touched (nearly) all its storage-backed data in between,
# as the programs run here (bench/apps/run.sh's arguments):
#   lulesh    4 per cycle: the time step's allreduce, and three exchanges that
#             reach every other rank on 2 x 2 x 2 ranks (the 26 neighbours)
#             or chain them all: the nodal forces, positions and velocities,
#             the velocity gradients (monotonic Q); each follows a sweep of
#             the nodal or element arrays. With room for C of N ranks no
#             schedule reads fewer than 4 (N - C) ranks a cycle.
#   comd      2 per step with -n 1 (energies printed every step): the atom
#             redistribution's x, y, z exchanges chain all ranks after each
#             advanced its atoms, and the energies' allreduce follows the
#             force computation over all of them.
#   minife    1 per CG iteration: the matrix, most of a rank's data, is read
#             once, by the matrix-vector product; the dot products'
#             allreduces in between touch vectors only.
#   hpcg      4 per CG iteration: its multigrid preconditioner sweeps the
#             fine level's matrix in the pre-smoother, the residual's
#             matrix-vector product and the post-smoother, and CG's own
#             product sweeps it once more, each sweep followed by a halo
#             exchange that on 2 x 2 x 2 ranks reaches all of them. The
#             coarse levels (1/8, 1/64, 1/512 of the rows, 3, 3 and 1
#             exchanges) add less than half a sweep; not counted.
#   graph500  1 per BFS, a conservative count: each BFS reads every rank's
#             part of the graph at least once; its per-level collectives are
#             not counted, a level touching only part of it.
SYNC_POINTS = {"lulesh": 4, "comd": 2, "minife": 1, "hpcg": 4, "graph500": 1}


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def load_runs(path):
    runs = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            parts += [""] * (len(FIELDS) - len(parts))
            runs.append(dict(zip(FIELDS, parts)))
    return runs


def memstat_delta(run, logs):
    """The cgroup's memory.stat counters over a run (after - before), or {}."""
    tag = f"{run['app']}.{run['size']}.{run['mode']}.{run['rep']}"
    out = {}
    try:
        with open(os.path.join(logs, tag + ".memstat")) as f:
            for line in f:
                k, before, after = line.split()
                out[k] = int(after) - int(before)
    except (OSError, ValueError):
        return {}
    return out


def io_of(run, logs, limit, iters_fallback):
    """I/O figures of a BDMPI run from its report, or None."""
    if not run["report"]:
        return None
    path = os.path.join(logs, run["report"])
    try:
        with open(path) as f:
            rep = json.load(f)
    except (OSError, ValueError):
        return None
    ranks = rep.get("ranks", [])
    if not ranks:
        return None
    if num(run.get("io_iters")):
        # Every iteration the run did, where the timed ones are a part
        # (HPCG: all its CG iterations, the timed set being 50 of them).
        iters = num(run["io_iters"])
    elif run["status"] == "capped":
        # What a capped run did: the iterations its progress lines timed
        # (its setup's I/O included), else the whole run as one.
        iters = num(run.get("progress_iters")) or 1
    else:
        iters = num(run["iterations"]) or iters_fallback or 1
    wb = sum(r.get("written_back_bytes", 0) for r in ranks)
    rb = sum(r.get("read_back_bytes", 0) for r in ranks)
    faults = sum(r.get("major_faults", 0) for r in ranks)
    # What the ranks' processes read from disk (schema 7): the lazy reads
    # that major faults miss where one fault reads megabytes (large folios).
    disk_read = sum(r.get("disk_read_bytes", 0) for r in ranks)
    peak = sum(r.get("storage_peak_bytes", 0) for r in ranks)
    sw = sum(r.get("switch_outs", 0) for r in ranks)
    secs = {}
    for r in ranks:
        for k, v in r.get("seconds", {}).items():
            secs[k] = secs.get(k, 0.0) + v
    running = rep.get("nodes", [{}])[0].get("running", {})
    ms = memstat_delta(run, logs)
    return {
        "refault_file_mib_it": ms["workingset_refault_file"] * 4096 / MIB / iters
        if "workingset_refault_file" in ms else None,
        "refault_anon_mib_it": ms["workingset_refault_anon"] * 4096 / MIB / iters
        if "workingset_refault_anon" in ms else None,
        "cg_majfaults_it": ms["pgmajfault"] / iters if "pgmajfault" in ms else None,
        "iters": iters,
        "written_mib_it": wb / MIB / iters,
        "read_mib_it": max(rb + 4096 * faults, disk_read) / MIB / iters,
        "eager_read_mib_it": rb / MIB / iters,
        "faults_it": faults / iters,
        "storage_peak_mib": peak / MIB,
        "excess_mib": max(0.0, (peak - limit) / MIB),
        "switch_outs_rank_it": sw / len(ranks) / iters,
        "running_s": secs.get("running", 0.0),
        "waiting_memory_s": secs.get("waiting_memory", 0.0),
        "runnable_s": secs.get("runnable", 0.0),
        "blocked_s": sum(v for k, v in secs.items() if k.startswith("blocked")),
        "wall_s": rep.get("wall_s", 0.0),
        "nr": running.get("limit", "-"),
        "running_by_count": running.get("seconds", []),
        "held_for_memory_s": running.get("held_for_memory_s", 0.0),
        "partial": rep.get("partial", False),
        # The node budget over the run (schema 8): least, most, mean.
        "budget": rep.get("nodes", [{}])[0].get("budget"),
    }


def budget_mib(f, key):
    """One figure of the node budget in MiB, "" before schema 8."""
    b = f.get("budget")
    return f"{b[key] / MIB:.0f}" if b else ""


def budget_text(f):
    """The node budget's range: "120" fixed, "120-180, 158" where it moved."""
    b = f.get("budget")
    if not b:
        return "-"
    if b["least_bytes"] == b["most_bytes"]:
        return f"{b['most_bytes'] / MIB:.0f}"
    return (f"{b['least_bytes'] / MIB:.0f}-{b['most_bytes'] / MIB:.0f}, "
            f"{b['mean_bytes'] / MIB:.0f}")


def agrees(a, b, tol):
    """tol is (relative, floor): values both below floor in magnitude agree
    (rounding-level residuals)."""
    tol, floor = tol
    if a == b:
        return True
    x, y = num(a), num(b)
    if x is None or y is None:
        return False
    if abs(x) < floor and abs(y) < floor:
        return True
    if tol == 0:
        return x == y
    return abs(x - y) <= tol * max(abs(x), abs(y))


def fmt(v, digits=2):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    return f"{v:.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--limit", type=float, required=True)
    ap.add_argument("--dd-write", type=float, required=True)
    ap.add_argument("--dd-read", type=float, required=True)
    ap.add_argument("--dd-mib", type=float, required=True)
    ap.add_argument("--cap", type=float, required=True)
    ap.add_argument("--tolerances", default="")
    ap.add_argument("--header", default="")
    a = ap.parse_args()

    tol = {}
    for item in a.tolerances.split(","):
        if "=" in item:
            k, v = item.split("=", 1)
            rel, _, floor = v.partition(":")
            tol[k] = (float(rel), float(floor) if floor else 0.0)
    write_bw = a.dd_mib / a.dd_write  # MiB/s
    read_bw = a.dd_mib / a.dd_read
    logs = os.path.join(a.out, "logs")
    runs = load_runs(a.records)

    # Time of a run: the application's own timer of its solve phase (wall
    # time when it printed none), a lower bound when capped.
    def time_of(r):
        t = num(r["solve_s"])
        if r["status"] == "capped" or t is None:
            return num(r["wall_s"]), r["status"] == "capped"
        return t, False

    def mean_time(app, size, mode, wall=False):
        ts = [(num(r["wall_s"]), r["status"] == "capped") if wall else time_of(r)
              for r in runs if (r["app"], r["size"], r["mode"]) == (app, size, mode)
              and (r["status"] == "ok" or r["status"] == "capped")]
        if not ts:
            return None, False
        return sum(t for t, _ in ts) / len(ts), any(c for _, c in ts)

    def ratio(app, size, num_mode, den_mode):
        # Against a capped run only wall times compare (a capped run printed
        # no solve time; its wall time includes the setup).
        _, cn = mean_time(app, size, num_mode)
        _, cd = mean_time(app, size, den_mode)
        tn, cn = mean_time(app, size, num_mode, wall=cn or cd)
        td, cd = mean_time(app, size, den_mode, wall=cn or cd)
        if tn is None or td is None or td == 0:
            return "n/a"
        r = f"{tn / td:.2f}"
        if cn and cd:
            return "? (both capped)"
        return ("> " if cn else "< " if cd else "") + r

    ref = {}
    for r in runs:
        if r["mode"] == "ref" and r["status"] == "ok":
            ref[(r["app"], r["size"])] = r["answer"]

    lines = ["# Proxy applications in and out of core, "
             + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), ""]
    lines += [h for h in a.header.split("\n") if h] + [""]
    lines.append("Every run: 8 ranks, CoMD 16. `ref` is Open MPI's mpirun without a memory limit (the "
                 "in-memory answer); the others run in the cgroup. Times are the application's "
                 "own timer of its solve phase (LULESH elapsed, CoMD loop, miniFE total CG, HPCG "
                 "benchmark total), the wall time when a run was capped (then a lower bound).")
    lines.append("")
    lines.append("| app | size (param) | mode | rep | status | solve (s) | wall (s) | iterations | "
                 "answer | agrees with ref | peak cgroup (MiB) | swap in / out (MiB) |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    disagree = 0
    for r in runs:
        key = (r["app"], r["size"])
        if r["status"] != "ok":
            ag = "-"
        elif key not in ref:
            ag = "no ref"
        elif agrees(r["answer"], ref[key], tol.get(r["app"], (1e-9, 0.0))):
            ag = "yes"
        else:
            ag = "**NO**"
            disagree += 1
        st = r["status"] if r["status"] != "capped" else f"> cap ({a.cap:.0f} s)"
        lines.append(f"| {r['app']} | {r['size']} ({r['param']}) | {r['mode']} | {r['rep']} | {st} | "
                     f"{r['solve_s']} | {r['wall_s']} | {r['iterations']} | {r['answer']} | {ag} | "
                     f"{r['peak_mib']} | {r['swapin_mib']} / {r['swapout_mib']} |")
    lines.append("")

    apps = list(dict.fromkeys(r["app"] for r in runs))
    sizes = list(dict.fromkeys(r["size"] for r in runs))
    lines.append("Ratios of solve times (mean over repeats; of wall times where a run was capped: "
                 "\"> x\" when the numerator was capped, \"< x\" when the denominator was; above 1 "
                 "the denominator is faster):")
    lines.append("")
    lines.append("| app | size | ref peak memory / limit | mpirun / bdmpi | mpirun / bdmpi-best | "
                 "bdmpi / bdmpi-best | bdmpi / ref | bdmpi-best / ref |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for app in apps:
        for size in sizes:
            rp = [num(r["peak_mib"]) for r in runs if (r["app"], r["size"], r["mode"]) == (app, size, "ref")]
            factor = f"{rp[0] * MIB / a.limit:.2f}" if rp and rp[0] else "-"
            lines.append(f"| {app} | {size} | {factor} | {ratio(app, size, 'mpirun', 'bdmpi')} | "
                         f"{ratio(app, size, 'mpirun', 'bdmpi-best')} | "
                         f"{ratio(app, size, 'bdmpi', 'bdmpi-best')} | {ratio(app, size, 'bdmpi', 'ref')} | "
                         f"{ratio(app, size, 'bdmpi-best', 'ref')} |")
    lines.append("")

    # Progress lines: comparable also where runs were capped.
    prog = [r for r in runs if r["progress_bound"] in ("exact", "lower")]

    def prog_of(app, size, mode, rep=None):
        # The run of the same round where there is one (the load of the
        # moment weighs on both), else the first.
        alike = [r for r in prog if (r["app"], r["size"], r["mode"]) == (app, size, mode)]
        same = [r for r in alike if r["rep"] == rep] or alike
        if not same:
            return None, False
        return num(same[0]["progress_s_iter"]), same[0]["progress_bound"] == "lower"

    if prog:
        lines.append("From the time stamps of the lines the programs print as they go (LULESH `-p`: "
                     "every cycle; CoMD: every step; miniFE: every 20 CG iterations; HPCG: every CG iteration, "
                     "from its log): "
                     "the setup (to the first such line) and the time per iteration after it; "
                     "\"> x\" where the run was capped before its next line (a lower bound).")
        lines.append("")
        lines.append("| app | size | mode | rep | setup (s) | iterations timed | s/iter | "
                     "mpirun / this (s/iter) | this / ref (s/iter) | mpirun / this (setup) |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|")

        def pratio(a_, b_):
            (ta, la), (tb, lb) = a_, b_
            if ta is None or tb is None or tb == 0:
                return "n/a"
            if la and lb:
                return "? (both capped)"
            return ("> " if la else "< " if lb else "") + f"{ta / tb:.2f}"

        for r in prog:
            key = (r["app"], r["size"])
            this = (num(r["progress_s_iter"]), r["progress_bound"] == "lower")
            mp = (pratio(prog_of(*key, "mpirun", r["rep"]), this)
                  if r["mode"] not in ("mpirun", "ref") else "-")
            rf = pratio(this, prog_of(*key, "ref")) if r["mode"] != "ref" else "-"
            setups = [num(x["setup_s"]) for x in prog if (x["app"], x["size"], x["mode"]) == (*key, "mpirun")]
            ms = (f"{setups[0] / num(r['setup_s']):.2f}"
                  if r["mode"] not in ("mpirun", "ref") and setups and setups[0] and num(r["setup_s"])
                  else "-")
            lines.append(f"| {r['app']} | {r['size']} | {r['mode']} | {r['rep']} | {r['setup_s']} | "
                         f"{r['progress_iters']} | {('> ' if this[1] else '') + fmt(this[0])} | {mp} | {rf} | "
                         f"{ms} |")
        lines.append("")

    # Where the time goes.
    io_rows = []
    refault_lines = []
    overlap_lines = []
    lines.append(f"Where the time goes (BDMPI runs, from the run report; per iteration of the "
                 f"application; disk: write {write_bw:.0f} MiB/s, read {read_bw:.0f} MiB/s by dd). "
                 "`excess` = the ranks' storage peaks minus the limit, what cannot stay resident; "
                 "`P` = the points per iteration where every rank must have run (SYNC_POINTS in "
                 "io_figures.py): the lower bound reads and writes P x excess per iteration, and "
                 "switches each rank out P x excess / peaks times.")
    lines.append("")
    lines.append("| app | size | mode | -nr | per | P | switch-outs / rank / iter | switch-outs / bound | "
                 "written back (MiB/iter) | "
                 "read back (MiB/iter: the ranks' disk reads, or eager + 4 KiB x faults if more; (eager + faults)) | excess (MiB) | written / bound | "
                 "read / bound | disk read / written (MiB/iter, whole machine) | I/O bound (s/iter) | "
                 "measured (s/iter) | in memory (ref, s/iter) | (measured - in memory) / bound | "
                 "running (s, all ranks) | waiting for memory (s) | wall (s) | "
                 "s with 0, 1, ... ranks running | slots' time waiting for memory / held for it |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        if not r["report"]:
            continue
        f = io_of(r, logs, a.limit, None)
        if f is None:
            continue
        t, capped = time_of(r)
        # The solve timer's own iterations (HPCG's timed set, not all it did).
        per_it = t / (num(r["iterations"]) or f["iters"]) if t is not None else None
        if capped:
            per = f"{f['iters']:.0f} iterations (capped)" if f["iters"] > 1 else "whole run (capped)"
            p_it = num(r.get("progress_s_iter"))
            per_it = p_it if p_it is not None and f["iters"] > 1 else None
        else:
            per = "iteration"
        ex = f["excess_mib"]
        points = SYNC_POINTS.get(r["app"], 1)
        bound = points * (ex / read_bw + ex / write_bw)
        wr = f["written_mib_it"] / (points * ex) if ex > 0 else None
        rr = f["read_mib_it"] / (points * ex) if ex > 0 else None
        sw_bound = points * ex / f["storage_peak_mib"] if f["storage_peak_mib"] > 0 else 0.0
        swr = f["switch_outs_rank_it"] / sw_bound if sw_bound > 0 else None
        refs = [r2 for r2 in runs if (r2["app"], r2["size"], r2["mode"]) == (r["app"], r["size"], "ref")
                and r2["status"] == "ok" and num(r2["solve_s"]) is not None]
        ref_it = (num(refs[0]["solve_s"]) / (num(refs[0]["iterations"]) or f["iters"])) if refs else None
        mb = ((per_it - ref_it) / bound
              if per_it is not None and ref_it is not None and bound > 0 else None)
        # Its own bytes at dd's figures, and the iteration if they all
        # overlapped the computation.
        own_io = f["read_mib_it"] / read_bw + f["written_mib_it"] / write_bw
        overlapped = max(own_io, ref_it) if ref_it is not None else None
        swap_it, swap_lower = prog_of(r["app"], r["size"], "mpirun", r["rep"])
        swap_gain = ("-" if swap_it is None or not overlapped else
                     ("> " if swap_lower else "") + f"{swap_it / overlapped:.2f}")
        overlap_lines.append(
            f"| {r['app']} | {r['size']} | {r['mode']} | {r['rep']} | {fmt(own_io)} | {fmt(ref_it)} | "
            f"{fmt(overlapped)} | {fmt(per_it)} | "
            f"{('> ' if swap_lower else '') + fmt(swap_it) if swap_it is not None else '-'} | "
            f"{swap_gain} |")
        din, dout = num(r["diskin_mib"]), num(r["diskout_mib"])
        disk = (f"{din / f['iters']:.0f} / {dout / f['iters']:.0f}"
                if din is not None and dout is not None else "-")
        # The slots' time: -nr slots over the wall time, of which the ranks
        # that hold one wait for others' write-back, or -nr auto keeps one
        # free for memory.
        slots = f["nr"] * f["wall_s"] if isinstance(f["nr"], int) and f["wall_s"] > 0 else 0
        by_count = ", ".join(f"{x:.1f}" for x in f["running_by_count"]) or "-"
        slot_share = (f"{f['waiting_memory_s'] / slots:.2f} / {f['held_for_memory_s'] / f['wall_s']:.2f}"
                      if slots else "-")
        lines.append(
            f"| {r['app']} | {r['size']} | {r['mode']} | {f['nr']} | {per} | {points} | "
            f"{fmt(f['switch_outs_rank_it'])} | {fmt(swr)} | "
            f"{fmt(f['written_mib_it'], 0)} | {fmt(f['read_mib_it'], 0)} ({fmt(f['eager_read_mib_it'], 0)} + "
            f"{fmt(f['faults_it'] * 4096 / MIB, 0)}) | {fmt(ex, 0)} | {fmt(wr)} | {fmt(rr)} | {disk} | {fmt(bound)} | "
            f"{fmt(per_it)} | {fmt(ref_it)} | {fmt(mb)} | "
            f"{fmt(f['running_s'], 1)} | {fmt(f['waiting_memory_s'], 1)} | {fmt(f['wall_s'], 1)} | "
            f"{by_count} | {slot_share} |")
        io_rows.append({"app": r["app"], "size": r["size"], "mode": r["mode"], "rep": r["rep"],
                        "nr": f["nr"], "sync_points": points,
                        "switch_outs_rank_iter": f"{f['switch_outs_rank_it']:.3f}",
                        "switch_outs_bound": f"{sw_bound:.3f}",
                        "written_mib_iter": f"{f['written_mib_it']:.1f}",
                        "read_mib_iter": f"{f['read_mib_it']:.1f}",
                        "eager_read_mib_iter": f"{f['eager_read_mib_it']:.1f}",
                        "major_faults_iter": f"{f['faults_it']:.0f}",
                        "storage_peak_mib": f"{f['storage_peak_mib']:.0f}", "excess_mib": f"{ex:.0f}",
                        "disk_read_mib_iter": "" if din is None else f"{din / f['iters']:.1f}",
                        "disk_written_mib_iter": "" if dout is None else f"{dout / f['iters']:.1f}",
                        "io_bound_s_iter": f"{bound:.3f}",
                        "own_io_s_iter": f"{own_io:.3f}",
                        "overlapped_s_iter": "" if overlapped is None else f"{overlapped:.3f}",
                        "measured_s_iter": "" if per_it is None else f"{per_it:.3f}",
                        "in_memory_s_iter": "" if ref_it is None else f"{ref_it:.3f}",
                        "capped": int(capped), "running_s": f"{f['running_s']:.2f}",
                        "waiting_memory_s": f"{f['waiting_memory_s']:.2f}",
                        "runnable_s": f"{f['runnable_s']:.2f}", "blocked_s": f"{f['blocked_s']:.2f}",
                        "wall_s": f"{f['wall_s']:.2f}",
                        "running_by_count_s": " ".join(f"{x:.2f}" for x in f["running_by_count"]),
                        "held_for_memory_s": f"{f['held_for_memory_s']:.2f}",
                        "refault_file_mib_iter": fmt(f["refault_file_mib_it"], 1),
                        "refault_anon_mib_iter": fmt(f["refault_anon_mib_it"], 1),
                        "cgroup_major_faults_iter": fmt(f["cg_majfaults_it"], 0),
                        "budget_least_mib": budget_mib(f, "least_bytes"),
                        "budget_most_mib": budget_mib(f, "most_bytes"),
                        "budget_mean_mib": budget_mib(f, "mean_bytes")})
        if f["refault_file_mib_it"] is not None:
            refault_lines.append(
                f"| {r['app']} | {r['size']} | {r['mode']} | {per} | {fmt(f['read_mib_it'], 0)} | "
                f"{fmt(f['eager_read_mib_it'], 0)} | {fmt(f['refault_file_mib_it'], 0)} | "
                f"{fmt(f['refault_anon_mib_it'], 0)} | "
                f"{fmt(f['refault_file_mib_it'] / f['read_mib_it'] if f['read_mib_it'] > 0 else None)} | "
                f"{fmt(f['cg_majfaults_it'], 0)} | {fmt(f['faults_it'], 0)} | "
                f"{fmt(din / f['iters'], 0) if din is not None else '-'} | "
                f"{budget_text(f)} |")
    lines.append("")
    if overlap_lines:
        lines.append("If the I/O overlapped the computation (BDMPI runs, per iteration): the bytes "
                     "each run read and wrote back at dd's figures, the in-memory time, the larger "
                     "of the two (what an iteration would take if all of its I/O overlapped the "
                     "computation), the measured time, and `mpirun`'s with swap (the same round's, "
                     "from its progress lines; \"> x\" where it was capped): the last column is about "
                     "the most a run moving these bytes could gain over swap. dd's figures are one "
                     "stream's: several readers at once can read faster (a measured time below the "
                     "overlapped one).")
        lines.append("")
        lines.append("| app | size | mode | rep | own I/O at dd's figures (s/iter) | in memory (s/iter) | "
                     "overlapped (s/iter) | measured (s/iter) | mpirun with swap (s/iter) | "
                     "mpirun / overlapped |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|")
        lines += overlap_lines
        lines.append("")
    if refault_lines:
        lines.append("Reclaim in the cgroup (memory.stat over the run, per iteration): `refaulted` = "
                     "pages the kernel evicted and a fault or read brought back (4 KiB each); "
                     "the master's switch-outs drop pages without leaving a trace to refault.")
        lines.append("")
        lines.append("| app | size | mode | per | read back (MiB/iter) | eager read back (MiB/iter) | "
                     "refaulted file (MiB/iter) | refaulted anon (MiB/iter) | refaulted file / read back | "
                     "major faults (cgroup, /iter) | major faults (ranks, /iter) | disk read (MiB/iter, whole machine) | "
                     "node budget (MiB: least-most, mean over time) |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        lines += refault_lines
        lines.append("")
    if disagree:
        lines.append(f"**{disagree} run(s) gave an answer different from the in-memory reference.**")
        lines.append("")

    with open(os.path.join(a.out, "table.md"), "w") as fo:
        fo.write("\n".join(lines) + "\n")
    with open(os.path.join(a.out, "runs.csv"), "w", newline="") as fo:
        w = csv.writer(fo)
        w.writerow(FIELDS)
        for r in runs:
            w.writerow([r[k] for k in FIELDS])
    if io_rows:
        with open(os.path.join(a.out, "io.csv"), "w", newline="") as fo:
            w = csv.DictWriter(fo, fieldnames=list(io_rows[0].keys()))
            w.writeheader()
            w.writerows(io_rows)

    # Plot: per app and size, each mode's solve time (bars, log scale).
    if shutil.which("gnuplot"):
        modes = ["ref", "bdmpi", "bdmpi-best", "mpirun"]
        dat = os.path.join(a.out, "plot.dat")
        with open(dat, "w") as fo:
            fo.write("case " + " ".join(modes) + "\n")
            for app in apps:
                for size in sizes:
                    vals = []
                    for m in modes:
                        t, _ = mean_time(app, size, m)
                        vals.append("-" if t is None else f"{t:.3f}")
                    fo.write(f"{app}-{size} " + " ".join(vals) + "\n")
        gp = f"""set terminal pngcairo size 1100,520 font ',10'
set output '{os.path.join(a.out, 'plot.png')}'
set title 'Proxy apps, 8 ranks (CoMD 16): solve time (s, log); limit {a.limit / MIB:.0f} MiB; capped runs at the cap'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set datafile missing '-'
set logscale y
set ylabel 'seconds'
set xtics rotate by -30
set key top left
set grid ytics
plot for [i=2:{len(modes) + 1}] '{dat}' using i:xtic(1) title columnheader
"""
        r = subprocess.run(["gnuplot"], input=gp, text=True, capture_output=True)
        if r.returncode != 0:
            print("warning: gnuplot failed: " + r.stderr[:300], file=sys.stderr)
        os.remove(dat)
    print("\n".join(lines))
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
