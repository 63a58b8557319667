dd if=/dev/zero of=/var/tmp/bdmpi-apps-bench.sgf3OA/dd.bin bs=16777216 count=33 oflag=direct conv=fsync
