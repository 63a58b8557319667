#!/usr/bin/env python3
"""CoMD trace (bdmprun --log debug --log-categories sched,disk, plus the
temporary 'TRACE rank R blocks in CALL' line): per resume, the point it was
resumed out of (allreduce, the exchange's face by partner, ...), whether the
rank was switched out while it waited, and what it added after."""
import re, sys, collections

NX, NY, NZ = 4, 2, 2
def face(rank, src):
    if src == (rank ^ 4): return 'y'
    if src == (rank ^ 8): return 'z'
    ix = rank % NX
    if src == rank - ix + (ix + 1) % NX: return 'x1'   # first Sendrecv: from P
    if src == rank - ix + (ix - 1) % NX: return 'x2'
    return '?'

re_block = re.compile(r'TRACE rank (\d+) blocks in (.*)')
re_resume = re.compile(r'\] resume rank (\d+)$')
re_out = re.compile(r'rank (\d+) resumed out of (\S+) on (\d+) of (\d+) bytes')
re_added = re.compile(r'rank (\d+) added (\d+) bytes after a resume out of (\S+)')
re_switch = re.compile(r'switch out rank (\d+) \((\w+), (\d+) bytes(, woken soon(?: by a running rank)?)?, stopped ([-\d.]+) ms ago\) for rank (\d+)')
re_grown = re.compile(r'rank (\d+) touched (\d+) bytes, more than')
re_src = re.compile(r'source (-?\d+)')

last_block = {}
switched = collections.defaultdict(bool)
pending = {}   # rank -> resume record awaiting 'added'
resumes = []
switches = []
for line in open(sys.argv[1], errors='replace'):
    line = line.rstrip('\n')
    m = re_block.search(line)
    if m:
        r = int(m.group(1)); call = m.group(2)
        ms = re_src.search(call)
        if 'Sendrecv' in call or 'Recv' in call:
            kind = 'face ' + (face(r, int(ms.group(1))) if ms else '?')
        else:
            kind = call.split('(')[0]
        last_block[r] = kind
        continue
    m = re_switch.search(line)
    if m:
        v = int(m.group(1))
        switched[v] = True
        switches.append(dict(victim=v, state=m.group(2), bytes=int(m.group(3)),
                             soon=bool(m.group(4)), point=last_block.get(v, '?'),
                             forr=int(m.group(6)), for_point=last_block.get(int(m.group(6)), '?')))
        continue
    m = re_resume.search(line)
    if m:
        r = int(m.group(1))
        rec = dict(rank=r, point=last_block.get(r, 'start'), switched=switched[r], added=None)
        resumes.append(rec); pending[r] = rec
        switched[r] = False
        continue
    m = re_added.search(line)
    if m:
        r = int(m.group(1))
        if r in pending and pending[r]['added'] is None:
            pending[r]['added'] = int(m.group(2))
        continue

MB = 1e6
def bucket(a):
    if a is None: return 'n/a'
    if a < 3*MB: return '<3'
    if a < 20*MB: return '3-20'
    if a < 45*MB: return '20-45'
    return '>=45'
tab = collections.Counter(); tot = collections.Counter()
for r in resumes:
    k = (r['point'], r['switched'])
    tab[k, bucket(r['added'])] += 1
    tot[k] += (r['added'] or 0)
pts = sorted({k for (k, b) in tab})
print('| point | switched out while waiting | resumes | <3 MB | 3-20 | 20-45 | >=45 | n/a | added (MB) |')
print('|---|---|---|---|---|---|---|---|---|')
for k in pts:
    row = [tab[k, b] for b in ('<3', '3-20', '20-45', '>=45', 'n/a')]
    print(f'| {k[0]} | {k[1]} | {sum(row)} | ' + ' | '.join(map(str, row)) + f' | {tot[k]/MB:.0f} |')
print()
print('switch-outs:', len(switches))
c = collections.Counter((s['point'], s['state'], s['soon'], s['for_point']) for s in switches)
print('| victim waits at | state | woken soon | for a rank resumed out of | n |')
print('|---|---|---|---|---|')
for k, n in sorted(c.items(), key=lambda x: -x[1]):
    print(f'| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {n} |')
