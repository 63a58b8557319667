#!/usr/bin/env bash
# early_usr1.sh ARGS... -- runs $BDMPIEXEC_REAL ARGS with a SIGUSR1 already
# pending (and blocked, as a shell's `kill -USR1` may catch bdmpiexec
# before its handler exists): bdmpiexec must neither die of it nor lose it,
# but answer it with the job's status once it can.
exec python3 -c '
import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
os.kill(os.getpid(), signal.SIGUSR1)
os.execv(sys.argv[1], sys.argv[1:])
' "${BDMPIEXEC_REAL:?}" "$@"
