dd if=/var/tmp/bdmpi-ooc-bench.rT15ON/dd.bin of=/dev/null bs=16777216 iflag=direct
