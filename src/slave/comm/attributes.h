// Attribute caching (MPI-3.1 section 6.7): keyvals, and the attributes a
// program hangs on communicators and datatypes, with the copy callbacks
// MPI_Comm_dup / MPI_Type_dup run and the delete callbacks MPI_Comm_free /
// MPI_Type_free (and MPI_Finalize, for MPI_COMM_SELF) run. All of it is
// local to the process; the master never sees an attribute.
#pragma once

#include <mpi.h>

namespace bdmpi {

// What a keyval may be attached to: a keyval made for one kind is
// MPI_ERR_KEYVAL on the other.
enum class AttrKind { kComm, kType, kWin };

// MPI_Comm_copy_attr_function and MPI_Type_copy_attr_function (and the
// MPI-1 MPI_Copy_function) have this shape: handles are ints in libbdmpi.
using CopyAttrFunction = int(int object, int keyval, void* extra_state, void* value_in,
                             void* value_out, int* flag);
using DeleteAttrFunction = int(int object, int keyval, void* value, void* extra_state);

int CreateKeyval(AttrKind kind, CopyAttrFunction* copy, DeleteAttrFunction* del, void* extra_state);
// Sets *keyval to MPI_KEYVAL_INVALID; attributes already set with it stay
// until deleted (their delete callback still runs), and until then freeing
// it again is no error.
void FreeKeyval(AttrKind kind, int* keyval);

// MPI_Comm_set_attr: replacing a value runs the delete callback on the old.
void SetAttr(AttrKind kind, int object, int keyval, void* value);
// MPI_Comm_get_attr for user keyvals: false when not set.
bool GetAttr(AttrKind kind, int object, int keyval, void** value);
void DeleteAttr(AttrKind kind, int object, int keyval);
// MPI_Comm_dup / MPI_Type_dup: runs the copy callback of each of `from`'s
// attributes and sets those it asks for on `to`. Throws the callback's
// error code when one fails (`to` then carries the attributes copied so far).
void CopyAttrs(AttrKind kind, int from, int to);
// MPI_Comm_free / MPI_Type_free / MPI_Finalize: runs the delete callbacks
// of all of the object's attributes, the last set first (MPI-3.1 8.7.1
// demands that order for MPI_COMM_SELF at MPI_Finalize), and forgets them.
// Throws the first failing callback's code; the rest stay set.
void DeleteAllAttrs(AttrKind kind, int object);

// MPI_COMM_WORLD's predefined attributes (MPI_TAG_UB, MPI_HOST, ...,
// MPI_LASTUSEDCODE): false when `keyval` is none of them.
bool GetPredefinedAttr(int keyval, void** value);
bool IsPredefinedKeyval(int keyval);

}  // namespace bdmpi
