dd if=/var/tmp/bdmpi-ooc-bench.0aCN1O/dd.bin of=/dev/null bs=16777216 iflag=direct
