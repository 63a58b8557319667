// Reduction operations in the slave: checking predefined ones, and the
// user-defined ones of MPI_Op_create.
//
// User-defined reductions run in the slaves, never in the master (which
// cannot call into a user program): see nbc_reduce.cpp, which folds the
// contributions in rank order so that a non-commutative operation
// (commute == 0) sees its operands in MPI's canonical order.
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/handles.h"
#include "common/reduce.h"
#include "slave/coll/coll_p2p.h"
#include "slave/datatype/large_count.h"
#include "slave/p2p/wire_data.h"
#include "slave/runtime/errors.h"

namespace bdmpi {
namespace {

struct UserOp {
  MPI_User_function* function = nullptr;
  MPI_User_function_c* function_c = nullptr;
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
    checked.user_c = user->function_c;
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

namespace {

// A predefined operation on wire bytes, which its kernels take.
void ReduceWire(const CheckedOp& op, MPI_Datatype datatype, const void* in, void* inout,
                int count) {
  Reduce(op.predefined, ReductionBase(datatype), in, inout,
         static_cast<std::size_t>(count) * LookupType(datatype).count);
}

// A user-defined function on `count` elements of the program's own type:
// the elements of a counted type (large_count.h) are handed over as the
// type they count, in calls of at most INT_MAX elements to an int function.
void ApplyUser(const CheckedOp& op, MPI_Datatype datatype, const void* in, void* inout,
               std::int64_t count) {
  MPI_Datatype element = datatype;
  std::int64_t per_element = 1;
  if (CountedOf(datatype, &element, &per_element)) count *= per_element;
  if (op.user_c != nullptr) {
    MPI_Count len = count;
    op.user_c(const_cast<void*>(in), inout, &len, &element);
    return;
  }
  const std::int64_t extent = LookupType(element).extent;
  for (std::int64_t done = 0; done < count;) {
    int len = static_cast<int>(std::min<std::int64_t>(INT_MAX, count - done));
    op.user(const_cast<std::byte*>(static_cast<const std::byte*>(in)) + done * extent,
            static_cast<std::byte*>(inout) + done * extent, &len, &element);
    done += len;
  }
}

}  // namespace

void ApplyOp(const CheckedOp& op, MPI_Datatype datatype, const void* in, void* inout,
             int count) {
  if (count == 0) return;
  if (op.UserDefined()) {
    ApplyUser(op, datatype, in, inout, count);
    return;
  }
  const TypeInfo& type = LookupType(datatype);
  if (type.Dense()) {
    ReduceWire(op, datatype, in, inout, count);
    return;
  }
  // Gaps, or pairs with padding: the kernels work on the elements packed.
  std::vector<std::byte> a = WireCopy(in, count, datatype);
  std::vector<std::byte> b = WireCopy(inout, count, datatype);
  ReduceWire(op, datatype, a.data(), b.data(), count);
  WriteWire(b, inout, count, &type);
}

void ApplyOpWire(const CheckedOp& op, MPI_Datatype datatype, const void* in, void* inout,
                 int count) {
  if (count == 0) return;
  const TypeInfo& type = LookupType(datatype);
  if (!op.UserDefined()) {
    ReduceWire(op, datatype, in, inout, count);
    return;
  }
  // A user-defined function sees the elements as laid out in memory.
  if (type.Dense()) {
    ApplyOp(op, datatype, in, inout, count);
    return;
  }
  std::uint64_t bytes = WireBytes(count, datatype);
  // Element i's bytes start at i * extent + true_lb from the buffer's
  // address (the last element lies lowest when the extent is negative).
  const std::int64_t spread = (count - 1) * type.extent;
  const std::int64_t low = std::min<std::int64_t>(0, spread) + type.true_lb;
  const std::int64_t high = std::max<std::int64_t>(0, spread) + type.true_lb +
                            static_cast<std::int64_t>(type.true_extent);
  const auto span = static_cast<std::size_t>(high - low);
  std::vector<std::byte> in_memory(span), inout_memory(span);
  std::byte* in_buffer = in_memory.data() - low;
  std::byte* inout_buffer = inout_memory.data() - low;
  UnpackElements(static_cast<const std::byte*>(in), bytes, in_buffer, count, type);
  UnpackElements(static_cast<const std::byte*>(inout), bytes, inout_buffer, count, type);
  ApplyOp(op, datatype, in_buffer, inout_buffer, count);
  PackElements(inout_buffer, count, type, static_cast<std::byte*>(inout));
}

MPI_Op OpCreate(MPI_User_function* function, int commute) {
  if (function == nullptr) throw Error(kErrArg, "MPI_Op_create: no function");
  std::vector<UserOp>& ops = UserOps();
  std::size_t index = 0;
  while (index < ops.size() && ops[index].live) ++index;
  if (index == ops.size()) ops.emplace_back();
  ops[index] = UserOp{function, nullptr, commute != 0, true};
  return MakeHandle(HandleKind::kOp, kFirstUserOp + static_cast<int>(index));
}

MPI_Op OpCreate(MPI_User_function_c* function, int commute) {
  if (function == nullptr) throw Error(kErrArg, "MPI_Op_create_c: no function");
  std::vector<UserOp>& ops = UserOps();
  std::size_t index = 0;
  while (index < ops.size() && ops[index].live) ++index;
  if (index == ops.size()) ops.emplace_back();
  ops[index] = UserOp{nullptr, function, commute != 0, true};
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

}  // namespace bdmpi
