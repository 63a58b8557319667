dd if=/var/tmp/bdmpi-ooc-bench.gwJTo1/dd.bin of=/dev/null bs=16777216 iflag=direct
