dd if=/dev/zero of=/var/tmp/bdmpi-ooc-bench.0CRmD7/dd.bin bs=16777216 count=24 oflag=direct conv=fsync
