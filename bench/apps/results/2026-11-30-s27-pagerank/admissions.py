# Per resume of a debug trace (-v --log debug --log-categories disk,sched):
# what it was admitted on against what it added, by request and by
# whether the rank had been switched out since its last resume.
import re, sys, collections
released = collections.defaultdict(lambda: True)
pending = {}
rows = collections.defaultdict(list)
grown = collections.Counter()
for line in open(sys.argv[1]):
    m = re.search(r"switch out rank (\d+) ", line)
    if m: released[int(m.group(1))] = True; continue
    m = re.search(r"rank (\d+) resumed out of (\w+)(?: \([a-z ]+\))? on (\d+) of (\d+) bytes", line)
    if m:
        r = int(m.group(1))
        pending[r] = (m.group(2), "out" if released[r] else "resident", int(m.group(3)), int(m.group(4)))
        released[r] = False
        continue
    m = re.search(r"rank (\d+) touched \d+ bytes, more than", line)
    if m and int(m.group(1)) in pending:
        p = pending[int(m.group(1))]; grown[(p[0], p[1])] += 1; continue
    m = re.search(r"rank (\d+) added (\d+) bytes after a resume", line)
    if m and int(m.group(1)) in pending:
        p = pending.pop(int(m.group(1)))
        rows[(p[0], p[1])].append((p[2], int(m.group(2)), p[3]))
MB = 1e6
print("| resumed out of | from | resumes | on an estimate | admitted on MB (median, range) | added MB (median, range) | added more than admitted | counted larger while running |")
print("|---|---|---|---|---|---|---|---|")
for k in sorted(rows):
    v = rows[k]; est = [x for x in v if x[0] < x[2]]
    med = lambda a: sorted(a)[len(a)//2] if a else 0
    adm = [x[0] for x in est]; add = [x[1] for x in est]
    over = sum(1 for x in est if x[1] > x[0])
    print(f"| {k[0]} | {k[1]} | {len(v)} | {len(est)} | {med(adm)/MB:.1f} ({min(adm, default=0)/MB:.1f}-{max(adm, default=0)/MB:.1f}) | {med(add)/MB:.1f} ({min(add, default=0)/MB:.1f}-{max(add, default=0)/MB:.1f}) | {over} | {grown[k]} |")
