/work/wt/ooc16/build/bin/sgd_serial_ooc /var/tmp/bdmpi-ooc-bench.0aCN1O/data/sgd.bin --iters 3 --grid 4 --chunk 16777216
