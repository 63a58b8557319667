dd if=/dev/zero of=/var/tmp/bdmpi-apps-bench.kRqyxj/dd.bin bs=16777216 count=33 oflag=direct conv=fsync
