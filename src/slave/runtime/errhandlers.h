// User error handlers (MPI_Comm_create_errhandler, MPI_File_, MPI_Win_ and
// MPI_Session_create_errhandler: one table, so MPI_Errhandler_free works on
// every kind) and the error classes, codes and strings a program adds
// (MPI_Add_error_class/code/string) and removes again. The predefined handlers
// MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT (the same here: the job ends) and
// MPI_ERRORS_RETURN are handled by RaiseError (errors.h) itself.
#pragma once

#include <mpi.h>

#include <string>

namespace bdmpi {

MPI_Errhandler CreateErrhandler(MPI_Comm_errhandler_function* function);
MPI_Errhandler CreateFileErrhandler(MPI_File_errhandler_function* function);
MPI_Errhandler CreateWinErrhandler(MPI_Win_errhandler_function* function);
MPI_Errhandler CreateSessionErrhandler(MPI_Session_errhandler_function* function);
// Throws MPI_ERR_ARG unless `handler` is predefined or a live user handler.
void CheckErrhandler(MPI_Errhandler handler);
// The function of a user handler for communicators (files); nullptr for
// the predefined ones and for handlers of the other kind.
MPI_Comm_errhandler_function* ErrhandlerFunction(MPI_Errhandler handler);
MPI_File_errhandler_function* FileErrhandlerFunction(MPI_Errhandler handler);
MPI_Win_errhandler_function* WinErrhandlerFunction(MPI_Errhandler handler);
MPI_Session_errhandler_function* SessionErrhandlerFunction(MPI_Errhandler handler);
// MPI_Comm_get_errhandler hands out a reference the program frees.
void RetainErrhandler(MPI_Errhandler handler);
// MPI_Errhandler_free: drops the program's reference; communicators that
// use the handler keep it working.
void FreeErrhandler(MPI_Errhandler* handler);

int AddErrorClass();
int AddErrorCode(int error_class);
void AddErrorString(int code, const char* text);
// MPI-4.1's removals (MPI_ERR_ARG for values not added, or removed out of
// order: a code's string first, a class's codes before the class; a
// class's own string goes with it).
void RemoveErrorClass(int error_class);
void RemoveErrorCode(int code);
void RemoveErrorString(int code);
// The class of an added code (an added class is its own); -1 if not added.
int AddedErrorClass(int code);
// The string given to an added code or class ("" when none was), or nullptr.
const std::string* AddedErrorString(int code);
// MPI_LASTUSEDCODE: the largest code or class added, MPI_ERR_LASTCODE first.
int LastUsedErrorCode();

}  // namespace bdmpi
