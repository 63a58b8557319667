/work/wt/ooc16/build/bin/kmeans_serial_ooc /var/tmp/bdmpi-ooc-bench.0aCN1O/data/kmeans.bin --iters 3 --chunk 16777216
