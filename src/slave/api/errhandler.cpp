// MPI entry points for error handlers and error codes (MPI-3.1 8.3-8.5),
// with the MPI-1 names MPI_Errhandler_create/set/get and MPI-4.1's
// MPI_Remove_error_class/code/string. See errhandlers.h.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "common/error.h"
#include "slave/runtime/errhandlers.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"

using bdmpi::Error;
using bdmpi::Guard;

namespace {

// The class of a predefined or added code, or -1.
int ClassOf(int code) {
  if (code >= MPI_SUCCESS && code <= MPI_ERR_LASTCODE) return code;  // every code is a class
  return bdmpi::AddedErrorClass(code);
}

}  // namespace

extern "C" {

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function,
                                MPI_Errhandler* errhandler) {
  return Guard("MPI_Comm_create_errhandler", MPI_COMM_WORLD,
               [&] { *errhandler = bdmpi::CreateErrhandler(function); });
}

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return Guard("MPI_Comm_set_errhandler", comm, [&] {
    bdmpi::RequireInitialized();
    bdmpi::CommInfo& info = bdmpi::LookupComm(comm);
    bdmpi::CheckErrhandler(errhandler);
    // As Open MPI: a handler made for files takes other arguments.
    if (bdmpi::FileErrhandlerFunction(errhandler) != nullptr ||
        bdmpi::SessionErrhandlerFunction(errhandler) != nullptr)
      throw bdmpi::Error(MPI_ERR_ARG,
                         "the error handler was made by MPI_File_create_errhandler or "
                         "MPI_Session_create_errhandler: a communicator takes one made by "
                         "MPI_Comm_create_errhandler");
    info.errhandler = errhandler;
  });
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return Guard("MPI_Comm_get_errhandler", comm, [&] {
    bdmpi::RequireInitialized();
    *errhandler = bdmpi::LookupComm(comm).errhandler;
    bdmpi::RetainErrhandler(*errhandler);
  });
}

#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  // MPI-3.1 8.3.6: MPI_SUCCESS once the handler has returned, whichever it is.
  return Guard("MPI_Comm_call_errhandler", comm, [&] {
    bdmpi::RequireInitialized();
    bdmpi::LookupComm(comm);
    const char* text = bdmpi::ErrorClassString(errorcode);
    bdmpi::RaiseError("MPI_Comm_call_errhandler", comm, errorcode,
                      text != nullptr ? text : "error code given by the program");
  });
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  return Guard("MPI_Errhandler_free", MPI_COMM_WORLD, [&] { bdmpi::FreeErrhandler(errhandler); });
}

#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create
int PMPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler) {
  return PMPI_Comm_create_errhandler(function, errhandler);
}

#pragma weak MPI_Errhandler_set = PMPI_Errhandler_set
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return PMPI_Comm_set_errhandler(comm, errhandler);
}

#pragma weak MPI_Errhandler_get = PMPI_Errhandler_get
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return PMPI_Comm_get_errhandler(comm, errhandler);
}

#pragma weak MPI_Error_class = PMPI_Error_class
int PMPI_Error_class(int errorcode, int* errorclass) {
  return Guard("MPI_Error_class", MPI_COMM_WORLD, [&] {
    int found = ClassOf(errorcode);
    if (found < 0) throw Error(MPI_ERR_ARG, std::to_string(errorcode) + " is not an error code");
    *errorclass = found;
  });
}

#pragma weak MPI_Error_string = PMPI_Error_string
int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  return Guard("MPI_Error_string", MPI_COMM_WORLD, [&] {
    const char* text = bdmpi::ErrorClassString(errorcode);
    if (text == nullptr)
      throw Error(MPI_ERR_ARG, std::to_string(errorcode) + " is not an error code");
    std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", text);
    *resultlen = static_cast<int>(std::strlen(string));
  });
}

#pragma weak MPI_Add_error_class = PMPI_Add_error_class
int PMPI_Add_error_class(int* errorclass) {
  return Guard("MPI_Add_error_class", MPI_COMM_WORLD,
               [&] { *errorclass = bdmpi::AddErrorClass(); });
}

#pragma weak MPI_Add_error_code = PMPI_Add_error_code
int PMPI_Add_error_code(int errorclass, int* errorcode) {
  return Guard("MPI_Add_error_code", MPI_COMM_WORLD,
               [&] { *errorcode = bdmpi::AddErrorCode(errorclass); });
}

#pragma weak MPI_Add_error_string = PMPI_Add_error_string
int PMPI_Add_error_string(int errorcode, const char* string) {
  return Guard("MPI_Add_error_string", MPI_COMM_WORLD,
               [&] { bdmpi::AddErrorString(errorcode, string); });
}

#pragma weak MPI_Remove_error_class = PMPI_Remove_error_class
int PMPI_Remove_error_class(int errorclass) {
  return Guard("MPI_Remove_error_class", MPI_COMM_WORLD,
               [&] { bdmpi::RemoveErrorClass(errorclass); });
}

#pragma weak MPI_Remove_error_code = PMPI_Remove_error_code
int PMPI_Remove_error_code(int errorcode) {
  return Guard("MPI_Remove_error_code", MPI_COMM_WORLD,
               [&] { bdmpi::RemoveErrorCode(errorcode); });
}

#pragma weak MPI_Remove_error_string = PMPI_Remove_error_string
int PMPI_Remove_error_string(int errorcode) {
  return Guard("MPI_Remove_error_string", MPI_COMM_WORLD,
               [&] { bdmpi::RemoveErrorString(errorcode); });
}

}  // extern "C"
