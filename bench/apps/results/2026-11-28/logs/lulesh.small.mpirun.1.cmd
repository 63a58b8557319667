/usr/bin/mpirun --allow-run-as-root --oversubscribe --mca btl_vader_backing_directory /var/tmp/bdmpi-apps-bench.hWna9H/tmp -np 8 /var/tmp/bdmpi-apps-bench.hWna9H/bin/lulesh.ompi -s 24 -i 20
