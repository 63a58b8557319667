dd if=/var/tmp/bdmpi-apps-bench.zwsy6s/dd.bin of=/dev/null bs=16777216
