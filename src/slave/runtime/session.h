// MPI-4 sessions (MPI 4.1 11.3): the session objects, their error handlers
// and the process sets. A session holds the runtime's connection open
// (environment.h): the first of MPI_Init and MPI_Session_init connects, the
// last finalize disconnects. Communicators come from a session's groups by
// MPI_Comm_create_from_group (comm/comm_register.h).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "slave/runtime/errors.h"
#include "slave/runtime/info.h"

namespace bdmpi {

struct SessionInfo {
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  int thread_level = MPI_THREAD_SINGLE;  // provided
  InfoEntries hints;                     // MPI_Session_init's info
};

// MPI_Session_init: connects when nothing else has.
MPI_Session OpenSession(MPI_Info info, MPI_Errhandler errhandler);
// MPI_Session_finalize: disconnects when it is the last.
void CloseSession(MPI_Session* session);
// Throws MPI_ERR_SESSION for MPI_SESSION_NULL, finalized and non-session
// handles.
SessionInfo& LookupSession(MPI_Session session);
// Checks a handler for sessions: predefined or from
// MPI_Session_create_errhandler.
void CheckSessionErrhandler(MPI_Errhandler errhandler);

// The process sets: "mpi://WORLD", "mpi://SELF" and BDMPI's
// "bdmpi://NODE" (the ranks of this rank's node), in that order.
std::vector<std::string> PsetNames();
// The world ranks of a set; MPI_ERR_ARG naming the sets for another name.
std::vector<int> PsetMembers(const char* name);

// The session a group was made from (MPI_Group_from_session_pset, and
// groups made from such groups), or MPI_SESSION_NULL: communicators made
// from the group derive from the session.
void SetGroupSession(MPI_Group group, MPI_Session session);
MPI_Session GroupSession(MPI_Group group);
void ForgetGroupSession(MPI_Group group);

// Hands an error to the session's handler (for an invalid session,
// MPI_COMM_SELF's, or MPI_ERRORS_ARE_FATAL's outside the World Model):
// returns error_class unless the handler ends the job.
int RaiseSessionError(const char* function, MPI_Session session, int error_class,
                      const char* detail);

template <class Body>
int GuardSession(const char* function, MPI_Session session, Body&& body) {
  return GuardWith(
      [&](int error_class, const char* detail) {
        return RaiseSessionError(function, session, error_class, detail);
      },
      body);
}

}  // namespace bdmpi
