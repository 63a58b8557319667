// A rank that writes forged requests straight to its master's request queue,
// as a buggy program could: the master must refuse each one, end the job and
// name the rank, instead of believing the fields.
//
//   forge_request --forge source|slave|token|file|malformed
//
// World rank 1 (slave index 1 on node 0) forges; rank 0 (slave index 0) is
// the rank it impersonates. Run with at least 3 ranks on node 0.
//   source:    a Send to rank 2 that claims rank 0 as its source
//   slave:     an Abort with rank 0's slave index (and rank 1's token)
//   token:     a Finalize with rank 0's slave index and no valid token
//   file:      a Send whose payload is rank 0's first spill file
//   malformed: a queue message that is not a whole number of records
// Should the master believe a forgery, the ranks carry on and the job ends
// with status 0 (or rank 0's MPI_Abort), which the job test counts as a
// failure: it expects a non-zero status and the master's message.
#include <fcntl.h>
#include <mpi.h>
#include <mqueue.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/job_names.h"
#include "common/protocol.h"

namespace {

void Send(const std::string& queue_name, const void* data, std::size_t size) {
  mqd_t queue = mq_open(queue_name.c_str(), O_WRONLY);
  if (queue == static_cast<mqd_t>(-1)) {
    std::perror("forge_request: mq_open");
    std::exit(3);
  }
  if (mq_send(queue, static_cast<const char*>(data), size, 0) != 0) {
    std::perror("forge_request: mq_send");
    std::exit(3);
  }
  mq_close(queue);
}

}  // namespace

int main(int argc, char** argv) {
  std::string forge = argc == 3 && std::strcmp(argv[1], "--forge") == 0 ? argv[2] : "";
  // The runtime removes the token from the environment in MPI_Init.
  const char* token_text = std::getenv(bdmpi::kEnvSlaveToken);
  auto own_token =
      static_cast<std::uint32_t>(token_text ? std::strtoul(token_text, nullptr, 10) : 0);
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 3 || forge.empty()) {
    if (rank == 0) std::fprintf(stderr, "usage: forge_request --forge KIND, 3+ ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  // Rank 0 spills a large message first, so that its file exists.
  int payload[64 * 1024] = {};
  if (rank == 0) MPI_Send(payload, 64 * 1024, MPI_INT, 2, 5, MPI_COMM_WORLD);
  if (rank == 2) MPI_Recv(payload, 64 * 1024, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank == 1) {
    bdmpi::RequestMsg request;
    request.slave = 1;
    request.token = own_token;
    request.comm = bdmpi::kWorldCommId;
    request.rank = 1;
    if (forge == "source") {
      request.type = bdmpi::MsgType::kSend;
      request.rank = 0;
      request.peer = 2;
      request.tag = 9;
    } else if (forge == "slave") {
      request.type = bdmpi::MsgType::kAbort;
      request.slave = 0;
      request.code = 99;
    } else if (forge == "token") {
      request.type = bdmpi::MsgType::kFinalize;
      request.slave = 0;
      request.token = own_token + 1;
    } else if (forge == "file") {
      request.type = bdmpi::MsgType::kSend;
      request.peer = 2;
      request.tag = 9;
      request.where = bdmpi::Where::kFile;
      request.bytes = sizeof payload;
      request.file_id = bdmpi::MakeFileId(0, 1);
    }
    alignas(8) unsigned char message[sizeof request + 8] = {};
    std::memcpy(message, &request, sizeof request);
    // A record and 8 stray bytes: not a whole number of records.
    std::size_t bytes = forge == "malformed" ? sizeof message : sizeof request;
    Send(std::getenv(bdmpi::kEnvRequestQueue), message, bytes);
  }
  if (rank == 2 && (forge == "source" || forge == "file")) {
    MPI_Status status;
    MPI_Recv(payload, 64 * 1024, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &status);
    std::fprintf(stderr, "rank 2: received a message from rank %d, which never sent it\n",
                 status.MPI_SOURCE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
