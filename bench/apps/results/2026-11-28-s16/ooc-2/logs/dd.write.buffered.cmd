dd if=/dev/zero of=/var/tmp/bdmpi-ooc-bench.E1GbMw/dd.bin bs=16777216 count=24 conv=fsync
