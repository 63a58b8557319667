// The extern "C" MPI entry points of libbdmpi: thin wrappers that check
// output pointers, call into the runtime and pass errors through Guard.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/handles.h"
#include "slave/attributes.h"
#include "slave/coll_p2p.h"
#include "slave/collectives.h"
#include "slave/comm.h"
#include "slave/environment.h"
#include "slave/errors.h"
#include "slave/info.h"
#include "slave/objects.h"
#include "slave/p2p.h"
#include "slave/topology.h"

using bdmpi::Error;
using bdmpi::Guard;

namespace {

const char kLibraryVersion[] = "BDMPI 0.1 (MPI 3.1 subset, out-of-core runtime)";

}  // namespace

extern "C" {

// ------------------------------------------------------------ environment

#pragma weak MPI_Init = PMPI_Init
int PMPI_Init(int*, char***) {
  return Guard("MPI_Init", MPI_COMM_WORLD, [] { bdmpi::Initialize(MPI_THREAD_SINGLE, nullptr); });
}

#pragma weak MPI_Init_thread = PMPI_Init_thread
int PMPI_Init_thread(int*, char***, int required, int* provided) {
  return Guard("MPI_Init_thread", MPI_COMM_WORLD,
               [&] { bdmpi::Initialize(required, provided); });
}

#pragma weak MPI_Initialized = PMPI_Initialized
int PMPI_Initialized(int* flag) {
  *flag = bdmpi::IsInitialized();
  return MPI_SUCCESS;
}

#pragma weak MPI_Finalized = PMPI_Finalized
int PMPI_Finalized(int* flag) {
  *flag = bdmpi::IsFinalized();
  return MPI_SUCCESS;
}

#pragma weak MPI_Finalize = PMPI_Finalize
int PMPI_Finalize(void) {
  return Guard("MPI_Finalize", MPI_COMM_WORLD, [] {
    // MPI-3.1 8.7.1: MPI_COMM_SELF is freed first, its attributes deleted.
    if (bdmpi::IsInitialized() && !bdmpi::IsFinalized())
      bdmpi::DeleteAllAttrs(bdmpi::AttrKind::kComm, MPI_COMM_SELF);
    bdmpi::Finalize();
  });
}

#pragma weak MPI_Abort = PMPI_Abort
int PMPI_Abort(MPI_Comm, int errorcode) {
  std::fflush(stdout);
  std::fflush(stderr);
  bdmpi::AbortJob(errorcode);
}

#pragma weak MPI_Query_thread = PMPI_Query_thread
int PMPI_Query_thread(int* provided) {
  *provided = bdmpi::ThreadLevel();
  return MPI_SUCCESS;
}

#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
int PMPI_Is_thread_main(int* flag) {
  *flag = bdmpi::IsThreadMain();
  return MPI_SUCCESS;
}

#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
int PMPI_Get_processor_name(char* name, int* resultlen) {
  char host[MPI_MAX_PROCESSOR_NAME];
  if (gethostname(host, sizeof host) != 0) std::strcpy(host, "localhost");
  host[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
  std::strcpy(name, host);
  *resultlen = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
}

#pragma weak MPI_Get_version = PMPI_Get_version
int PMPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

#pragma weak MPI_Get_library_version = PMPI_Get_library_version
int PMPI_Get_library_version(char* version, int* resultlen) {
  std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "%s", kLibraryVersion);
  *resultlen = static_cast<int>(std::strlen(version));
  return MPI_SUCCESS;
}

#pragma weak MPI_Wtime = PMPI_Wtime
double PMPI_Wtime(void) { return bdmpi::Wtime(); }
#pragma weak MPI_Wtick = PMPI_Wtick
double PMPI_Wtick(void) { return bdmpi::Wtick(); }

#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int, ...) { return MPI_SUCCESS; }  // no profiler to control

#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  return Guard("MPI_Alloc_mem", MPI_COMM_WORLD, [&] {
    bdmpi::CheckInfoArgument(info);
    if (size < 0) throw Error(bdmpi::kErrArg, "negative size");
    void* memory = std::malloc(size > 0 ? static_cast<std::size_t>(size) : 1);
    if (memory == nullptr) throw Error(bdmpi::kErrNoMem, "MPI_Alloc_mem: out of memory");
    *static_cast<void**>(baseptr) = memory;
  });
}

#pragma weak MPI_Free_mem = PMPI_Free_mem
int PMPI_Free_mem(void* base) {
  std::free(base);
  return MPI_SUCCESS;
}

#pragma weak MPI_Get_address = PMPI_Get_address
int PMPI_Get_address(const void* location, MPI_Aint* address) {
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}

#pragma weak MPI_Aint_add = PMPI_Aint_add
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }
#pragma weak MPI_Aint_diff = PMPI_Aint_diff
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) { return addr1 - addr2; }

// ------------------------------------------------------------------- info

#pragma weak MPI_Info_create = PMPI_Info_create
int PMPI_Info_create(MPI_Info* info) {
  return Guard("MPI_Info_create", MPI_COMM_WORLD, [&] { *info = bdmpi::NewInfo(); });
}

#pragma weak MPI_Info_free = PMPI_Info_free
int PMPI_Info_free(MPI_Info* info) {
  return Guard("MPI_Info_free", MPI_COMM_WORLD, [&] { bdmpi::FreeInfo(info); });
}

#pragma weak MPI_Info_dup = PMPI_Info_dup
int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  return Guard("MPI_Info_dup", MPI_COMM_WORLD,
               [&] { *newinfo = bdmpi::NewInfo(bdmpi::LookupInfo(info)); });
}

#pragma weak MPI_Info_set = PMPI_Info_set
int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  return Guard("MPI_Info_set", MPI_COMM_WORLD, [&] { bdmpi::SetInfo(info, key, value); });
}

#pragma weak MPI_Info_get = PMPI_Info_get
int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  return Guard("MPI_Info_get", MPI_COMM_WORLD, [&] {
    if (valuelen < 0) throw Error(bdmpi::kErrArg, "negative valuelen");
    const std::string* found = bdmpi::FindInfo(info, key);
    *flag = found != nullptr;
    if (found == nullptr) return;
    // MPI: at most valuelen characters, plus the terminating null.
    std::size_t length = std::min<std::size_t>(found->size(), static_cast<std::size_t>(valuelen));
    std::memcpy(value, found->data(), length);
    value[length] = '\0';
  });
}

#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  return Guard("MPI_Info_get_valuelen", MPI_COMM_WORLD, [&] {
    const std::string* found = bdmpi::FindInfo(info, key);
    *flag = found != nullptr;
    if (found != nullptr) *valuelen = static_cast<int>(found->size());
  });
}

#pragma weak MPI_Info_delete = PMPI_Info_delete
int PMPI_Info_delete(MPI_Info info, const char* key) {
  return Guard("MPI_Info_delete", MPI_COMM_WORLD, [&] { bdmpi::DeleteInfo(info, key); });
}

#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  return Guard("MPI_Info_get_nkeys", MPI_COMM_WORLD, [&] {
    *nkeys = static_cast<int>(bdmpi::LookupInfo(info).size());
  });
}

#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  return Guard("MPI_Info_get_nthkey", MPI_COMM_WORLD, [&] {
    const bdmpi::InfoEntries& entries = bdmpi::LookupInfo(info);
    if (n < 0 || n >= static_cast<int>(entries.size()))
      throw Error(bdmpi::kErrArg, "no info key number " + std::to_string(n));
    std::snprintf(key, MPI_MAX_INFO_KEY + 1, "%s", entries[n].first.c_str());
  });
}

// ---------------------------------------------------------- communicators

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int* size) {
  return Guard("MPI_Comm_size", comm, [&] {
    bdmpi::RequireInitialized();
    *size = bdmpi::LookupComm(comm).size;
  });
}

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  return Guard("MPI_Comm_rank", comm, [&] {
    bdmpi::RequireInitialized();
    *rank = bdmpi::LookupComm(comm).rank;
  });
}

#pragma weak MPI_Comm_split = PMPI_Comm_split
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return Guard("MPI_Comm_split", comm,
               [&] { *newcomm = bdmpi::CommSplit(comm, color, key); });
}

#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm* newcomm) {
  return Guard("MPI_Comm_split_type", comm, [&] {
    bdmpi::CheckInfoArgument(info);
    *newcomm = bdmpi::CommSplitType(comm, split_type, key);
  });
}

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return Guard("MPI_Comm_dup", comm, [&] { *newcomm = bdmpi::CommDup(comm); });
}

#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return Guard("MPI_Comm_dup_with_info", comm, [&] {
    bdmpi::CheckInfoArgument(info);
    *newcomm = bdmpi::CommDup(comm);
  });
}

#pragma weak MPI_Comm_create = PMPI_Comm_create
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return Guard("MPI_Comm_create", comm,
               [&] { *newcomm = bdmpi::CommCreate(comm, group); });
}

#pragma weak MPI_Comm_free = PMPI_Comm_free
int PMPI_Comm_free(MPI_Comm* comm) {
  return Guard("MPI_Comm_free", *comm, [&] { bdmpi::CommFree(comm); });
}

#pragma weak MPI_Comm_compare = PMPI_Comm_compare
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  return Guard("MPI_Comm_compare", comm1,
               [&] { *result = bdmpi::CommCompare(comm1, comm2); });
}

#pragma weak MPI_Comm_group = PMPI_Comm_group
int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  return Guard("MPI_Comm_group", comm, [&] { *group = bdmpi::CommGroup(comm); });
}

// ----------------------------------------------------------------- groups
// Errors with groups go to MPI_COMM_WORLD's handler.

#pragma weak MPI_Group_size = PMPI_Group_size
int PMPI_Group_size(MPI_Group group, int* size) {
  return Guard("MPI_Group_size", MPI_COMM_WORLD, [&] {
    *size = static_cast<int>(bdmpi::LookupGroup(group).size());
  });
}

#pragma weak MPI_Group_rank = PMPI_Group_rank
int PMPI_Group_rank(MPI_Group group, int* rank) {
  return Guard("MPI_Group_rank", MPI_COMM_WORLD,
               [&] { *rank = bdmpi::GroupRank(group); });
}

#pragma weak MPI_Group_free = PMPI_Group_free
int PMPI_Group_free(MPI_Group* group) {
  return Guard("MPI_Group_free", MPI_COMM_WORLD, [&] { bdmpi::FreeGroup(group); });
}

#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                              MPI_Group group2, int ranks2[]) {
  return Guard("MPI_Group_translate_ranks", MPI_COMM_WORLD, [&] {
    bdmpi::GroupTranslateRanks(group1, n, ranks1, group2, ranks2);
  });
}

#pragma weak MPI_Group_compare = PMPI_Group_compare
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  return Guard("MPI_Group_compare", MPI_COMM_WORLD,
               [&] { *result = bdmpi::GroupCompare(group1, group2); });
}

#pragma weak MPI_Group_incl = PMPI_Group_incl
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return Guard("MPI_Group_incl", MPI_COMM_WORLD,
               [&] { *newgroup = bdmpi::GroupIncl(group, n, ranks); });
}

#pragma weak MPI_Group_excl = PMPI_Group_excl
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return Guard("MPI_Group_excl", MPI_COMM_WORLD,
               [&] { *newgroup = bdmpi::GroupExcl(group, n, ranks); });
}

#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return Guard("MPI_Group_range_incl", MPI_COMM_WORLD,
               [&] { *newgroup = bdmpi::GroupRangeIncl(group, n, ranges); });
}

#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return Guard("MPI_Group_range_excl", MPI_COMM_WORLD,
               [&] { *newgroup = bdmpi::GroupRangeExcl(group, n, ranges); });
}

#pragma weak MPI_Group_union = PMPI_Group_union
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return Guard("MPI_Group_union", MPI_COMM_WORLD,
               [&] { *newgroup = bdmpi::GroupUnion(group1, group2); });
}

#pragma weak MPI_Group_intersection = PMPI_Group_intersection
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return Guard("MPI_Group_intersection", MPI_COMM_WORLD,
               [&] { *newgroup = bdmpi::GroupIntersection(group1, group2); });
}

#pragma weak MPI_Group_difference = PMPI_Group_difference
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return Guard("MPI_Group_difference", MPI_COMM_WORLD,
               [&] { *newgroup = bdmpi::GroupDifference(group1, group2); });
}

#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
int PMPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  return Guard("MPI_Comm_set_name", comm, [&] {
    bdmpi::RequireInitialized();
    bdmpi::LookupComm(comm).name = std::string(comm_name).substr(0, MPI_MAX_OBJECT_NAME - 1);
  });
}

#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
int PMPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  return Guard("MPI_Comm_get_name", comm, [&] {
    bdmpi::RequireInitialized();
    std::snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", bdmpi::LookupComm(comm).name.c_str());
    *resultlen = static_cast<int>(std::strlen(comm_name));
  });
}

// -------------------------------------------------------------- datatypes

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  return Guard("MPI_Type_size", MPI_COMM_WORLD, [&] {
    std::uint64_t bytes = bdmpi::LookupType(datatype).size;
    *size = bytes > INT_MAX ? MPI_UNDEFINED : static_cast<int>(bytes);
  });
}

#pragma weak MPI_Type_size_x = PMPI_Type_size_x
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  return Guard("MPI_Type_size_x", MPI_COMM_WORLD, [&] {
    *size = static_cast<MPI_Count>(bdmpi::LookupType(datatype).size);
  });
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  return Guard("MPI_Type_get_extent", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeInfo& type = bdmpi::LookupType(datatype);
    *lb = static_cast<MPI_Aint>(type.lb);
    *extent = static_cast<MPI_Aint>(type.extent);
  });
}

#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return Guard("MPI_Type_get_extent_x", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeInfo& type = bdmpi::LookupType(datatype);
    *lb = static_cast<MPI_Count>(type.lb);
    *extent = static_cast<MPI_Count>(type.extent);
  });
}

#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb,
                             MPI_Aint* true_extent) {
  return Guard("MPI_Type_get_true_extent", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeInfo& type = bdmpi::LookupType(datatype);
    *true_lb = static_cast<MPI_Aint>(type.true_lb);
    *true_extent = static_cast<MPI_Aint>(type.true_extent);
  });
}

#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                               MPI_Count* true_extent) {
  return Guard("MPI_Type_get_true_extent_x", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeInfo& type = bdmpi::LookupType(datatype);
    *true_lb = static_cast<MPI_Count>(type.true_lb);
    *true_extent = static_cast<MPI_Count>(type.true_extent);
  });
}

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_contiguous", MPI_COMM_WORLD, [&] {
    bdmpi::TypeBlock block{count, oldtype, 0};
    *newtype = bdmpi::NewType({&block, 1}, false, "MPI_Type_contiguous");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_CONTIGUOUS, {count}, {}, {oldtype});
  });
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype* newtype) {
  return Guard("MPI_Type_vector", MPI_COMM_WORLD, [&] {
    std::int64_t extent = static_cast<std::int64_t>(bdmpi::LookupType(oldtype).extent);
    *newtype = bdmpi::NewVectorType(count, blocklength, std::int64_t{stride} * extent,
                                    oldtype, "MPI_Type_vector");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_VECTOR, {count, blocklength, stride}, {},
                       {oldtype});
  });
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                            MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_hvector", MPI_COMM_WORLD, [&] {
    *newtype = bdmpi::NewVectorType(count, blocklength, stride, oldtype,
                                    "MPI_Type_create_hvector");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_HVECTOR, {count, blocklength}, {stride},
                       {oldtype});
  });
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int blocklengths[], const int displacements[],
                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_indexed", MPI_COMM_WORLD, [&] {
    bdmpi::CheckTypeCount(count, "MPI_Type_indexed");
    std::int64_t extent = static_cast<std::int64_t>(bdmpi::LookupType(oldtype).extent);
    std::vector<bdmpi::TypeBlock> blocks;
    for (int i = 0; i < count; ++i)
      blocks.push_back({blocklengths[i], oldtype, displacements[i] * extent});
    *newtype = bdmpi::NewType(blocks, false, "MPI_Type_indexed");
    std::vector<int> ints{count};
    ints.insert(ints.end(), blocklengths, blocklengths + count);
    ints.insert(ints.end(), displacements, displacements + count);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_INDEXED, std::move(ints), {}, {oldtype});
  });
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength, const int displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_indexed_block", MPI_COMM_WORLD, [&] {
    bdmpi::CheckTypeCount(count, "MPI_Type_create_indexed_block");
    std::int64_t extent = static_cast<std::int64_t>(bdmpi::LookupType(oldtype).extent);
    std::vector<bdmpi::TypeBlock> blocks;
    for (int i = 0; i < count; ++i)
      blocks.push_back({blocklength, oldtype, displacements[i] * extent});
    *newtype = bdmpi::NewType(blocks, false, "MPI_Type_create_indexed_block");
    std::vector<int> ints{count, blocklength};
    ints.insert(ints.end(), displacements, displacements + count);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_INDEXED_BLOCK, std::move(ints), {},
                       {oldtype});
  });
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int blocklengths[],
                             const MPI_Aint displacements[], MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_hindexed", MPI_COMM_WORLD, [&] {
    bdmpi::CheckTypeCount(count, "MPI_Type_create_hindexed");
    std::vector<bdmpi::TypeBlock> blocks;
    for (int i = 0; i < count; ++i)
      blocks.push_back({blocklengths[i], oldtype, displacements[i]});
    *newtype = bdmpi::NewType(blocks, false, "MPI_Type_create_hindexed");
    std::vector<int> ints{count};
    ints.insert(ints.end(), blocklengths, blocklengths + count);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_HINDEXED, std::move(ints),
                       {displacements, displacements + count}, {oldtype});
  });
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int blocklengths[],
                           const MPI_Aint displacements[], const MPI_Datatype types[],
                           MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_struct", MPI_COMM_WORLD, [&] {
    bdmpi::CheckTypeCount(count, "MPI_Type_create_struct");
    std::vector<bdmpi::TypeBlock> blocks;
    for (int i = 0; i < count; ++i)
      blocks.push_back({blocklengths[i], types[i], displacements[i]});
    *newtype = bdmpi::NewType(blocks, true, "MPI_Type_create_struct");
    std::vector<int> ints{count};
    ints.insert(ints.end(), blocklengths, blocklengths + count);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_STRUCT, std::move(ints),
                       {displacements, displacements + count}, {types, types + count});
  });
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_resized", MPI_COMM_WORLD, [&] {
    *newtype = bdmpi::NewResizedType(oldtype, lb, extent);
  });
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_hindexed_block", MPI_COMM_WORLD, [&] {
    bdmpi::CheckTypeCount(count, "MPI_Type_create_hindexed_block");
    std::vector<bdmpi::TypeBlock> blocks;
    for (int i = 0; i < count; ++i) blocks.push_back({blocklength, oldtype, displacements[i]});
    *newtype = bdmpi::NewType(blocks, false, "MPI_Type_create_hindexed_block");
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_HINDEXED_BLOCK, {count, blocklength},
                       {displacements, displacements + count}, {oldtype});
  });
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                             const int starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  return Guard("MPI_Type_create_subarray", MPI_COMM_WORLD, [&] {
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
      throw Error(bdmpi::kErrArg,
                  "MPI_Type_create_subarray: order must be MPI_ORDER_C or MPI_ORDER_FORTRAN");
    if (ndims <= 0)
      throw Error(bdmpi::kErrArg, "MPI_Type_create_subarray: ndims must be positive");
    auto n = static_cast<std::size_t>(ndims);
    *newtype = bdmpi::NewSubarrayType({sizes, n}, {subsizes, n}, {starts, n},
                                      order == MPI_ORDER_C, oldtype);
    std::vector<int> ints{ndims};
    for (const int* array : {sizes, subsizes, starts}) ints.insert(ints.end(), array, array + n);
    ints.push_back(order);
    bdmpi::SetEnvelope(*newtype, MPI_COMBINER_SUBARRAY, std::move(ints), {}, {oldtype});
  });
}

// MPI-1 names (deprecated, removed in MPI-3.0, still in Open MPI 4.1).
#pragma weak MPI_Type_hvector = PMPI_Type_hvector
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype* newtype) {
  return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

#pragma weak MPI_Type_hindexed = PMPI_Type_hindexed
int PMPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[],
                      MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return PMPI_Type_create_hindexed(count, blocklengths, displacements, oldtype, newtype);
}

#pragma weak MPI_Type_struct = PMPI_Type_struct
int PMPI_Type_struct(int count, int blocklengths[], MPI_Aint displacements[],
                    MPI_Datatype types[], MPI_Datatype* newtype) {
  return PMPI_Type_create_struct(count, blocklengths, displacements, types, newtype);
}

#pragma weak MPI_Address = PMPI_Address
int PMPI_Address(void* location, MPI_Aint* address) {
  return PMPI_Get_address(location, address);
}

#pragma weak MPI_Type_extent = PMPI_Type_extent
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  MPI_Aint lb = 0;
  return PMPI_Type_get_extent(datatype, &lb, extent);
}

#pragma weak MPI_Type_lb = PMPI_Type_lb
int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint extent = 0;
  return PMPI_Type_get_extent(datatype, displacement, &extent);
}

#pragma weak MPI_Type_ub = PMPI_Type_ub
int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint lb = 0, extent = 0;
  int error = PMPI_Type_get_extent(datatype, &lb, &extent);
  if (error == MPI_SUCCESS) *displacement = lb + extent;
  return error;
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                          int* num_datatypes, int* combiner) {
  return Guard("MPI_Type_get_envelope", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeEnvelope& envelope = bdmpi::EnvelopeOf(datatype);
    *num_integers = static_cast<int>(envelope.ints.size());
    *num_addresses = static_cast<int>(envelope.aints.size());
    *num_datatypes = static_cast<int>(envelope.types.size());
    *combiner = envelope.combiner;
  });
}

#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int integers[], MPI_Aint addresses[],
                          MPI_Datatype datatypes[]) {
  return Guard("MPI_Type_get_contents", MPI_COMM_WORLD, [&] {
    const bdmpi::TypeEnvelope& envelope = bdmpi::EnvelopeOf(datatype);
    if (envelope.combiner == MPI_COMBINER_NAMED)
      throw Error(bdmpi::kErrArg,
                  "MPI_Type_get_contents: a predefined datatype has no contents");
    if (static_cast<std::size_t>(max_integers) < envelope.ints.size() ||
        static_cast<std::size_t>(max_addresses) < envelope.aints.size() ||
        static_cast<std::size_t>(max_datatypes) < envelope.types.size())
      throw Error(bdmpi::kErrArg,
                  "MPI_Type_get_contents: the arrays are smaller than "
                  "MPI_Type_get_envelope's counts");
    std::copy(envelope.ints.begin(), envelope.ints.end(), integers);
    std::copy(envelope.aints.begin(), envelope.aints.end(), addresses);
    std::copy(envelope.types.begin(), envelope.types.end(), datatypes);
    bdmpi::TakeContentTypes(datatype);
  });
}

#pragma weak MPI_Type_dup = PMPI_Type_dup
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return Guard("MPI_Type_dup", MPI_COMM_WORLD, [&] {
    *newtype = bdmpi::DupType(oldtype);
    bdmpi::CopyAttrs(bdmpi::AttrKind::kType, oldtype, *newtype);
  });
}

#pragma weak MPI_Type_commit = PMPI_Type_commit
int PMPI_Type_commit(MPI_Datatype* datatype) {
  return Guard("MPI_Type_commit", MPI_COMM_WORLD, [&] { bdmpi::CommitType(datatype); });
}

#pragma weak MPI_Type_free = PMPI_Type_free
int PMPI_Type_free(MPI_Datatype* datatype) {
  return Guard("MPI_Type_free", MPI_COMM_WORLD, [&] {
    bdmpi::LookupType(*datatype);
    bdmpi::DeleteAllAttrs(bdmpi::AttrKind::kType, *datatype);
    bdmpi::FreeType(datatype);
  });
}

#pragma weak MPI_Type_get_name = PMPI_Type_get_name
int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  return Guard("MPI_Type_get_name", MPI_COMM_WORLD, [&] {
    const std::string& name = bdmpi::LookupType(datatype).name;
    std::snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", name.c_str());
    *resultlen = static_cast<int>(std::strlen(type_name));
  });
}

#pragma weak MPI_Type_set_name = PMPI_Type_set_name
int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  return Guard("MPI_Type_set_name", MPI_COMM_WORLD,
               [&] { bdmpi::SetTypeName(datatype, type_name); });
}

#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  *flag = status->bdmpi_cancelled;
  return MPI_SUCCESS;
}

#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
             int outsize, int* position, MPI_Comm comm) {
  return Guard("MPI_Pack", comm, [&] {
    const bdmpi::TypeInfo& type = bdmpi::CommType(incount, datatype);
    std::uint64_t bytes = bdmpi::WireBytes(incount, datatype);
    if (*position < 0 || static_cast<std::uint64_t>(*position) + bytes >
                             static_cast<std::uint64_t>(outsize))
      throw Error(bdmpi::kErrTruncate, "MPI_Pack: the output buffer is too small");
    bdmpi::PackElements(inbuf, incount, type, static_cast<std::byte*>(outbuf) + *position);
    *position += static_cast<int>(bytes);
  });
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm) {
  return Guard("MPI_Unpack", comm, [&] {
    const bdmpi::TypeInfo& type = bdmpi::CommType(outcount, datatype);
    std::uint64_t bytes = bdmpi::WireBytes(outcount, datatype);
    if (*position < 0 ||
        static_cast<std::uint64_t>(*position) + bytes > static_cast<std::uint64_t>(insize))
      throw Error(bdmpi::kErrTruncate, "MPI_Unpack: the input buffer is too short");
    bdmpi::UnpackElements(static_cast<const std::byte*>(inbuf) + *position, bytes, outbuf,
                          outcount, type);
    *position += static_cast<int>(bytes);
  });
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  return Guard("MPI_Pack_size", comm, [&] {
    std::uint64_t bytes = bdmpi::WireBytes(incount, datatype);
    if (bytes > INT_MAX) throw Error(bdmpi::kErrCount, "MPI_Pack_size: more than 2 GiB");
    *size = static_cast<int>(bytes);
  });
}

#pragma weak MPI_Get_count = PMPI_Get_count
int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return Guard("MPI_Get_count", MPI_COMM_WORLD, [&] {
    *count = bdmpi::CountOf(static_cast<std::uint64_t>(status->bdmpi_count), datatype);
  });
}

#pragma weak MPI_Get_elements = PMPI_Get_elements
int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return Guard("MPI_Get_elements", MPI_COMM_WORLD, [&] {
    std::int64_t elements =
        bdmpi::ElementsOf(static_cast<std::uint64_t>(status->bdmpi_count), datatype);
    *count = elements > INT_MAX ? MPI_UNDEFINED : static_cast<int>(elements);
  });
}

#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x
int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return Guard("MPI_Get_elements_x", MPI_COMM_WORLD, [&] {
    *count = bdmpi::ElementsOf(static_cast<std::uint64_t>(status->bdmpi_count), datatype);
  });
}

// --------------------------------------------------------- point-to-point

// Every send is copied out by the runtime: the ready mode is an ordinary
// send, a buffered one must fit in what the attached buffer has left
// (slave/bsend_buffer.h), and a non-blocking send is complete when it
// returns (synchronous ones: api_p2p_more.cpp).
#pragma weak MPI_Send = PMPI_Send
int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm) {
  return Guard("MPI_Send", comm,
               [&] { bdmpi::Send(buf, count, datatype, dest, tag, comm); });
}

#pragma weak MPI_Bsend = PMPI_Bsend
int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm) {
  return Guard("MPI_Bsend", comm,
               [&] {
                 bdmpi::Send(buf, count, datatype, dest, tag, comm, bdmpi::SendMode::kBuffered);
               });
}

#pragma weak MPI_Rsend = PMPI_Rsend
int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm) {
  return Guard("MPI_Rsend", comm,
               [&] { bdmpi::Send(buf, count, datatype, dest, tag, comm); });
}

#pragma weak MPI_Isend = PMPI_Isend
int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Isend", comm,
               [&] { *request = bdmpi::Isend(buf, count, datatype, dest, tag, comm); });
}

#pragma weak MPI_Ibsend = PMPI_Ibsend
int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Ibsend", comm,
               [&] {
                 *request = bdmpi::Isend(buf, count, datatype, dest, tag, comm,
                                         bdmpi::SendMode::kBuffered);
               });
}

#pragma weak MPI_Irsend = PMPI_Irsend
int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Irsend", comm,
               [&] { *request = bdmpi::Isend(buf, count, datatype, dest, tag, comm); });
}

#pragma weak MPI_Send_init = PMPI_Send_init
int PMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Send_init", comm,
               [&] { *request = bdmpi::SendInit(buf, count, datatype, dest, tag, comm); });
}

#pragma weak MPI_Bsend_init = PMPI_Bsend_init
int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Bsend_init", comm,
               [&] {
                 *request = bdmpi::SendInit(buf, count, datatype, dest, tag, comm,
                                            bdmpi::SendMode::kBuffered);
               });
}

#pragma weak MPI_Rsend_init = PMPI_Rsend_init
int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Rsend_init", comm,
               [&] { *request = bdmpi::SendInit(buf, count, datatype, dest, tag, comm); });
}

#pragma weak MPI_Recv_init = PMPI_Recv_init
int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Recv_init", comm,
               [&] { *request = bdmpi::RecvInit(buf, count, datatype, source, tag, comm); });
}

#pragma weak MPI_Start = PMPI_Start
int PMPI_Start(MPI_Request* request) {
  return Guard("MPI_Start", bdmpi::RequestComm(*request), [&] { bdmpi::Start(request); });
}

#pragma weak MPI_Startall = PMPI_Startall
int PMPI_Startall(int count, MPI_Request requests[]) {
  return Guard("MPI_Startall", bdmpi::RequestsComm(count, requests), [&] {
    if (count < 0) throw Error(bdmpi::kErrCount, "negative count");
    for (int i = 0; i < count; ++i) bdmpi::Start(&requests[i]);
  });
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void* buffer, int size) {
  return Guard("MPI_Buffer_attach", MPI_COMM_WORLD,
               [&] { bdmpi::AttachBuffer(buffer, size); });
}

#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  return Guard("MPI_Buffer_detach", MPI_COMM_WORLD,
               [&] { bdmpi::DetachBuffer(static_cast<void**>(buffer_addr), size); });
}

#pragma weak MPI_Recv = PMPI_Recv
int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag,
             MPI_Comm comm, MPI_Status* status) {
  return Guard("MPI_Recv", comm,
               [&] { bdmpi::Recv(buf, count, datatype, source, tag, comm, status); });
}

#pragma weak MPI_Irecv = PMPI_Irecv
int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag,
              MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Irecv", comm, [&] {
    *request = bdmpi::Irecv(buf, count, datatype, source, tag, comm);
  });
}

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return Guard("MPI_Sendrecv", comm, [&] {
    // Sends are buffered, so sending first cannot deadlock.
    bdmpi::Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
    bdmpi::Recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status);
  });
}

#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest,
                         int sendtag, int source, int recvtag, MPI_Comm comm,
                         MPI_Status* status) {
  return Guard("MPI_Sendrecv_replace", comm, [&] {
    // The send has copied the buffer (into the master, its window or a
    // file) when it returns, so the receive may overwrite it.
    bdmpi::Send(buf, count, datatype, dest, sendtag, comm);
    bdmpi::Recv(buf, count, datatype, source, recvtag, comm, status);
  });
}

#pragma weak MPI_Probe = PMPI_Probe
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return Guard("MPI_Probe", comm, [&] { bdmpi::Probe(source, tag, comm, status); });
}

#pragma weak MPI_Iprobe = PMPI_Iprobe
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return Guard("MPI_Iprobe", comm,
               [&] { *flag = bdmpi::Iprobe(source, tag, comm, status); });
}

// --------------------------------------------------------------- requests

#pragma weak MPI_Wait = PMPI_Wait
int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  MPI_Comm comm = bdmpi::RequestComm(*request);
  return Guard("MPI_Wait", comm, [&] {
    int error = bdmpi::Wait(request, status);
    if (error != MPI_SUCCESS) throw Error(error, "message truncated");
  });
}

#pragma weak MPI_Test = PMPI_Test
int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  MPI_Comm comm = bdmpi::RequestComm(*request);
  return Guard("MPI_Test", comm, [&] {
    int error = bdmpi::Test(request, flag, status);
    if (error != MPI_SUCCESS) throw Error(error, "message truncated");
  });
}

#pragma weak MPI_Waitall = PMPI_Waitall
int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  return Guard("MPI_Waitall", bdmpi::RequestsComm(count, requests), [&] {
    if (bdmpi::Waitall(count, requests, statuses) != MPI_SUCCESS)
      throw Error(bdmpi::kErrInStatus, "a request failed; see its status");
  });
}

#pragma weak MPI_Waitany = PMPI_Waitany
int PMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  return Guard("MPI_Waitany", bdmpi::RequestsComm(count, requests), [&] {
    int error = bdmpi::Waitany(count, requests, index, status);
    if (error != MPI_SUCCESS) throw Error(error, "message truncated");
  });
}

#pragma weak MPI_Testany = PMPI_Testany
int PMPI_Testany(int count, MPI_Request requests[], int* index, int* flag,
                MPI_Status* status) {
  return Guard("MPI_Testany", bdmpi::RequestsComm(count, requests), [&] {
    int error = bdmpi::Testany(count, requests, index, flag, status);
    if (error != MPI_SUCCESS) throw Error(error, "message truncated");
  });
}

#pragma weak MPI_Waitsome = PMPI_Waitsome
int PMPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  return Guard("MPI_Waitsome", bdmpi::RequestsComm(incount, requests), [&] {
    if (bdmpi::Waitsome(incount, requests, outcount, indices, statuses) != MPI_SUCCESS)
      throw Error(bdmpi::kErrInStatus, "a request failed; see its status");
  });
}

#pragma weak MPI_Testsome = PMPI_Testsome
int PMPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  return Guard("MPI_Testsome", bdmpi::RequestsComm(incount, requests), [&] {
    if (bdmpi::Testsome(incount, requests, outcount, indices, statuses) != MPI_SUCCESS)
      throw Error(bdmpi::kErrInStatus, "a request failed; see its status");
  });
}

#pragma weak MPI_Testall = PMPI_Testall
int PMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  return Guard("MPI_Testall", bdmpi::RequestsComm(count, requests), [&] {
    if (bdmpi::Testall(count, requests, flag, statuses) != MPI_SUCCESS)
      throw Error(bdmpi::kErrInStatus, "a request failed; see its status");
  });
}

#pragma weak MPI_Request_free = PMPI_Request_free
int PMPI_Request_free(MPI_Request* request) {
  return Guard("MPI_Request_free", bdmpi::RequestComm(*request),
               [&] { bdmpi::RequestFree(request); });
}

// ------------------------------------------------------------- topologies

#pragma weak MPI_Dims_create = PMPI_Dims_create
int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  return Guard("MPI_Dims_create", MPI_COMM_WORLD,
               [&] { bdmpi::DimsCreate(nnodes, ndims, dims); });
}

// ------------------------------------------------------------ collectives

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm) {
  return Guard("MPI_Barrier", comm, [&] { bdmpi::Barrier(comm); });
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return Guard("MPI_Bcast", comm,
               [&] { bdmpi::Bcast(buffer, count, datatype, root, comm); });
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
               MPI_Op op, int root, MPI_Comm comm) {
  return Guard("MPI_Reduce", comm, [&] {
    bdmpi::Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  });
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm) {
  return Guard("MPI_Allreduce", comm, [&] {
    bdmpi::Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  });
}

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Guard("MPI_Gather", comm, [&] {
    bdmpi::Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  return Guard("MPI_Gatherv", comm, [&] {
    bdmpi::Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                   comm);
  });
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Guard("MPI_Scatter", comm, [&] {
    bdmpi::Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  return Guard("MPI_Scatterv", comm, [&] {
    bdmpi::Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                    comm);
  });
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return Guard("MPI_Allgather", comm, [&] {
    bdmpi::Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  return Guard("MPI_Allgatherv", comm, [&] {
    bdmpi::Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                      comm);
  });
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return Guard("MPI_Alltoall", comm, [&] {
    bdmpi::Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return Guard("MPI_Alltoallv", comm, [&] {
    bdmpi::Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                     recvtype, comm);
  });
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm) {
  return Guard("MPI_Scan", comm,
               [&] { bdmpi::Scan(sendbuf, recvbuf, count, datatype, op, comm); });
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm) {
  return Guard("MPI_Exscan", comm,
               [&] { bdmpi::Exscan(sendbuf, recvbuf, count, datatype, op, comm); });
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Guard("MPI_Reduce_scatter_block", comm, [&] {
    bdmpi::ReduceScatterBlock(sendbuf, recvbuf, recvcount, datatype, op, comm);
  });
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Guard("MPI_Reduce_scatter", comm, [&] {
    bdmpi::ReduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  });
}

#pragma weak MPI_Op_create = PMPI_Op_create
int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  return Guard("MPI_Op_create", MPI_COMM_WORLD,
               [&] { *op = bdmpi::OpCreate(user_fn, commute); });
}

#pragma weak MPI_Op_free = PMPI_Op_free
int PMPI_Op_free(MPI_Op* op) {
  return Guard("MPI_Op_free", MPI_COMM_WORLD, [&] { bdmpi::OpFree(op); });
}

}  // extern "C"
