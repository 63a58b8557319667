dd if=/var/tmp/bdmpi-apps-bench.hWna9H/dd.bin of=/dev/null bs=16777216 iflag=direct
