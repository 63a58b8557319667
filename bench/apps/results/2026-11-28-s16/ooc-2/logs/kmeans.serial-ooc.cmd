/work/wt/ooc16/build/bin/kmeans_serial_ooc /var/tmp/bdmpi-ooc-bench.E1GbMw/data/kmeans.bin --iters 3 --chunk 16777216
