dd if=/var/tmp/bdmpi-ooc-bench.w17WiW/dd.bin of=/dev/null bs=16777216
