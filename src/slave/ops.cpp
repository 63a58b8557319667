// Reduction operations in the slave: checking predefined ones, and the
// user-defined ones of MPI_Op_create.
//
// User-defined reductions run in the slaves, never in the master (which
// cannot call into a user program): every member sends its contribution to
// the root over the communicator's collective twin, and the root folds
// them in rank order, acc = acc op x_r for r = 0, 1, ..., n-1, so that a
// non-commutative operation (commute == 0) sees its operands in MPI's
// canonical order. The root holds two buffers (its accumulator and one
// incoming contribution); contributions wait, buffered by the master (or
// spilled to disk), until the root takes them. MPI_Allreduce then
// broadcasts the root's result through the master's MPI_Bcast;
// scan/exscan/reduce_scatter use the same folding (scan.cpp).
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/handles.h"
#include "common/reduce.h"
#include "slave/coll_p2p.h"
#include "slave/errors.h"

namespace bdmpi {
namespace {

struct UserOp {
  MPI_User_function* function = nullptr;
  bool commute = true;
  bool live = false;
};

std::vector<UserOp>& UserOps() {
  static std::vector<UserOp> ops;
  return ops;
}

constexpr int kFirstUserOp = static_cast<int>(OpId::kPredefinedEnd);

UserOp* FindUserOp(MPI_Op op) {
  if (!HandleIs(op, HandleKind::kOp)) return nullptr;
  int index = HandleIndex(op) - kFirstUserOp;
  if (index < 0 || index >= static_cast<int>(UserOps().size())) return nullptr;
  UserOp& user = UserOps()[static_cast<std::size_t>(index)];
  return user.live ? &user : nullptr;
}

}  // namespace

CheckedOp CheckOp(MPI_Op op, MPI_Datatype datatype) {
  CheckedOp checked;
  if (HandleIs(op, HandleKind::kOp) && HandleIndex(op) >= kFirstUserOp) {
    UserOp* user = FindUserOp(op);
    if (user == nullptr) throw Error(kErrOp, "the operation was freed or never created");
    LookupType(datatype);
    checked.user = user->function;
    checked.commute = user->commute;
    return checked;
  }
  DatatypeId type = ReductionBase(datatype);
  int index = HandleIndex(op);
  OpId id = static_cast<OpId>(index);
  // MPI_REPLACE and MPI_NO_OP exist for one-sided accumulate only.
  if (!HandleIs(op, HandleKind::kOp) || index == 0 || index >= kFirstUserOp ||
      id == OpId::kReplace || id == OpId::kNoOp)
    throw Error(kErrOp, "invalid reduction operation");
  if (!ReductionDefined(id, type))
    throw Error(kErrOp, std::string("the operation is not defined on ") +
                            FindPredefinedDatatype(type)->name);
  checked.predefined = id;
  return checked;
}

void ApplyOp(const CheckedOp& op, MPI_Datatype datatype, const void* in, void* inout,
             int count) {
  if (count == 0) return;
  if (op.user != nullptr) {
    int len = count;
    MPI_Datatype type = datatype;
    op.user(const_cast<void*>(in), inout, &len, &type);
    return;
  }
  const TypeInfo& info = LookupType(datatype);
  Reduce(op.predefined, ReductionBase(datatype), in, inout,
         static_cast<std::size_t>(count) * info.count);
}

MPI_Op OpCreate(MPI_User_function* function, int commute) {
  if (function == nullptr) throw Error(kErrArg, "MPI_Op_create: no function");
  std::vector<UserOp>& ops = UserOps();
  std::size_t index = 0;
  while (index < ops.size() && ops[index].live) ++index;
  if (index == ops.size()) ops.emplace_back();
  ops[index] = UserOp{function, commute != 0, true};
  return MakeHandle(HandleKind::kOp, kFirstUserOp + static_cast<int>(index));
}

void OpFree(MPI_Op* op) {
  UserOp* user = FindUserOp(*op);
  if (user == nullptr) throw Error(kErrOp, "only operations from MPI_Op_create can be freed");
  user->live = false;
  *op = MPI_OP_NULL;
}

bool OpCommutative(MPI_Op op) {
  if (UserOp* user = FindUserOp(op)) return user->commute;
  if (!HandleIs(op, HandleKind::kOp) || HandleIndex(op) == 0 ||
      HandleIndex(op) >= kFirstUserOp)
    throw Error(kErrOp, "invalid reduction operation");
  return true;
}

void UserReduce(const void* send, void* recv, int count, MPI_Datatype datatype,
                const CheckedOp& op, int root, const CommInfo& comm) {
  std::uint64_t bytes = BufferBytes(count, datatype);
  if (comm.rank != root) {
    CollSend(comm, root, kTagUserReduce, send, bytes);
    return;
  }
  // acc = x_0 op ... op x_{r-1}; each step: incoming = acc op incoming.
  std::vector<std::byte> acc(bytes), incoming(bytes);
  for (int r = 0; r < comm.size; ++r) {
    if (r == root) {
      if (bytes > 0) std::memcpy(incoming.data(), send, bytes);
    } else {
      CollRecv(comm, r, kTagUserReduce, incoming.data(), bytes);
    }
    if (r > 0) ApplyOp(op, datatype, acc.data(), incoming.data(), count);
    acc.swap(incoming);
  }
  if (bytes > 0) std::memcpy(recv, acc.data(), bytes);
}

}  // namespace bdmpi
