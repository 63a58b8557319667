// The extern "C" entry points that convert handles and statuses between C
// and Fortran (MPI-4.1 sections 19.3.4 and 19.3.5). A handle is the same
// integer in both languages, so MPI_Comm_c2f & co. are identities; they are
// functions, not macros, because MPI-4.1 wants symbols that other languages
// can call (MPI_Message_ and MPI_Session_ ones are with their chapters'
// calls). Statuses: MPI_Status_c2f, _f2c, and those of mpi_f08's
// TYPE(MPI_Status) (_c2f08, _f082c, _f2f08, _f082f). All three forms hold
// the same six integers in the same order (src/fortran/gen_fortran.py
// declares them so), so each conversion is a copy. Also the Fortran
// programs' MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE, the common blocks
// MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE stand for in C: defined
// here, so that C code can compare against them whether or not the
// Fortran library is loaded (libbdmpi_f refers to these).
#include <mpi.h>

#include <cstring>

#include "common/error.h"
#include "slave/runtime/errors.h"

using bdmpi::Error;
using bdmpi::Guard;

static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
              "a C status is a Fortran one");
static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "mpi_f08's status is C's");

extern "C" {

MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE] __attribute__((aligned(16)));
MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE] __attribute__((aligned(16)));

}  // extern "C"

namespace {

// Checks a conversion's arguments: neither may be null or one of the
// ignore constants, which stand for no status at all.
void CheckStatuses(const void* from, const void* to) {
  for (const void* status : {from, to}) {
    if (status == nullptr || status == mpi_fortran_status_ignore_ ||
        status == mpi_fortran_statuses_ignore_)
      throw Error(bdmpi::kErrArg,
                  "a status to convert is null or MPI_(F_)STATUS(ES)_IGNORE: pass a "
                  "status variable");
  }
}

template <class From, class To>
int Convert(const char* function, const From* from, To* to) {
  static_assert(sizeof(From) == sizeof(To));
  return Guard(function, MPI_COMM_WORLD, [&] {
    CheckStatuses(from, to);
    std::memcpy(static_cast<void*>(to), static_cast<const void*>(from), sizeof(To));
  });
}

// A Fortran status as an object of its size.
struct FortranStatus {
  MPI_Fint values[MPI_F_STATUS_SIZE];
};

}  // namespace

extern "C" {

#pragma weak MPI_Status_c2f = PMPI_Status_c2f
int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  return Convert("MPI_Status_c2f", c_status, reinterpret_cast<FortranStatus*>(f_status));
}

#pragma weak MPI_Status_f2c = PMPI_Status_f2c
int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  return Convert("MPI_Status_f2c", reinterpret_cast<const FortranStatus*>(f_status), c_status);
}

#pragma weak MPI_Status_c2f08 = PMPI_Status_c2f08
int PMPI_Status_c2f08(const MPI_Status* c_status, MPI_F08_status* f08_status) {
  return Convert("MPI_Status_c2f08", c_status, f08_status);
}

#pragma weak MPI_Status_f082c = PMPI_Status_f082c
int PMPI_Status_f082c(const MPI_F08_status* f08_status, MPI_Status* c_status) {
  return Convert("MPI_Status_f082c", f08_status, c_status);
}

#pragma weak MPI_Status_f2f08 = PMPI_Status_f2f08
int PMPI_Status_f2f08(const MPI_Fint* f_status, MPI_F08_status* f08_status) {
  return Convert("MPI_Status_f2f08", reinterpret_cast<const FortranStatus*>(f_status),
                 f08_status);
}

#pragma weak MPI_Status_f082f = PMPI_Status_f082f
int PMPI_Status_f082f(const MPI_F08_status* f08_status, MPI_Fint* f_status) {
  return Convert("MPI_Status_f082f", f08_status, reinterpret_cast<FortranStatus*>(f_status));
}


// One handle kind's two conversions, each a weak MPI_ name over its PMPI_
// twin like every call of the library.
#define BDMPI_PRAGMA(text) _Pragma(#text)
#define BDMPI_HANDLE_CONVERSIONS(Kind, Handle)                                   \
  BDMPI_PRAGMA(weak MPI_##Kind##_c2f = PMPI_##Kind##_c2f)                        \
  MPI_Fint PMPI_##Kind##_c2f(Handle handle) { return static_cast<MPI_Fint>(handle); } \
  BDMPI_PRAGMA(weak MPI_##Kind##_f2c = PMPI_##Kind##_f2c)                        \
  Handle PMPI_##Kind##_f2c(MPI_Fint handle) { return static_cast<Handle>(handle); }

BDMPI_HANDLE_CONVERSIONS(Comm, MPI_Comm)
BDMPI_HANDLE_CONVERSIONS(Type, MPI_Datatype)
BDMPI_HANDLE_CONVERSIONS(Group, MPI_Group)
BDMPI_HANDLE_CONVERSIONS(Request, MPI_Request)
BDMPI_HANDLE_CONVERSIONS(Op, MPI_Op)
BDMPI_HANDLE_CONVERSIONS(Errhandler, MPI_Errhandler)
BDMPI_HANDLE_CONVERSIONS(Info, MPI_Info)
BDMPI_HANDLE_CONVERSIONS(Win, MPI_Win)
BDMPI_HANDLE_CONVERSIONS(File, MPI_File)

#undef BDMPI_HANDLE_CONVERSIONS
#undef BDMPI_PRAGMA

}  // extern "C"
