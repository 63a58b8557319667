dd if=/dev/zero of=/var/tmp/bdmpi-ooc-bench.k6RRft/dd.bin bs=16777216 count=24 oflag=direct conv=fsync
