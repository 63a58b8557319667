#include "master/network/status_exchange.h"

#include <cstdlib>
#include <utility>

namespace bdmpi {
namespace {

// A tag of the control communicator that ProgressControl never probes.
constexpr int kTagStatus = 4;

// Messages: "ask <asker>\n" and "answer <asker>\n<text>".
std::string AskText(int asker) { return "ask " + std::to_string(asker) + "\n"; }

}  // namespace

void StatusExchange::Ask(int asker, std::string own_text) {
  std::lock_guard<std::mutex> lock(mutex_);
  Gathering gathering;
  gathering.texts.push_back(std::move(own_text));  // resized by Progress
  started_[asker] = std::move(gathering);
}

void StatusExchange::Answer(int node, int asker, std::string text) {
  std::lock_guard<std::mutex> lock(mutex_);
  posted_.push_back({node, "answer " + std::to_string(asker) + "\n" + text});
}

std::vector<StatusExchange::Found> StatusExchange::Progress(MPI_Comm comm, int node,
                                                            int nnodes, bool final) {
  std::vector<Found> found;
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Outgoing& out : posted_) sending_.push_back(std::move(out));
    posted_.clear();
    for (auto& [asker, started] : started_) {
      Gathering& gathering = gathering_[asker];
      gathering.texts.assign(static_cast<std::size_t>(nnodes), "");
      gathering.texts[node] = std::move(started.texts.front());
      gathering.missing = nnodes - 1;
      gathering.deadline = now + kAnswerWait;
      for (int peer = 0; peer < nnodes; ++peer) {
        if (peer != node) sending_.push_back({peer, AskText(asker)});
      }
    }
    started_.clear();
  }
  for (Outgoing& out : sending_) {
    if (out.request != MPI_REQUEST_NULL || out.text.empty()) continue;
    MPI_Isend(out.text.data(), static_cast<int>(out.text.size()), MPI_CHAR, out.dest, kTagStatus,
              comm, &out.request);
  }
  while (!sending_.empty()) {
    int done = 0;
    MPI_Test(&sending_.front().request, &done, MPI_STATUS_IGNORE);
    if (!done) break;
    sending_.pop_front();
  }
  for (;;) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagStatus, comm, &flag, &status);
    if (!flag) break;
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    std::string text(static_cast<std::size_t>(count), '\0');
    MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, kTagStatus, comm,
             MPI_STATUS_IGNORE);
    std::size_t line = text.find('\n');
    std::size_t space = text.find(' ');
    if (line == std::string::npos || space == std::string::npos || space > line) continue;
    int asker = std::atoi(text.c_str() + space + 1);
    if (text.compare(0, space, "ask") == 0) {
      found.push_back({Found::Kind::kAsked, status.MPI_SOURCE, asker, ""});
      continue;
    }
    auto it = gathering_.find(asker);
    if (it == gathering_.end() || !it->second.texts[status.MPI_SOURCE].empty()) continue;
    it->second.texts[status.MPI_SOURCE] = text.substr(line + 1);
    --it->second.missing;
  }
  for (auto it = gathering_.begin(); it != gathering_.end();) {
    Gathering& gathering = it->second;
    if (gathering.missing > 0 && now < gathering.deadline && !final) {
      ++it;
      continue;
    }
    std::string text, silent;
    for (int peer = 0; peer < nnodes; ++peer) {
      if (!gathering.texts[peer].empty()) text += gathering.texts[peer];
      else silent += (silent.empty() ? "" : ", ") + std::to_string(peer);
    }
    if (!silent.empty())
      text += "bdmpi: no status from node(s) " + silent + " within " +
              std::to_string(kAnswerWait.count() / 1000) +
              " s (their masters are busy, ending or gone)\n";
    found.push_back({Found::Kind::kGathered, node, it->first, std::move(text)});
    it = gathering_.erase(it);
  }
  return found;
}

}  // namespace bdmpi
