dd if=/var/tmp/bdmpi-ooc-bench.0CRmD7/dd.bin of=/dev/null bs=16777216 iflag=direct
