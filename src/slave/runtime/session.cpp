// MPI-4 sessions; see session.h.
#include "slave/runtime/session.h"

#include <strings.h>

#include <cstring>
#include <map>
#include <string>

#include "common/error.h"
#include "common/handles.h"
#include "slave/runtime/environment.h"
#include "slave/runtime/errhandlers.h"
#include "slave/runtime/handle_table.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

HandleTable<SessionInfo>& Sessions() {
  static HandleTable<SessionInfo> sessions(HandleKind::kSession, 0);
  return sessions;
}

constexpr const char* kWorld = "mpi://WORLD";
constexpr const char* kSelf = "mpi://SELF";
constexpr const char* kNode = "bdmpi://NODE";

// MPI 4.1 11.3.1: the info key "thread_level" asks for a level by name.
int RequestedLevel(MPI_Info info) {
  if (info == MPI_INFO_NULL) return MPI_THREAD_SINGLE;
  const std::string* asked = FindInfo(info, "thread_level");
  if (asked == nullptr) return MPI_THREAD_SINGLE;
  static const std::pair<const char*, int> kLevels[] = {
      {"MPI_THREAD_SINGLE", MPI_THREAD_SINGLE},
      {"MPI_THREAD_FUNNELED", MPI_THREAD_FUNNELED},
      {"MPI_THREAD_SERIALIZED", MPI_THREAD_SERIALIZED},
      {"MPI_THREAD_MULTIPLE", MPI_THREAD_MULTIPLE}};
  for (const auto& [name, level] : kLevels)
    if (*asked == name) return level;
  throw Error(MPI_ERR_INFO_VALUE, "MPI_Session_init: thread_level \"" + *asked +
                                      "\" is none of MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, "
                                      "MPI_THREAD_SERIALIZED and MPI_THREAD_MULTIPLE");
}

std::map<MPI_Group, MPI_Session>& GroupSessions() {
  static std::map<MPI_Group, MPI_Session> sessions;
  return sessions;
}

}  // namespace

void SetGroupSession(MPI_Group group, MPI_Session session) {
  if (group == MPI_GROUP_EMPTY || group == MPI_GROUP_NULL) return;
  if (session == MPI_SESSION_NULL) {
    GroupSessions().erase(group);
  } else {
    GroupSessions()[group] = session;
  }
}

MPI_Session GroupSession(MPI_Group group) {
  auto found = GroupSessions().find(group);
  return found == GroupSessions().end() ? MPI_SESSION_NULL : found->second;
}

void ForgetGroupSession(MPI_Group group) { GroupSessions().erase(group); }

void CheckSessionErrhandler(MPI_Errhandler errhandler) {
  if (errhandler == MPI_ERRORS_ARE_FATAL || errhandler == MPI_ERRORS_RETURN ||
      errhandler == MPI_ERRORS_ABORT)
    return;
  CheckErrhandler(errhandler);
  if (SessionErrhandlerFunction(errhandler) == nullptr)
    throw Error(kErrArg,
                "not an error handler for sessions (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT, "
                "MPI_ERRORS_RETURN or one from MPI_Session_create_errhandler)");
}

MPI_Session OpenSession(MPI_Info info, MPI_Errhandler errhandler) {
  CheckInfoArgument(info);
  CheckSessionErrhandler(errhandler);
  SessionInfo session;
  session.errhandler = errhandler;
  int required = RequestedLevel(info);
  if (info != MPI_INFO_NULL) session.hints = LookupInfo(info);
  session.thread_level = ConnectSession(required);
  return Sessions().Add(std::move(session));
}

void CloseSession(MPI_Session* session) {
  LookupSession(*session);
  Sessions().Remove(*session);
  *session = MPI_SESSION_NULL;
  DisconnectSession();
}

SessionInfo& LookupSession(MPI_Session session) {
  SessionInfo* found = Sessions().Find(session);
  if (found == nullptr)
    throw Error(MPI_ERR_SESSION, session == MPI_SESSION_NULL
                                     ? "MPI_SESSION_NULL is not a session"
                                     : "not a session (or one already finalized)");
  return *found;
}

std::vector<std::string> PsetNames() { return {kWorld, kSelf, kNode}; }

std::vector<int> PsetMembers(const char* name) {
  if (name == nullptr) throw Error(kErrArg, "no process set name given");
  Runtime* runtime = Runtime::Instance();
  BDMPI_ENFORCE(runtime != nullptr, "a session without the runtime");
  std::vector<int> members;
  // Set names are matched without regard to case, as Open MPI and MPICH do
  // (MPICH's own tests ask for "mpi://world").
  if (strcasecmp(name, kWorld) == 0) {
    for (int r = 0; r < runtime->world_size(); ++r) members.push_back(r);
  } else if (strcasecmp(name, kSelf) == 0) {
    members.push_back(runtime->world_rank());
  } else if (strcasecmp(name, kNode) == 0) {
    RankLayout layout = runtime->layout();
    int first = layout.FirstRank(runtime->node());
    for (int r = first; r < first + layout.Count(runtime->node()); ++r) members.push_back(r);
  } else {
    throw Error(kErrArg, std::string("no process set \"") + name + "\": there are \"" + kWorld +
                             "\", \"" + kSelf + "\" and \"" + kNode + "\"");
  }
  return members;
}

int RaiseSessionError(const char* function, MPI_Session session, int error_class,
                      const char* detail) {
  SessionInfo* found = Sessions().Find(session);
  // MPI 4.1 9.3: an error tied to no valid object is raised on
  // MPI_COMM_SELF, or on the initial handler (fatal) outside the World Model.
  if (found == nullptr) return RaiseError(function, MPI_COMM_SELF, error_class, detail);
  MPI_Errhandler handler = found->errhandler;
  if (MPI_Session_errhandler_function* user = SessionErrhandlerFunction(handler)) {
    MPI_Session handled = session;
    int code = error_class;
    user(&handled, &code);
    return error_class;
  }
  return ApplyErrhandler(handler, function, error_class, detail);
}

}  // namespace bdmpi
