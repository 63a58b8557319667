import csv, sys, collections
# per app and -nr: this build's and the base build's s/iteration (mean after the first), each run
runs = collections.defaultdict(lambda: {"bdmpi": [], "bdmpi-base": []})
for path in sys.argv[1:]:
    for r in csv.DictReader(open(path)):
        mode = r["mode"].split("#")[0]
        if r["status"] != "ok" or "-nr" not in mode: continue
        kind, nr = mode.rsplit("-nr", 1)
        runs[(r["app"], nr)][kind].append(float(r["per_iteration_s"]))
for (app, nr), v in sorted(runs.items()):
    a, b = v["bdmpi"], v["bdmpi-base"]
    print(f"{app} -nr {nr}: this {a} base {b} ratio {sum(a)/len(a)/(sum(b)/len(b)):.2f} ({len(a)}+{len(b)} runs)")
