"""A Python rank without mpi4py: it calls libbdmpi through ctypes, which
finds it only because the master preloaded it. Its numpy array, allocated
before MPI_Init, is storage-backed when libbdmpi's malloc served it.

    numpy_rank.py MIB
"""
import ctypes
import sys

import numpy as np

MPI_COMM_WORLD = 0x44000000  # include/mpi.h
MPI_DOUBLE = 0x4C00000F
MPI_SUM = 0x58000003

mib = int(sys.argv[1])
data = np.empty(mib * 2**20 // 8)  # before MPI_Init, as a module would
mpi = ctypes.CDLL(None)  # the process's global symbols: the preload's
if mpi.MPI_Init(None, None) != 0:
    sys.exit("numpy_rank: MPI_Init failed")
rank, size = ctypes.c_int(), ctypes.c_int()
mpi.MPI_Comm_rank(MPI_COMM_WORLD, ctypes.byref(rank))
mpi.MPI_Comm_size(MPI_COMM_WORLD, ctypes.byref(size))
data[:] = rank.value + 1
mpi.MPI_Barrier(MPI_COMM_WORLD)
local = ctypes.c_double(data.sum())
total = ctypes.c_double()
mpi.MPI_Allreduce(ctypes.byref(local), ctypes.byref(total), 1, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD)
n = size.value
ok = local.value == data.size * (rank.value + 1) and total.value == data.size * n * (n + 1) / 2
if rank.value == 0 and ok:
    print("numpy_rank: ok")
del data
mpi.MPI_Finalize()
sys.exit(0 if ok else 1)
