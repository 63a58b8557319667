bash -c "$@"; rc=$?; times | tail -1 >&2; exit $rc run /work/wt/ooc16/build/bin/kmeans_serial_ooc /var/tmp/bdmpi-ooc-bench.w17WiW/data/kmeans.bin --iters 3 --chunk 16777216
