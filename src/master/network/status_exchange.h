// How a live status gathers every node's ranks at the master that was asked
// (SIGUSR1 from `bdmpiexec --status` or from bdmpiexec itself): that master
// asks the others on the control communicator (tag 4), each answers with
// its ranks' text, and the asked master hands the whole text to its asker
// (common/status_reply.h) once every node answered or after kAnswerWait,
// naming the nodes that did not. The event loop calls Ask and Answer; the
// network thread calls Progress, which does the MPI calls.
#pragma once

#include <mpi.h>

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace bdmpi {

class StatusExchange {
 public:
  // How long the asked master waits for the others' answers.
  static constexpr std::chrono::milliseconds kAnswerWait{3000};

  // What Progress found: another master's question (answer it with
  // Answer), or a gathered status for `asker`.
  struct Found {
    enum class Kind { kAsked, kGathered } kind = Kind::kAsked;
    int node = 0;   // kAsked: who asks
    int asker = 0;  // the pid the status is for
    std::string text;  // kGathered
  };

  // Event loop of the asked master: this node's text for `asker`.
  void Ask(int asker, std::string own_text);
  // Event loop of another master: its text for node `node`'s `asker`.
  void Answer(int node, int asker, std::string text);
  // Network thread: sends what was posted, receives questions and answers,
  // and completes the gatherings that are due (`final`: all of them, the
  // network is shutting down).
  std::vector<Found> Progress(MPI_Comm comm, int node, int nnodes, bool final = false);

 private:
  struct Gathering {
    std::vector<std::string> texts;  // per node; empty: no answer yet
    int missing = 0;
    std::chrono::steady_clock::time_point deadline;
  };
  struct Outgoing {
    int dest = 0;
    std::string text;
    MPI_Request request = MPI_REQUEST_NULL;
  };

  std::mutex mutex_;
  std::vector<Outgoing> posted_;  // event loop -> network thread
  std::map<int, Gathering> started_;  // event loop -> network thread
  // Network thread only.
  std::deque<Outgoing> sending_;
  std::map<int, Gathering> gathering_;  // by asker
};

}  // namespace bdmpi
