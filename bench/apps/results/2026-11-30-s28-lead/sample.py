import os, time, sys, collections
dur=float(sys.argv[1]); out=open(sys.argv[2],'w')
def disk():
    for l in open('/proc/diskstats'):
        f=l.split()
        if f[2]=='vda': return [int(x) for x in f[3:]]
def states():
    c=collections.Counter(); wch=collections.Counter()
    for p in os.listdir('/proc'):
        if not p.isdigit(): continue
        try:
            s=open('/proc/%s/stat'%p).read()
        except OSError: continue
        comm=s[s.index('(')+1:s.rindex(')')]
        if comm not in ('hpcg.bdmpi','bdmprun','lulesh.bdmpi','miniFE.bdmpi','comd.bdmpi'): continue
        st=s[s.rindex(')')+2]
        c[comm[:4]+':'+st]+=1
        if st=='D':
            try: wch[open('/proc/%s/wchan'%p).read()]+=1
            except OSError: pass
    return c,wch
t0=time.time(); d0=disk(); tot=collections.Counter(); wtot=collections.Counter(); n=0; inflight=0
while time.time()-t0<dur:
    c,w=states(); tot.update(c); wtot.update(w); n+=1
    inflight+=disk()[8]
    time.sleep(0.05)
d1=disk(); el=time.time()-t0
rd=(d1[2]-d0[2])*512/2**20; rios=d1[0]-d0[0]; busy=(d1[9]-d0[9])/1000
print("samples %d over %.1f s: read %.0f MiB (%.0f MiB/s) in %d ios (avg %.0f KiB), disk busy %.0f%%, mean in flight %.2f"%(n,el,rd,rd/el,rios,rd*1024/max(rios,1),100*busy/el,inflight/n),file=out)
for k,v in sorted(tot.items()): print("  %s mean %.2f"%(k,v/n),file=out)
for k,v in wtot.most_common(10): print("  D in %s: mean %.2f"%(k,v/n),file=out)
