dd if=/var/tmp/bdmpi-apps-bench.pLpPaL/dd.bin of=/dev/null bs=16777216
