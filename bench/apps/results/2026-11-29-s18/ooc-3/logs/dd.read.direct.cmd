dd if=/var/tmp/bdmpi-ooc-bench.zepfGt/dd.bin of=/dev/null bs=16777216 iflag=direct
