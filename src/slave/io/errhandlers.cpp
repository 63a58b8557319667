#include "slave/io/errhandlers.h"

#include <vector>

#include "common/error.h"
#include "common/handles.h"
#include "slave/errors.h"

namespace bdmpi::io {

namespace {

constexpr int kFileErrhandlerFirst = 0x800000;

std::vector<MPI_File_errhandler_function*>& Functions() {
  static std::vector<MPI_File_errhandler_function*> functions;
  return functions;
}

}  // namespace

MPI_Errhandler NewFileErrhandler(MPI_File_errhandler_function* function) {
  if (function == nullptr) throw Error(kErrArg, "the error handler function is NULL");
  std::vector<MPI_File_errhandler_function*>& functions = Functions();
  if (functions.size() >= static_cast<std::size_t>(kHandleIndexMask - kFileErrhandlerFirst))
    throw Error(kErrNoMem, "too many file error handlers");
  functions.push_back(function);
  return MakeHandle(HandleKind::kErrhandler,
                    kFileErrhandlerFirst + static_cast<int>(functions.size()) - 1);
}

MPI_File_errhandler_function* FindFileErrhandler(MPI_Errhandler errhandler) {
  if (!HandleIs(errhandler, HandleKind::kErrhandler)) return nullptr;
  int index = HandleIndex(errhandler) - kFileErrhandlerFirst;
  const std::vector<MPI_File_errhandler_function*>& functions = Functions();
  if (index < 0 || index >= static_cast<int>(functions.size())) return nullptr;
  return functions[static_cast<std::size_t>(index)];
}

void CheckFileErrhandler(MPI_Errhandler errhandler) {
  if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN &&
      FindFileErrhandler(errhandler) == nullptr)
    throw Error(kErrArg, "not an error handler for files (MPI_ERRORS_ARE_FATAL, "
                         "MPI_ERRORS_RETURN or one from MPI_File_create_errhandler)");
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
