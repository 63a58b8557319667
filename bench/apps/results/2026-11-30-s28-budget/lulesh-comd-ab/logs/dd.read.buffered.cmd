dd if=/var/tmp/bdmpi-apps-bench.AKmkCp/dd.bin of=/dev/null bs=16777216
