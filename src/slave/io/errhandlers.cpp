#include "slave/io/errhandlers.h"

#include "common/error.h"
#include "common/handles.h"
#include "slave/runtime/errhandlers.h"
#include "slave/runtime/errors.h"

namespace bdmpi::io {

MPI_Errhandler NewFileErrhandler(MPI_File_errhandler_function* function) {
  return CreateFileErrhandler(function);
}

MPI_File_errhandler_function* FindFileErrhandler(MPI_Errhandler errhandler) {
  return FileErrhandlerFunction(errhandler);
}

void CheckFileErrhandler(MPI_Errhandler errhandler) {
  if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN &&
      errhandler != MPI_ERRORS_ABORT && FindFileErrhandler(errhandler) == nullptr)
    throw Error(kErrArg, "not an error handler for files (MPI_ERRORS_ARE_FATAL, "
                         "MPI_ERRORS_ABORT, MPI_ERRORS_RETURN or one from "
                         "MPI_File_create_errhandler)");
}

int ApplyFileErrhandler(MPI_Errhandler handler, MPI_File file, const char* function,
                        int error_class, const char* detail) {
  if (MPI_File_errhandler_function* user = FindFileErrhandler(handler)) {
    int code = error_class;
    user(&file, &code);
    return error_class;
  }
  return ApplyErrhandler(handler, function, error_class, detail);
}

}  // namespace bdmpi::io
