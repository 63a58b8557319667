dd if=/dev/zero of=/var/tmp/bdmpi-apps-bench.2XMB90/dd.bin bs=16777216 count=33 conv=fsync
