// The extern "C" entry points of dynamic processes (MPI-4.1 11.8-11.10):
// spawning, ports, name publishing and MPI_Comm_join (comm/dynamic.h).
#include <mpi.h>

#include <cstring>
#include <string>

#include "common/error.h"
#include "slave/comm/dynamic.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/info.h"
#include "slave/runtime/objects.h"

using bdmpi::Error;
using bdmpi::Guard;

namespace {

void CopyPort(const std::string& port, char* out) {
  if (port.size() >= MPI_MAX_PORT_NAME)
    throw Error(MPI_ERR_INTERN, "a port name longer than MPI_MAX_PORT_NAME");
  std::memcpy(out, port.c_str(), port.size() + 1);
}

std::string Text(const char* text, const char* what) {
  if (text == nullptr) throw Error(MPI_ERR_ARG, std::string(what) + " is NULL");
  return text;
}

}  // namespace

extern "C" {

#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn
int PMPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm* intercomm, int array_of_errcodes[]) {
  return Guard("MPI_Comm_spawn", comm, [&] {
    bdmpi::RequireInitialized();
    *intercomm = MPI_COMM_NULL;
    auto plan = [&](int& asked) {
      char* commands[] = {const_cast<char*>(command)};
      char** argvs[] = {argv};
      return bdmpi::PlanSpawn(1, commands, argvs, &maxprocs, &info, asked);
    };
    *intercomm = bdmpi::CommSpawn(plan, root, comm, array_of_errcodes);
  });
}

#pragma weak MPI_Comm_spawn_multiple = PMPI_Comm_spawn_multiple
int PMPI_Comm_spawn_multiple(int count, char* array_of_commands[], char** array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm* intercomm,
                             int array_of_errcodes[]) {
  return Guard("MPI_Comm_spawn_multiple", comm, [&] {
    bdmpi::RequireInitialized();
    *intercomm = MPI_COMM_NULL;
    auto plan = [&](int& asked) {
      return bdmpi::PlanSpawn(count, array_of_commands, array_of_argv, array_of_maxprocs,
                              array_of_info, asked);
    };
    *intercomm = bdmpi::CommSpawn(plan, root, comm, array_of_errcodes);
  });
}

#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent
int PMPI_Comm_get_parent(MPI_Comm* parent) {
  return Guard("MPI_Comm_get_parent", MPI_COMM_WORLD, [&] {
    bdmpi::RequireInitialized();
    *parent = bdmpi::CommGetParent();
  });
}

#pragma weak MPI_Open_port = PMPI_Open_port
int PMPI_Open_port(MPI_Info info, char* port_name) {
  return Guard("MPI_Open_port", MPI_COMM_WORLD, [&] {
    bdmpi::RequireInitialized();
    bdmpi::CheckInfoArgument(info);
    CopyPort(bdmpi::OpenPort(), port_name);
  });
}

#pragma weak MPI_Close_port = PMPI_Close_port
int PMPI_Close_port(const char* port_name) {
  return Guard("MPI_Close_port", MPI_COMM_WORLD, [&] {
    bdmpi::RequireInitialized();
    bdmpi::ClosePort(Text(port_name, "the port name"));
  });
}

#pragma weak MPI_Comm_accept = PMPI_Comm_accept
int PMPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm* newcomm) {
  return Guard("MPI_Comm_accept", comm, [&] {
    bdmpi::RequireInitialized();
    *newcomm = MPI_COMM_NULL;
    // Significant at the root only (MPI-4.1 11.10.2).
    std::string port = port_name != nullptr ? port_name : "";
    *newcomm = bdmpi::CommAccept(port, root, comm);
    (void)info;
  });
}

#pragma weak MPI_Comm_connect = PMPI_Comm_connect
int PMPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm* newcomm) {
  return Guard("MPI_Comm_connect", comm, [&] {
    bdmpi::RequireInitialized();
    *newcomm = MPI_COMM_NULL;
    std::string port = port_name != nullptr ? port_name : "";
    *newcomm = bdmpi::CommConnect(port, root, comm);
    (void)info;
  });
}

#pragma weak MPI_Publish_name = PMPI_Publish_name
int PMPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  return Guard("MPI_Publish_name", MPI_COMM_WORLD, [&] {
    bdmpi::RequireInitialized();
    bdmpi::CheckInfoArgument(info);
    bdmpi::PublishName(Text(service_name, "the service name"), Text(port_name, "the port name"));
  });
}

#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name
int PMPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  return Guard("MPI_Unpublish_name", MPI_COMM_WORLD, [&] {
    bdmpi::RequireInitialized();
    bdmpi::CheckInfoArgument(info);
    bdmpi::UnpublishName(Text(service_name, "the service name"),
                         Text(port_name, "the port name"));
  });
}

#pragma weak MPI_Lookup_name = PMPI_Lookup_name
int PMPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  return Guard("MPI_Lookup_name", MPI_COMM_WORLD, [&] {
    bdmpi::RequireInitialized();
    bdmpi::CheckInfoArgument(info);
    CopyPort(bdmpi::LookupName(Text(service_name, "the service name")), port_name);
  });
}

#pragma weak MPI_Comm_join = PMPI_Comm_join
int PMPI_Comm_join(int fd, MPI_Comm* intercomm) {
  return Guard("MPI_Comm_join", MPI_COMM_WORLD, [&] {
    bdmpi::RequireInitialized();
    *intercomm = MPI_COMM_NULL;
    *intercomm = bdmpi::CommJoin(fd);
  });
}

}  // extern "C"
