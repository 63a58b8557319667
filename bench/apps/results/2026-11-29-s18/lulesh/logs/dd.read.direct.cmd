dd if=/var/tmp/bdmpi-apps-bench.TbHF5a/dd.bin of=/dev/null bs=16777216 iflag=direct
