dd if=/var/tmp/bdmpi-apps-bench.79MYBw/dd.bin of=/dev/null bs=16777216 iflag=direct
