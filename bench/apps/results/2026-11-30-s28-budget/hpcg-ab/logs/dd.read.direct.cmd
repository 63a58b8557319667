dd if=/var/tmp/bdmpi-apps-bench.kRqyxj/dd.bin of=/dev/null bs=16777216 iflag=direct
