bash -c "$@"; rc=$?; times | tail -1 >&2; exit $rc run /work/wt/ooc16/build/bin/pagerank_serial_ooc /var/tmp/bdmpi-ooc-bench.w17WiW/data/pagerank.bin --iters 3 --chunk 16777216
