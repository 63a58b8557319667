// Where the master's helper threads run. The master pins itself to one core
// and makes itself a batch task so that it takes turns with the slave it
// serves (master.cpp, handover.cpp); a thread it starts afterwards inherits
// both. The network thread must not: it polls Open MPI for the other nodes'
// messages, and pinned to the master's core as a batch task it would only run
// when the running slave blocked or used up its time slice, and then take
// that core from the slave (with -nn 2 both masters, their network threads
// and the slaves would all share one core).
#pragma once

#include <sched.h>

namespace bdmpi {

class ThreadPlacement {
 public:
  // The processors and scheduling policy of the calling thread, taken before
  // the master pins itself.
  static ThreadPlacement OfCallingThread();

  // Gives the calling thread those processors and an ordinary (not batch)
  // policy; false if the system refused (the thread then runs as it was).
  bool ApplyToCallingThread() const;

 private:
  cpu_set_t cpus_{};
  bool have_cpus_ = false;
};

}  // namespace bdmpi
