import re,sys,collections
exec(open('/tmp/s27-comd/trace.py').read().split("last_block = {}")[0])
last_block={}; pend={}; wb=collections.defaultdict(list)
for line in open(sys.argv[1], errors='replace'):
    m=re_block.search(line)
    if m:
        r=int(m.group(1)); c=m.group(2); ms=re_src.search(c)
        last_block[r]=('face '+face(r,int(ms.group(1)))) if ms and ('Sendrecv' in c or 'Recv' in c) else c.split('(')[0]
        continue
    m=re_switch.search(line)
    if m: pend[int(m.group(1))]=last_block.get(int(m.group(1)),'?'); continue
    m=re.search(r'\[bdmpi rank (\d+) pid \d+ debug disk\] switch-out: wrote back (\d+) bytes, dropped (\d+)',line)
    if m:
        r=int(m.group(1))
        if r in pend: wb[pend.pop(r)].append((int(m.group(2))/1e6,int(m.group(3))/1e6))
for k,v in sorted(wb.items()):
    print(k,len(v),'written %.1f dropped %.1f MB mean'%(sum(a for a,b in v)/len(v), sum(b for a,b in v)/len(v)))
