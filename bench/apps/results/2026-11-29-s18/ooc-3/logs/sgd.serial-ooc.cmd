bash -c "$@"; rc=$?; times >&2; exit $rc run /work/wt/ooc18/build/bin/sgd_serial_ooc /var/tmp/bdmpi-ooc-bench.zepfGt/data/sgd.bin --iters 3 --grid 4 --chunk 16777216
