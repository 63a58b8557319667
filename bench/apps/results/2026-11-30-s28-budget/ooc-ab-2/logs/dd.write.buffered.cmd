dd if=/dev/zero of=/var/tmp/bdmpi-ooc-bench.G54RG2/dd.bin bs=16777216 count=24 conv=fsync
