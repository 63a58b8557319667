// The job's published names (MPI_Publish_name, MPI_Lookup_name,
// MPI_Unpublish_name: kPublishName, kLookupName, kUnpublishName). Node 0's
// master keeps them, and every master asks it ("name", answered by
// "named"; dynamic_messages.cpp), its own included, while the rank waits
// for the answer in its call. Node 0's master also shares the names with
// the user's other jobs on the node (common/rendezvous.h).
// docs/processes.md, "Dynamic processes".
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/log.h"
#include "common/rendezvous.h"
#include "master/launch/dynamic_fields.h"
#include "master/master.h"

namespace bdmpi {
namespace {

// A rank's MPI_Publish_name, _Lookup_name or _Unpublish_name, for node 0's
// master: its type, the rank's node and job rank, the port (any string;
// empty for a lookup) and the service, from the request's `payload`.
std::vector<std::string> NameFields(const RequestMsg& request, int node, int job_rank,
                                    const std::string& payload) {
  std::size_t end = payload.find('\0');
  std::string service = payload.substr(0, end);
  std::string port = end == std::string::npos ? std::string() : payload.substr(end + 1);
  return {"name", std::to_string(static_cast<int>(request.type)), std::to_string(node),
          std::to_string(job_rank), port, service};
}

// Shares a name published in this job with the user's other jobs on the
// node (node 0's liveness file `liveness` vouches for the job); false
// when another live job holds it.
bool PublishShared(const std::string& service, const std::string& port,
                   const std::string& liveness) {
  std::string held;
  try {
    if (PublishBetweenJobs(service, port, liveness, &held)) return true;
    // The rank's error says so; the holder's port is for the log only.
    BDMPI_DEBUG("sched", "MPI_Publish_name: service '%s' is published by another job (port %s)",
                service.c_str(), held.c_str());
  } catch (const Error& error) {
    // The job's own name still stands; only other jobs do not see it.
    BDMPI_WARN("sched", "MPI_Publish_name: service '%s' is not shared with other jobs: %s",
               service.c_str(), error.what());
    return true;
  }
  return false;
}

}  // namespace

std::string Master::NamePayload(const Slave& slave, const RequestMsg& request,
                                const std::byte* inline_payload) {
  std::string name(request.bytes, '\0');
  payloads_.Read(request, io_->Window(slave.index), inline_payload, name.data(), name.size());
  return name;
}

void Master::HandlePublishName(Slave& slave, const RequestMsg& request,
                               const std::byte* inline_payload) {
  SendDynamic(0, NameFields(request, node_, slave.world_rank,
                            NamePayload(slave, request, inline_payload)));
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
  std::string port = fields[4];
  const std::string& service = fields[5];
  int error = 0;
  int held_elsewhere = 0;  // by another job of the user (rendezvous.h)
  auto found = published_.find(service);
  if (type == MsgType::kPublishName) {
    if (found != published_.end()) {
      error = kErrName;
    } else if (!PublishShared(service, port, lease_.name())) {
      error = kErrName;
      held_elsewhere = 1;
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
      UnpublishBetweenJobs(service, lease_.name());
    }
  }
  SendDynamic(ToInt(fields[2]), {"named", fields[1], fields[3], Str(error), port,
                                 Str(held_elsewhere)});
}

void Master::OnNameAnswer(const std::vector<std::string>& fields) {
  BDMPI_ENFORCE(fields.size() == 6, "a name answer is malformed");
  Slave* slave = slaves_.ByWorldRank(ToInt(fields[2]));
  if (slave == nullptr || slave->state == SlaveState::kExited) return;
  ReplyMsg reply;
  reply.type = static_cast<MsgType>(ToInt(fields[1]));
  reply.error = ToInt(fields[3]);
  reply.flag = ToInt(fields[5]);
  if (reply.type == MsgType::kLookupName && reply.error == 0) {
    // The port, for the rank's FetchPayload.
    const std::string& port = fields[4];
    std::vector<std::byte> bytes(port.size());
    std::memcpy(bytes.data(), port.data(), port.size());
    payloads_.Give(payloads_.Store(std::move(bytes)), port.size(), io_->Window(slave->index),
                   reply, slave->held_files);
  }
  Reply(*slave, reply);
}

}  // namespace bdmpi
