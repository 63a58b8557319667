dd if=/var/tmp/bdmpi-apps-bench.2XMB90/dd.bin of=/dev/null bs=16777216 iflag=direct
