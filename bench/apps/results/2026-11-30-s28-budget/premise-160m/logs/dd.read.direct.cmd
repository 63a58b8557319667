dd if=/var/tmp/bdmpi-apps-bench.sgf3OA/dd.bin of=/dev/null bs=16777216 iflag=direct
