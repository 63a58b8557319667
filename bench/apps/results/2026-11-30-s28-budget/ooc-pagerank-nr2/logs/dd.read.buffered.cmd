dd if=/var/tmp/bdmpi-ooc-bench.k6RRft/dd.bin of=/dev/null bs=16777216
