dd if=/dev/zero of=/var/tmp/bdmpi-apps-bench.TbHF5a/dd.bin bs=16777216 count=33 conv=fsync
