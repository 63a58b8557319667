dd if=/dev/zero of=/var/tmp/bdmpi-ooc-bench.lIBz5R/dd.bin bs=16777216 count=24 oflag=direct conv=fsync
