#!/usr/bin/env python3
"""Sums up a graph500-cgroup-run.sh result: construction, BFS and validation means, and the report's I/O per rank."""
import json, re, sys, statistics as st
for prefix in sys.argv[1:]:
    err = open(prefix + '.err').read()
    bfs = [float(x) for x in re.findall(r'Time for BFS \d+ is ([\d.]+)', err)]
    val = [float(x) for x in re.findall(r'Validate time for BFS \d+ is ([\d.]+)', err)]
    con = re.findall(r'construction_time:\s+([\d.]+)', err)
    line = f"{prefix.split('/')[-1]}: CSR {con[0] if con else '-'} s, BFS n={len(bfs)} mean={st.mean(bfs) if bfs else 0:.2f}, val n={len(val)} mean={st.mean(val) if val else 0:.2f}"
    try:
        d = json.load(open(prefix + '.report.json'))
        rs = d['ranks']
        so = sum(r['switch_outs'] for r in rs); rb = sum(r['read_back_bytes'] for r in rs)
        dr = sum(r['disk_read_bytes'] for r in rs); wb = sum(r['written_back_bytes'] for r in rs)
        mf = sum(r['major_faults'] for r in rs)
        line += f" | switch_outs={so} written_back={wb/2**30:.1f}G read_back={rb/2**30:.1f}G disk_read={dr/2**30:.1f}G majflt={mf} disk_read/switch_out={dr/max(so,1)/2**20:.1f}MiB"
    except Exception as e:
        line += f" | no report ({e})"
    print(line)
