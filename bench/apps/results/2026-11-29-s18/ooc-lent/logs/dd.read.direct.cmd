dd if=/var/tmp/bdmpi-ooc-bench.91d4NF/dd.bin of=/dev/null bs=16777216 iflag=direct
