// The extern "C" entry points of MPI-4 sessions (MPI 4.1 11.3): sessions,
// their error handlers, process sets, and communicators made from a
// session's groups. See runtime/session.h.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "common/error.h"
#include "slave/comm/comm_register.h"
#include "slave/p2p/bsend_buffer.h"
#include "slave/runtime/errhandlers.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/session.h"

using bdmpi::Error;
using bdmpi::GuardSession;

namespace {

bdmpi::BufferOwner SessionBuffer(MPI_Session session) {
  return bdmpi::BufferOwner{bdmpi::BufferOwner::Kind::kSession, session};
}

int SessionAttach(const char* function, MPI_Session session, void* buffer, MPI_Count size) {
  return GuardSession(function, session, [&] {
    bdmpi::LookupSession(session);
    bdmpi::AttachBuffer(SessionBuffer(session), buffer, size);
  });
}

int SessionDetach(const char* function, MPI_Session session, void* buffer_addr,
                  MPI_Count* size) {
  return GuardSession(function, session, [&] {
    bdmpi::LookupSession(session);
    bdmpi::DetachBuffer(SessionBuffer(session), static_cast<void**>(buffer_addr), size);
  });
}

const char* ThreadLevelName(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}

// No communicator yet: errors go to the handler the new one was to have.
int RaiseOnNewComm(const char* function, MPI_Errhandler errhandler, int error_class,
                   const char* detail) {
  if (MPI_Comm_errhandler_function* user = bdmpi::ErrhandlerFunction(errhandler)) {
    MPI_Comm none = MPI_COMM_NULL;
    int code = error_class;
    user(&none, &code);
    return error_class;
  }
  return bdmpi::ApplyErrhandler(
      errhandler == MPI_ERRORS_RETURN ? MPI_ERRORS_RETURN : MPI_ERRORS_ARE_FATAL, function,
      error_class, detail);
}

}  // namespace

extern "C" {

#pragma weak MPI_Session_init = PMPI_Session_init
int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  // Errors before the session exists go to the handler it was to have.
  return bdmpi::GuardWith(
      [&](int error_class, const char* detail) {
        if (MPI_Session_errhandler_function* user = bdmpi::SessionErrhandlerFunction(errhandler)) {
          MPI_Session none = MPI_SESSION_NULL;
          int code = error_class;
          user(&none, &code);
          return error_class;
        }
        return bdmpi::ApplyErrhandler(errhandler == MPI_ERRORS_RETURN ? MPI_ERRORS_RETURN
                                                                      : MPI_ERRORS_ARE_FATAL,
                                      "MPI_Session_init", error_class, detail);
      },
      [&] { *session = bdmpi::OpenSession(info, errhandler); });
}

#pragma weak MPI_Session_finalize = PMPI_Session_finalize
int PMPI_Session_finalize(MPI_Session* session) {
  MPI_Session handle = session != nullptr ? *session : MPI_SESSION_NULL;
  return GuardSession("MPI_Session_finalize", handle, [&] {
    bdmpi::CloseSession(session);
    bdmpi::DropBuffer(SessionBuffer(handle));
  });
}

#pragma weak MPI_Session_get_info = PMPI_Session_get_info
int PMPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  return GuardSession("MPI_Session_get_info", session, [&] {
    const bdmpi::SessionInfo& info = bdmpi::LookupSession(session);
    bdmpi::InfoEntries entries = info.hints;
    std::erase_if(entries, [](const auto& entry) { return entry.first == "thread_level"; });
    entries.emplace_back("thread_level", ThreadLevelName(info.thread_level));
    *info_used = bdmpi::NewInfo(std::move(entries));
  });
}

#pragma weak MPI_Session_get_num_psets = PMPI_Session_get_num_psets
int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int* npset_names) {
  return GuardSession("MPI_Session_get_num_psets", session, [&] {
    bdmpi::LookupSession(session);
    bdmpi::CheckInfoArgument(info);
    *npset_names = static_cast<int>(bdmpi::PsetNames().size());
  });
}

#pragma weak MPI_Session_get_nth_pset = PMPI_Session_get_nth_pset
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int* pset_len,
                              char* pset_name) {
  return GuardSession("MPI_Session_get_nth_pset", session, [&] {
    bdmpi::LookupSession(session);
    bdmpi::CheckInfoArgument(info);
    std::vector<std::string> names = bdmpi::PsetNames();
    if (n < 0 || n >= static_cast<int>(names.size()))
      throw Error(MPI_ERR_ARG, "process set " + std::to_string(n) + " does not exist (there are " +
                                   std::to_string(names.size()) + ")");
    const std::string& name = names[static_cast<std::size_t>(n)];
    int needed = static_cast<int>(name.size()) + 1;
    // MPI 4.1 11.3.2: a length of 0 asks for the length, the null included;
    // otherwise at most pset_len characters are written, the null included.
    if (*pset_len == 0) {
      *pset_len = needed;
      return;
    }
    if (*pset_len < 0) throw Error(MPI_ERR_ARG, "negative pset_len");
    std::size_t copied = static_cast<std::size_t>(std::min(*pset_len, needed) - 1);
    std::memcpy(pset_name, name.data(), copied);
    pset_name[copied] = '\0';
  });
}

#pragma weak MPI_Session_get_pset_info = PMPI_Session_get_pset_info
int PMPI_Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  return GuardSession("MPI_Session_get_pset_info", session, [&] {
    bdmpi::LookupSession(session);
    std::size_t size = bdmpi::PsetMembers(pset_name).size();
    *info = bdmpi::NewInfo({{"mpi_size", std::to_string(size)}});
  });
}

#pragma weak MPI_Session_create_errhandler = PMPI_Session_create_errhandler
int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* session_errhandler_fn,
                                   MPI_Errhandler* errhandler) {
  return GuardSession("MPI_Session_create_errhandler", MPI_SESSION_NULL, [&] {
    *errhandler = bdmpi::CreateSessionErrhandler(session_errhandler_fn);
  });
}

#pragma weak MPI_Session_set_errhandler = PMPI_Session_set_errhandler
int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  return GuardSession("MPI_Session_set_errhandler", session, [&] {
    bdmpi::SessionInfo& info = bdmpi::LookupSession(session);
    bdmpi::CheckSessionErrhandler(errhandler);
    info.errhandler = errhandler;
  });
}

#pragma weak MPI_Session_get_errhandler = PMPI_Session_get_errhandler
int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  return GuardSession("MPI_Session_get_errhandler", session, [&] {
    *errhandler = bdmpi::LookupSession(session).errhandler;
    bdmpi::RetainErrhandler(*errhandler);
  });
}

#pragma weak MPI_Session_call_errhandler = PMPI_Session_call_errhandler
int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  int result = GuardSession("MPI_Session_call_errhandler", session,
                            [&] { bdmpi::LookupSession(session); });
  if (result != MPI_SUCCESS) return result;
  // As MPI_Comm_call_errhandler: the handler gets the code itself; the
  // call succeeds when the handler returns.
  bdmpi::RaiseSessionError("MPI_Session_call_errhandler", session, errorcode,
                           "raised by MPI_Session_call_errhandler");
  return MPI_SUCCESS;
}

#pragma weak MPI_Group_from_session_pset = PMPI_Group_from_session_pset
int PMPI_Group_from_session_pset(MPI_Session session, const char* pset_name,
                                 MPI_Group* newgroup) {
  return GuardSession("MPI_Group_from_session_pset", session, [&] {
    bdmpi::LookupSession(session);
    *newgroup = bdmpi::NewGroup(bdmpi::PsetMembers(pset_name));
    bdmpi::SetGroupSession(*newgroup, session);
  });
}

#pragma weak MPI_Comm_create_from_group = PMPI_Comm_create_from_group
int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  return bdmpi::GuardWith(
      [&](int error_class, const char* detail) {
        return RaiseOnNewComm("MPI_Comm_create_from_group", errhandler, error_class, detail);
      },
      [&] { *newcomm = bdmpi::CommCreateFromGroup(group, stringtag, info, errhandler); });
}

#pragma weak MPI_Intercomm_create_from_groups = PMPI_Intercomm_create_from_groups
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char* stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  return bdmpi::GuardWith(
      [&](int error_class, const char* detail) {
        return RaiseOnNewComm("MPI_Intercomm_create_from_groups", errhandler, error_class,
                              detail);
      },
      [&] {
        *newintercomm = bdmpi::IntercommCreateFromGroups(
            local_group, local_leader, remote_group, remote_leader, stringtag, info, errhandler);
      });
}

#pragma weak MPI_Session_c2f = PMPI_Session_c2f
MPI_Fint PMPI_Session_c2f(MPI_Session session) { return static_cast<MPI_Fint>(session); }

#pragma weak MPI_Session_f2c = PMPI_Session_f2c
MPI_Session PMPI_Session_f2c(MPI_Fint session) { return static_cast<MPI_Session>(session); }

#pragma weak MPI_Session_attach_buffer = PMPI_Session_attach_buffer
int PMPI_Session_attach_buffer(MPI_Session session, void* buffer, int size) {
  return SessionAttach("MPI_Session_attach_buffer", session, buffer, size);
}

#pragma weak MPI_Session_attach_buffer_c = PMPI_Session_attach_buffer_c
int PMPI_Session_attach_buffer_c(MPI_Session session, void* buffer, MPI_Count size) {
  return SessionAttach("MPI_Session_attach_buffer_c", session, buffer, size);
}

#pragma weak MPI_Session_detach_buffer = PMPI_Session_detach_buffer
int PMPI_Session_detach_buffer(MPI_Session session, void* buffer_addr, int* size) {
  MPI_Count wide = 0;
  int error = SessionDetach("MPI_Session_detach_buffer", session, buffer_addr, &wide);
  if (error == MPI_SUCCESS) *size = static_cast<int>(wide);
  return error;
}

#pragma weak MPI_Session_detach_buffer_c = PMPI_Session_detach_buffer_c
int PMPI_Session_detach_buffer_c(MPI_Session session, void* buffer_addr, MPI_Count* size) {
  return SessionDetach("MPI_Session_detach_buffer_c", session, buffer_addr, size);
}

#pragma weak MPI_Session_flush_buffer = PMPI_Session_flush_buffer
int PMPI_Session_flush_buffer(MPI_Session session) {
  return GuardSession("MPI_Session_flush_buffer", session, [&] {
    bdmpi::LookupSession(session);
    bdmpi::FlushBuffered(SessionBuffer(session));
  });
}

#pragma weak MPI_Session_iflush_buffer = PMPI_Session_iflush_buffer
int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request* request) {
  return GuardSession("MPI_Session_iflush_buffer", session, [&] {
    bdmpi::LookupSession(session);
    *request = bdmpi::IflushBuffered(SessionBuffer(session));
  });
}

}  // extern "C"
