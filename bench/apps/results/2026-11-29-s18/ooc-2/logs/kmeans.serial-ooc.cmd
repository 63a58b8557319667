bash -c "$@"; rc=$?; times >&2; exit $rc run /work/wt/ooc18/build/bin/kmeans_serial_ooc /var/tmp/bdmpi-ooc-bench.gwJTo1/data/kmeans.bin --iters 3 --chunk 16777216
