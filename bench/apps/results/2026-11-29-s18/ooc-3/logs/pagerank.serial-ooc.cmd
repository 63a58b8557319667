bash -c "$@"; rc=$?; times >&2; exit $rc run /work/wt/ooc18/build/bin/pagerank_serial_ooc /var/tmp/bdmpi-ooc-bench.zepfGt/data/pagerank.bin --iters 3 --chunk 16777216
