dd if=/var/tmp/bdmpi-apps-bench.aq0maV/dd.bin of=/dev/null bs=16777216 iflag=direct
