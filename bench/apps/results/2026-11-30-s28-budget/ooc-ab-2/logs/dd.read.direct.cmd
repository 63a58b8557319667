dd if=/var/tmp/bdmpi-ooc-bench.G54RG2/dd.bin of=/dev/null bs=16777216 iflag=direct
