// The job's published names (MPI_Publish_name, MPI_Lookup_name,
// MPI_Unpublish_name: kPublishName, kLookupName, kUnpublishName). Node 0's
// master keeps them, and every master asks it ("name", answered by
// "named"; dynamic_messages.cpp), its own included, while the rank waits
// for the answer in its call. docs/processes.md, "Dynamic processes".
#include <string>
#include <vector>

#include "common/error.h"
#include "master/launch/dynamic_fields.h"
#include "master/master.h"

namespace bdmpi {
namespace {

// A rank's MPI_Publish_name, _Lookup_name or _Unpublish_name, for node 0's
// master: its type, the rank's node and job rank, the port (PortId) and
// the service.
std::vector<std::string> NameFields(const RequestMsg& request, int node, int job_rank,
                                    const std::string& service) {
  return {"name", std::to_string(static_cast<int>(request.type)), std::to_string(node),
          std::to_string(job_rank), std::to_string(request.id), service};
}

}  // namespace

std::string Master::ServiceName(const Slave& slave, const RequestMsg& request,
                                const std::byte* inline_payload) {
  std::string name(request.bytes, '\0');
  payloads_.Read(request, io_->Window(slave.index), inline_payload, name.data(), name.size());
  return name;
}

void Master::HandlePublishName(Slave& slave, const RequestMsg& request,
                               const std::byte* inline_payload) {
  SendDynamic(0, NameFields(request, node_, slave.world_rank,
                            ServiceName(slave, request, inline_payload)));
  ServeDynamicInbox();
}

void Master::HandleLookupName(Slave& slave, const RequestMsg& request,
                              const std::byte* inline_payload) {
  HandlePublishName(slave, request, inline_payload);
}

void Master::HandleUnpublishName(Slave& slave, const RequestMsg& request,
                                 const std::byte* inline_payload) {
  HandlePublishName(slave, request, inline_payload);
}

void Master::OnNameRequest(const std::vector<std::string>& fields) {
  BDMPI_ENFORCE(node_ == 0 && fields.size() == 6, "a name request is malformed");
  auto type = static_cast<MsgType>(ToInt(fields[1]));
  std::uint64_t port = std::stoull(fields[4]);
  const std::string& service = fields[5];
  int error = 0;
  auto found = published_.find(service);
  if (type == MsgType::kPublishName) {
    if (found != published_.end()) {
      error = kErrName;
    } else {
      published_.emplace(service, port);
    }
  } else if (type == MsgType::kLookupName) {
    if (found == published_.end()) {
      error = kErrName;
    } else {
      port = found->second;
    }
  } else {
    if (found == published_.end() || found->second != port) {
      error = kErrName;
    } else {
      published_.erase(found);
    }
  }
  SendDynamic(ToInt(fields[2]), {"named", fields[1], fields[3], Str(error),
                                 std::to_string(port)});
}

void Master::OnNameAnswer(const std::vector<std::string>& fields) {
  BDMPI_ENFORCE(fields.size() == 5, "a name answer is malformed");
  Slave* slave = slaves_.ByWorldRank(ToInt(fields[2]));
  if (slave == nullptr || slave->state == SlaveState::kExited) return;
  ReplyMsg reply;
  reply.type = static_cast<MsgType>(ToInt(fields[1]));
  reply.error = ToInt(fields[3]);
  reply.bytes = std::stoull(fields[4]);
  Reply(*slave, reply);
}

}  // namespace bdmpi
