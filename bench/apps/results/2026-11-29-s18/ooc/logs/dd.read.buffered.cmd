dd if=/var/tmp/bdmpi-ooc-bench.WfUP52/dd.bin of=/dev/null bs=16777216
