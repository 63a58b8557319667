#include "master/test_pause.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace bdmpi {

void TestPause(const char* name, int node) {
  const char* value = std::getenv(name);
  if (value == nullptr) return;
  const char* at = std::strchr(value, '@');
  if (at != nullptr && std::atoi(at + 1) != node) return;
  std::this_thread::sleep_for(std::chrono::milliseconds(std::atol(value)));
}

}  // namespace bdmpi
