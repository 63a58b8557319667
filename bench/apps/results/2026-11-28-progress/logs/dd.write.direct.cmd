dd if=/dev/zero of=/var/tmp/bdmpi-apps-bench.oZuSRt/dd.bin bs=16777216 count=44 oflag=direct conv=fsync
