"""numpy_ooc.py MIB ROUNDS: an mpi4py + numpy program whose data does not
fit in memory (bench/run_python_numpy.sh runs it).

Every rank holds MIB MiB of float64 in one numpy array. Each round every
rank doubles its array (touching all of it), passes a 1 MiB slice around the
ring with Sendrecv (numpy buffers straight into MPI) and takes part in an
allreduce of the sums. The answers are exact (powers of two), so each rank
checks them; rank 0 prints one line with the figures.
"""
import sys
import time

import numpy as np
from mpi4py import MPI

mib, rounds = int(sys.argv[1]), int(sys.argv[2])
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
start = time.perf_counter()
n = mib * 2**20 // 8
data = np.full(n, float(rank + 1))
slice_n = 2**20 // 8
incoming = np.empty(slice_n)
left, right = (rank - 1) % size, (rank + 1) % size
errors = 0
for r in range(1, rounds + 1):
    data *= 2.0
    comm.Sendrecv(data[:slice_n], dest=right, recvbuf=incoming, source=left)
    errors += not np.all(incoming == (left + 1) * 2.0**r)
    local = float(data.sum())
    errors += local != n * (rank + 1) * 2.0**r
    total = comm.allreduce(local, op=MPI.SUM)
    errors += total != n * 2.0**r * size * (size + 1) / 2
errors = comm.allreduce(errors, op=MPI.SUM)
elapsed = comm.reduce(time.perf_counter() - start, op=MPI.MAX, root=0)
del data
if rank == 0:
    print(f"numpy_ooc: {'ok' if errors == 0 else 'WRONG'}: {size} ranks x {mib} MiB, "
          f"{rounds} rounds, {elapsed:.2f} s")
sys.exit(0 if errors == 0 else 1)
