# Switched-out resumes out of a request after each rank's first one of it
# (the first iteration's learning left out): admitted on vs added.
import re, sys, collections
released = collections.defaultdict(lambda: True); pending = {}; seen = collections.Counter()
out = collections.defaultdict(lambda: [0, 0, [], []])
for line in open(sys.argv[1]):
    m = re.search(r"switch out rank (\d+) ", line)
    if m: released[int(m.group(1))] = True; continue
    m = re.search(r"rank (\d+) resumed out of (\w+)(?: \([a-z ]+\))? on (\d+) of (\d+) bytes", line)
    if m:
        r = int(m.group(1)); pending[r] = (m.group(2), released[r], int(m.group(3))); released[r] = False; continue
    m = re.search(r"rank (\d+) added (\d+) bytes after a resume", line)
    if m and int(m.group(1)) in pending:
        r = int(m.group(1)); req, was_out, adm = pending.pop(r); added = int(m.group(2))
        if not was_out: continue
        seen[(r, req)] += 1
        if seen[(r, req)] <= 2: continue  # the setup's and the first iteration's
        o = out[req]; o[0] += 1; o[1] += added > adm; o[2].append(adm / 1e6); o[3].append(added / 1e6)
for req, (n, over, adm, add) in out.items():
    adm.sort(); add.sort()
    print(f"{req}: {n} switched-out resumes after each rank's first two; admitted on median {adm[n//2]:.1f} MB ({adm[0]:.1f}-{adm[-1]:.1f}); added median {add[n//2]:.1f} ({add[0]:.1f}-{add[-1]:.1f}); {over} added more than admitted")
