dd if=/dev/zero of=/var/tmp/bdmpi-ooc-bench.rT15ON/dd.bin bs=16777216 count=24 oflag=direct conv=fsync
