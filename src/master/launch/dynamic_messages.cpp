// The masters' messages to each other about dynamic processes
// (WireKind::kDynamic): text fields, the first naming the step. Spawns
// (spawn_ranks.cpp) and the job's names (service_names.cpp) travel this
// way; to this node's own master they go through dynamic_inbox_, served
// before the handler that sent them returns.
#include <fcntl.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "common/spawn_plan.h"
#include "common/unique_fd.h"
#include "master/launch/dynamic_fields.h"
#include "master/master.h"

namespace bdmpi {

void Master::SendDynamic(int node, const std::vector<std::string>& fields) {
  if (node == node_) {
    dynamic_inbox_.push_back(fields);
    return;
  }
  OutgoingMessage message;
  message.dest_node = node;
  message.header.kind = WireKind::kDynamic;
  message.header.dest_world_rank = -1;
  message.payload = payloads_.Store(EncodeFields(fields));
  network_->Send(std::move(message));
}

void Master::OnDynamicMessage(IncomingMessage incoming) {
  std::vector<std::byte> bytes;
  if (incoming.on_disk) {
    Payload payload =
        incoming.in_memory
            ? payloads_.AdoptIncoming(incoming.file_id, incoming.file_inode, incoming.header.bytes)
            : payloads_.Adopt(incoming.file_id, incoming.file_inode, incoming.header.bytes);
    bytes.resize(payload.bytes());
    UniqueFd fd = payload.Open(O_RDONLY);
    ReadExactlyAt(fd.get(), bytes.data(), bytes.size(), 0, "a master's spawn message");
  } else {
    bytes = std::move(incoming.memory);
  }
  dynamic_inbox_.push_back(DecodeFields(bytes.data(), bytes.size()));
  ServeDynamicInbox();
}

void Master::ServeDynamicInbox() {
  if (serving_dynamic_) return;  // the outer call serves what this one queued
  serving_dynamic_ = true;
  struct Serving {  // cleared however the loop ends, a throw included
    bool& flag;
    ~Serving() { flag = false; }
  } serving{serving_dynamic_};
  while (!dynamic_inbox_.empty()) {
    std::vector<std::string> fields = std::move(dynamic_inbox_.front());
    dynamic_inbox_.pop_front();
    OnDynamicFields(fields);
  }
}

void Master::OnDynamicFields(const std::vector<std::string>& fields) {
  BDMPI_ENFORCE(fields.size() >= 3, "a master's spawn message is cut short");
  const std::string& step = fields[0];
  if (step == "query") {
    OnSpawnQuery(ToInt(fields[1]), ToInt(fields[2]));
  } else if (step == "free") {
    OnSpawnFree(fields);
  } else if (step == "start") {
    OnSpawnStart(fields);
  } else if (step == "started") {
    OnSpawnStarted(fields);
  } else if (step == "discard") {
    OnSpawnDiscard(fields);
  } else if (step == "name") {
    OnNameRequest(fields);
  } else if (step == "named") {
    OnNameAnswer(fields);
  } else {
    BDMPI_ENFORCE(false, "a master's message of unknown step '" + step + "'");
  }
}

}  // namespace bdmpi
