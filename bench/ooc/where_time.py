#!/usr/bin/env python3
"""Where the time of bench/ooc/run.sh's runs went, per iteration.

  where_time.py OUT_DIR [--data-mib M] [--limit-mib L]

Reads OUT_DIR/runs.tsv, OUT_DIR/io.tsv (the machine's disk traffic during
each run, /proc/vmstat pgpgin/pgpgout: other sessions' I/O included) and
the BDMPI runs' reports (logs/<app>.<label>.report.json) and prints, per
run, per iteration (the whole run's figures over its iterations, the
setup's included):

  disk read / written   the machine's, MiB per iteration
  read back             the ranks' eager and read-ahead reads (and a lazy
                        switch-in's reads of small blocks) plus 4 KiB per
                        major fault (lazy read-back), MiB per iteration
  written back          what the ranks wrote at switch-outs, MiB per
                        iteration (only dirty pages are written)
  spilled               message bytes that went to disk (master spill files
                        and the ranks' spill files), MiB per iteration
  switch-outs           per rank per iteration
  running / waiting     the ranks' summed seconds running (compute and lazy
                        faults) and waiting for memory (others' write-back),
                        and the seconds blocked, against the wall time
  CPU s                 user + system seconds of all the run's processes
                        (the master and ranks included), and each apart:
                        wall time beyond it and the I/O is waiting for a
                        core (other load); system time beyond the serial
                        program's is the runtime's faults, copies and I/O

The serial program reads its data once per iteration: its disk read per
iteration is the figure BDMPI's read back is set against. Prints markdown.
"""

import argparse
import json
import os
import re
import sys

MIB = 1 << 20


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    a = ap.parse_args()
    runs = []
    with open(os.path.join(a.out, "runs.tsv")) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) >= 14:
                runs.append({"app": c[0], "label": c[1], "status": c[2], "iters": c[3],
                             "per": c[6], "wall": c[8]})
    io = {}
    path = os.path.join(a.out, "io.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                c = line.rstrip("\n").split("\t")
                if len(c) == 4:
                    io[(c[0], c[1])] = (num(c[2]), num(c[3]))
    print("| app | run | s/iter | iters | disk read / written MiB/iter | read back MiB/iter (eager+ahead + faults) "
          "| ranks' disk reads / fresh MiB/iter | written back MiB/iter | spilled MiB/iter | switch-outs /rank/iter | running s | waiting memory s "
          "| blocked s | runnable s | CPU s (user + sys) | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        iters = num(r["iters"]) or 1
        din, dout = io.get((r["app"], r["label"]), (None, None))
        disk = "-" if din is None else f"{din / iters:.0f} / {dout / iters:.0f}"
        rep = None
        rp = os.path.join(a.out, "logs", f"{r['app']}.{r['label']}.report.json")
        if os.path.exists(rp):
            try:
                with open(rp) as f:
                    rep = json.load(f)
            except ValueError:
                rep = None
        cells = ["-"] * 9
        if rep and rep.get("ranks"):
            ranks = rep["ranks"]
            rb = sum(x.get("read_back_bytes", 0) for x in ranks)
            faults = sum(x.get("major_faults", 0) for x in ranks)
            # Reports before schema 7 have neither (then "-").
            dr = sum(x.get("disk_read_bytes", 0) for x in ranks)
            fr = sum(x.get("fresh_bytes", 0) for x in ranks)
            reads = (f"{dr / MIB / iters:.0f} / {fr / MIB / iters:.0f}"
                     if "disk_read_bytes" in ranks[0] else "-")
            wb = sum(x.get("written_back_bytes", 0) for x in ranks)
            sw = sum(x.get("switch_outs", 0) for x in ranks)
            spilled = sum(n.get("spill_bytes", 0) for n in rep.get("nodes", []))
            spilled += sum(x.get("sent", {}).get("spill_file", {}).get("bytes", 0) for x in ranks)
            secs = {}
            for x in ranks:
                for k, v in x.get("seconds", {}).items():
                    secs[k] = secs.get(k, 0.0) + v
            blocked = sum(v for k, v in secs.items() if k.startswith("blocked"))
            cells = [f"{(rb + 4096 * faults) / MIB / iters:.0f} ({rb / MIB / iters:.0f} + {4096 * faults / MIB / iters:.0f})",
                     reads, f"{wb / MIB / iters:.0f}", f"{spilled / MIB / iters:.0f}",
                     f"{sw / len(ranks) / iters:.2f}", f"{secs.get('running', 0):.1f}",
                     f"{secs.get('waiting_memory', 0):.1f}", f"{blocked:.1f}",
                     f"{secs.get('runnable', 0):.1f}"]
        cpu = "-"
        ep = os.path.join(a.out, "logs", f"{r['app']}.{r['label']}.err")
        if os.path.exists(ep):
            with open(ep, errors="replace") as f:
                lines = f.read().splitlines()
            m = re.match(r"^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$", lines[-1] if lines else "")
            if m:
                user = 60 * int(m[1]) + float(m[2])
                system = 60 * int(m[3]) + float(m[4])
                cpu = f"{user + system:.1f} ({user:.1f} + {system:.1f})"
        print(f"| {r['app']} | {r['label']} | {r['per']} | {r['iters']} | {disk} | " + " | ".join(cells) +
              f" | {cpu} | {r['wall']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
