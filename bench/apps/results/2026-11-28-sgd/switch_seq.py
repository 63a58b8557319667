#!/usr/bin/env python3
"""Switch-outs and resumes of a job, from bdmprun's debug log.

Reads the lines of `--log debug --log-categories sched` (BDMPI_LOG=debug
BDMPI_LOG_CATEGORIES=sched) and prints, per log file, how many resumes
there were, how many of them resumed a rank switched out since it last ran
(its data to be read back as it touches it), and the sequence: Rn a resume
of rank n (Rn* one switched out), -n the switch-out of rank n.
"""
import re
import sys

for path in sys.argv[1:]:
    out, seq, resumes, switched = set(), [], 0, 0
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"switch out rank (\d+)", line)
            if m:
                out.add(int(m.group(1)))
                seq.append("-" + m.group(1))
                continue
            m = re.search(r"\] resume rank (\d+)", line)
            if m:
                rank = int(m.group(1))
                resumes += 1
                if rank in out:
                    switched += 1
                    out.discard(rank)
                    seq.append(f"R{rank}*")
                else:
                    seq.append(f"R{rank}")
    print(f"{path}: {resumes} resumes, {switched} of switched-out ranks")
    print(" ".join(seq))
