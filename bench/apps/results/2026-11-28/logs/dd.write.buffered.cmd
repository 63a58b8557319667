dd if=/dev/zero of=/var/tmp/bdmpi-apps-bench.hWna9H/dd.bin bs=16777216 count=44 conv=fsync
