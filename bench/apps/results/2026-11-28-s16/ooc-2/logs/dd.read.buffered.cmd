dd if=/var/tmp/bdmpi-ooc-bench.E1GbMw/dd.bin of=/dev/null bs=16777216
