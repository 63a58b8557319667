// User-defined error handlers of files (MPI_File_create_errhandler). They
// live in the one table of user error handlers (slave/runtime/errhandlers.h), with
// their kind, so MPI_Errhandler_free works on them as on any other. A
// handler lives until the process ends: MPI_Errhandler_free only forgets
// the program's handle, and a file it is attached to keeps using it, as
// the standard's reference counting has it.
#pragma once

#include <mpi.h>

namespace bdmpi::io {

MPI_Errhandler NewFileErrhandler(MPI_File_errhandler_function* function);
// The function behind a handle, or nullptr for anything else.
MPI_File_errhandler_function* FindFileErrhandler(MPI_Errhandler errhandler);
// MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN or one of ours; else kErrArg.
void CheckFileErrhandler(MPI_Errhandler errhandler);

// Applies `handler` to an error of `file` (what RaiseError does for a
// communicator): a user handler is called with the file and the code, and
// the code is returned.
int ApplyFileErrhandler(MPI_Errhandler handler, MPI_File file, const char* function,
                        int error_class, const char* detail);

}  // namespace bdmpi::io
