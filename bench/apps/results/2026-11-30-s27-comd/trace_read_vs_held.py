import json,re,sys
d=sys.argv[1]
L=d+'/logs/comd.large.bdmpi-best.1.err'
drop=0;n=0
for line in open(L,errors='replace'):
    m=re.search(r'switch-out: wrote back (\d+) bytes, dropped (\d+)',line)
    if m: drop+=int(m.group(2)); n+=1
r=json.load(open(d+'/logs/comd.large.bdmpi-best.1.report.json'))['ranks']
rd=sum(x['disk_read_bytes'] for x in r)/2**20
wb=sum(x['written_back_bytes'] for x in r)/2**20
print(f'{d}: switch-outs {n}, dropped {drop/2**20:.0f} MiB, written {wb:.0f} MiB, disk read {rd:.0f} MiB, read/dropped {rd/(drop/2**20):.2f}')
