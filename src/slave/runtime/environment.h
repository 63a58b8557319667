// MPI_Init ... MPI_Finalize, and the queries that need no master. The
// runtime connects to its master on the first of MPI_Init and
// MPI_Session_init and disconnects at the last of MPI_Finalize and
// MPI_Session_finalize; a rank cannot connect again after that.
#pragma once

namespace bdmpi {

void Initialize(int required, int* provided);
void Finalize();
// MPI_Session_init's and MPI_Session_finalize's share of the above:
// ConnectSession returns the thread level the session provides.
int ConnectSession(int required);
void DisconnectSession();
bool IsInitialized();
bool IsFinalized();
[[noreturn]] void AbortJob(int code);
double Wtime();
double Wtick();
int ThreadLevel();
// Whether any thread may call MPI (MPI_THREAD_SERIALIZED or MULTIPLE
// provided, to MPI_Init_thread or a session), not only MPI_Init's.
bool CallsFromAnyThread();
// Whether the calling thread is the one that called MPI_Init(_thread) (the
// program's main thread before that).
bool IsThreadMain();

}  // namespace bdmpi
