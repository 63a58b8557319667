bash -c "$@"; rc=$?; times | tail -1 >&2; exit $rc run /work/wt/ooc16/build/bin/sgd_serial_ooc /var/tmp/bdmpi-ooc-bench.w17WiW/data/sgd.bin --iters 3 --grid 4 --chunk 16777216
