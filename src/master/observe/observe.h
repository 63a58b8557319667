// Observation, the master's side: the run report's figures and the trace
// (the JobRecorder, told which ranks' states changed after each served
// queue message, plus a few one-line hooks where payloads are stored,
// memory is written back and collectives' inter-node steps run), the
// status printed on SIGUSR1, the --progress line, and at the end the
// node's record for node 0, which prints the report and writes the JSON
// and the trace (observe.cpp). Off unless asked for: each hook tests
// recorder().on(). The user's guide is docs/observability.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/protocol.h"
#include "master/master_services.h"
#include "master/memory/payload.h"
#include "master/memory/payload_store.h"
#include "master/observe/job_recorder.h"
#include "master/observe/progress_line.h"
#include "master/options.h"
#include "master/slave.h"

namespace bdmpi {

class Observer {
 public:
  Observer(MasterServices& master, const MasterOptions& options, const PayloadStore& payloads,
           const std::string& job_dir, int node, int nnodes)
      : master_(master),
        options_(options),
        payloads_(payloads),
        job_dir_(job_dir),
        node_(node),
        nnodes_(nnodes) {}
  Observer(const Observer&) = delete;
  Observer& operator=(const Observer&) = delete;

  // What the other parts tell directly (collectives' steps, spills,
  // write-backs, memory holds).
  JobRecorder& recorder() { return recorder_; }
  const JobRecorder& recorder() const { return recorder_; }
  // A reserved slot's rank was spawned: it is in the report from now on.
  void RankStarted(int slave) { recorder_.RankStarted(slave); }

  // Starts recording when a report, a trace or the progress line is asked
  // for; the running slots are the report's header.
  void Start(int running_slots, bool running_auto, int running_cores);
  // Every change of a slave's state (or of its waiting_for_memory) calls
  // this; after each served queue message, RecordRankStates records the
  // activity of each rank so noted.
  void NoteStateChange(const Slave& slave) { recorder_.Touched(slave.index); }
  void RecordRankStates();
  void RecordSend(const Slave& slave, const RequestMsg& request, const Payload& payload,
                  bool cross_node);
  // Its read-back so far (at MPI_Finalize, while its /proc entry exists,
  // and at the end).
  void RecordReadBack(const Slave& slave);

  // SIGUSR1 from `asker`: every node's ranks' states and, when blocked,
  // their calls, for the asker (common/status_reply.h).
  void OnStatusAsked(int asker);
  std::string RankStatusText() const;  // this node's
  // For a running rank that polls: how many tests in a row it answered
  // itself (StorageSlot::local_tests), from kLocalTestsWorthSaying on.
  std::string LocalTestsNote(const Slave& slave) const;
  static constexpr std::uint64_t kLocalTestsWorthSaying = 1000;
  // Into the asker's reply file, or on stderr when it made none.
  void DeliverStatus(int asker, const std::string& text) const;

  // Before the network shuts down: hands this node's record to node 0.
  void PostRecord();
  // End of the job, node 0: prints the report, writes the JSON and trace.
  // `failure`: why the job failed, empty when it did not;
  // `network_finished`: the network shut down normally.
  void Finish(bool failed, const std::string& failure, bool network_finished);

 private:
  // This node's figures and trace events, as node 0 reads them.
  std::string NodeRecord();

  MasterServices& master_;
  const MasterOptions& options_;
  const PayloadStore& payloads_;
  const std::string& job_dir_;
  int node_;
  int nnodes_;
  JobRecorder recorder_;
  std::unique_ptr<ProgressLine> progress_;  // --progress, node 0
};

}  // namespace bdmpi
