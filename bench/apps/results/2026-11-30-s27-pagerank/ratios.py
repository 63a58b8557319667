# Per app: s/iter by round of serial, this build and main's, the ratios
# against serial by the means of the rounds, and this / main per round.
import csv, sys, collections, statistics as st
t = collections.defaultdict(lambda: collections.defaultdict(list))
for r in csv.DictReader(open(sys.argv[1] + '/runs.csv')):
    if r['app'] == 'dd' or r['status'] != 'ok': continue
    t[r['app']][r['mode'].split('#')[0]].append(float(r['per_iteration_s']))
for app, m in t.items():
    s = m['serial-ooc']; S = st.mean(s)
    print(f"{app}: serial {', '.join(f'{x:.3f}' for x in s)}")
    for nr in ('nr1', 'nr2'):
        a, b = m.get(f'bdmpi-{nr}', []), m.get(f'bdmpi-base-{nr}', [])
        if not a: continue
        print(f"  {nr}: this {', '.join(f'{x:.3f}' for x in a)} / serial {st.mean(a)/S:.2f};"
              f" main {', '.join(f'{x:.3f}' for x in b)} / serial {st.mean(b)/S:.2f};"
              f" this/main by round {', '.join(f'{x/y:.2f}' for x, y in zip(a, b))}, by means {st.mean(a)/st.mean(b):.2f}")
