// MPI entry points for attribute caching on communicators and datatypes
// (MPI-3.1 6.7), with the MPI-1 names programs still call (MPI_Attr_put,
// MPI_Keyval_create, ...) and the predefined callbacks. See attributes.h.
#include <mpi.h>

#include <cstring>

#include "common/error.h"
#include "slave/comm/attributes.h"
#include "slave/datatype/datatypes.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"

using bdmpi::AttrKind;
using bdmpi::Guard;

namespace {

bdmpi::CopyAttrFunction* AsCopy(MPI_Comm_copy_attr_function* function) {
  return reinterpret_cast<bdmpi::CopyAttrFunction*>(function);
}
bdmpi::DeleteAttrFunction* AsDelete(MPI_Comm_delete_attr_function* function) {
  return reinterpret_cast<bdmpi::DeleteAttrFunction*>(function);
}

void CheckComm(MPI_Comm comm) {
  bdmpi::RequireInitialized();
  bdmpi::LookupComm(comm);
}

// MPI_Comm_get_attr: predefined keys first (on any communicator, as Open
// MPI does), then the program's.
void GetCommAttr(MPI_Comm comm, int keyval, void* value, int* flag) {
  CheckComm(comm);
  void* found = nullptr;
  *flag = bdmpi::GetPredefinedAttr(keyval, &found) ||
          bdmpi::GetAttr(AttrKind::kComm, comm, keyval, &found);
  if (*flag) *static_cast<void**>(value) = found;
}

int CopyValue(void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}

int CopyNothing(int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

// -------------------------------------------------- communicator attributes

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn,
                            MPI_Comm_delete_attr_function* delete_fn, int* keyval,
                            void* extra_state) {
  return Guard("MPI_Comm_create_keyval", MPI_COMM_WORLD, [&] {
    *keyval =
        bdmpi::CreateKeyval(AttrKind::kComm, AsCopy(copy_fn), AsDelete(delete_fn), extra_state);
  });
}

#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
int PMPI_Comm_free_keyval(int* keyval) {
  return Guard("MPI_Comm_free_keyval", MPI_COMM_WORLD,
               [&] { bdmpi::FreeKeyval(AttrKind::kComm, keyval); });
}

#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void* attribute_val) {
  return Guard("MPI_Comm_set_attr", comm, [&] {
    CheckComm(comm);
    bdmpi::SetAttr(AttrKind::kComm, comm, keyval, attribute_val);
  });
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return Guard("MPI_Comm_get_attr", comm, [&] { GetCommAttr(comm, keyval, attribute_val, flag); });
}

#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  return Guard("MPI_Comm_delete_attr", comm, [&] {
    CheckComm(comm);
    bdmpi::DeleteAttr(AttrKind::kComm, comm, keyval);
  });
}

// ------------------------------------------------------ datatype attributes

#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* copy_fn,
                            MPI_Type_delete_attr_function* delete_fn, int* keyval,
                            void* extra_state) {
  return Guard("MPI_Type_create_keyval", MPI_COMM_WORLD, [&] {
    *keyval =
        bdmpi::CreateKeyval(AttrKind::kType, reinterpret_cast<bdmpi::CopyAttrFunction*>(copy_fn),
                            reinterpret_cast<bdmpi::DeleteAttrFunction*>(delete_fn), extra_state);
  });
}

#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
int PMPI_Type_free_keyval(int* keyval) {
  return Guard("MPI_Type_free_keyval", MPI_COMM_WORLD,
               [&] { bdmpi::FreeKeyval(AttrKind::kType, keyval); });
}

#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
int PMPI_Type_set_attr(MPI_Datatype datatype, int keyval, void* attribute_val) {
  return Guard("MPI_Type_set_attr", MPI_COMM_WORLD, [&] {
    bdmpi::LookupType(datatype);
    bdmpi::SetAttr(AttrKind::kType, datatype, keyval, attribute_val);
  });
}

#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
int PMPI_Type_get_attr(MPI_Datatype datatype, int keyval, void* attribute_val, int* flag) {
  return Guard("MPI_Type_get_attr", MPI_COMM_WORLD, [&] {
    bdmpi::LookupType(datatype);
    void* found = nullptr;
    *flag = bdmpi::GetAttr(AttrKind::kType, datatype, keyval, &found);
    if (*flag) *static_cast<void**>(attribute_val) = found;
  });
}

#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
int PMPI_Type_delete_attr(MPI_Datatype datatype, int keyval) {
  return Guard("MPI_Type_delete_attr", MPI_COMM_WORLD, [&] {
    bdmpi::LookupType(datatype);
    bdmpi::DeleteAttr(AttrKind::kType, datatype, keyval);
  });
}

// ------------------------------------------------------------ MPI-1 names

#pragma weak MPI_Keyval_create = PMPI_Keyval_create
int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                       void* extra_state) {
  return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

#pragma weak MPI_Keyval_free = PMPI_Keyval_free
int PMPI_Keyval_free(int* keyval) { return PMPI_Comm_free_keyval(keyval); }

#pragma weak MPI_Attr_put = PMPI_Attr_put
int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}

#pragma weak MPI_Attr_get = PMPI_Attr_get
int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

#pragma weak MPI_Attr_delete = PMPI_Attr_delete
int PMPI_Attr_delete(MPI_Comm comm, int keyval) { return PMPI_Comm_delete_attr(comm, keyval); }

// ------------------------------------------------- predefined callbacks
// The functions behind MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN, ... (mpi.h).

#pragma weak MPI_Comm_null_copy_fn = PMPI_Comm_null_copy_fn
int PMPI_Comm_null_copy_fn(MPI_Comm, int, void*, void*, void*, int* flag) {
  return CopyNothing(flag);
}

#pragma weak MPI_Comm_dup_fn = PMPI_Comm_dup_fn
int PMPI_Comm_dup_fn(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  return CopyValue(in, out, flag);
}

#pragma weak MPI_Comm_null_delete_fn = PMPI_Comm_null_delete_fn
int PMPI_Comm_null_delete_fn(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }

#pragma weak MPI_Type_null_copy_fn = PMPI_Type_null_copy_fn
int PMPI_Type_null_copy_fn(MPI_Datatype, int, void*, void*, void*, int* flag) {
  return CopyNothing(flag);
}

#pragma weak MPI_Type_dup_fn = PMPI_Type_dup_fn
int PMPI_Type_dup_fn(MPI_Datatype, int, void*, void* in, void* out, int* flag) {
  return CopyValue(in, out, flag);
}

#pragma weak MPI_Type_null_delete_fn = PMPI_Type_null_delete_fn
int PMPI_Type_null_delete_fn(MPI_Datatype, int, void*, void*) { return MPI_SUCCESS; }

#pragma weak MPI_Null_copy_fn = PMPI_Null_copy_fn
int PMPI_Null_copy_fn(MPI_Comm, int, void*, void*, void*, int* flag) { return CopyNothing(flag); }

#pragma weak MPI_Dup_fn = PMPI_Dup_fn
int PMPI_Dup_fn(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  return CopyValue(in, out, flag);
}

#pragma weak MPI_Null_delete_fn = PMPI_Null_delete_fn
int PMPI_Null_delete_fn(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }

}  // extern "C"
