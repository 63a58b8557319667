dd if=/var/tmp/bdmpi-ooc-bench.lIBz5R/dd.bin of=/dev/null bs=16777216 iflag=direct
