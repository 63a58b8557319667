#include "master/test_pause.h"

#include <chrono>
#include <cstdlib>
#include <thread>

namespace bdmpi {

void TestPause(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return;
  std::this_thread::sleep_for(std::chrono::milliseconds(std::atol(value)));
}

}  // namespace bdmpi
