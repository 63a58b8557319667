// MPI_Init ... MPI_Finalize, and the queries that need no master.
#pragma once

namespace bdmpi {

void Initialize(int required, int* provided);
void Finalize();
bool IsInitialized();
bool IsFinalized();
[[noreturn]] void AbortJob(int code);
double Wtime();
double Wtick();
int ThreadLevel();
// Whether the calling thread is the one that called MPI_Init(_thread) (the
// program's main thread before that).
bool IsThreadMain();

}  // namespace bdmpi
