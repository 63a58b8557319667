/work/wt/ooc16/build/bin/pagerank_serial_ooc /var/tmp/bdmpi-ooc-bench.0aCN1O/data/pagerank.bin --iters 3 --chunk 16777216
