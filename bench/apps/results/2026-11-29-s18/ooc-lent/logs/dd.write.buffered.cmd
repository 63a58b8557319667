dd if=/dev/zero of=/var/tmp/bdmpi-ooc-bench.91d4NF/dd.bin bs=16777216 count=24 conv=fsync
