#include "common/test_hooks.h"

#ifdef BDMPI_TEST_HOOKS

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace bdmpi::test_hooks {
namespace {

// Milliseconds for `node`, read once: 0 when unset or for another node
// ("3000@1", "3000@0,1,2").
long PauseMs(const char* variable, int node) {
  const char* value = std::getenv(variable);
  if (value == nullptr) return 0;
  const char* at = std::strchr(value, '@');
  if (at == nullptr) return std::atol(value);
  for (const char* item = at + 1; item != nullptr; item = std::strchr(item, ',')) {
    if (*item == ',') ++item;
    if (std::atoi(item) == node) return std::atol(value);
  }
  return 0;
}

void Pause(long ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace

bool Enabled() { return true; }

int PlaceWriteErrno() {
  static const int value = [] {
    const char* text = std::getenv("BDMPI_TEST_PLACE_ERRNO");
    return text != nullptr ? std::atoi(text) : 0;
  }();
  return value;
}

bool RefuseLentReads() {
  static const bool value = [] {
    const char* text = std::getenv("BDMPI_TEST_REFUSE_LENT_READS");
    return text != nullptr && std::strcmp(text, "1") == 0;
  }();
  return value;
}

void PauseAfterShutdown(int node) {
  static const long ms = PauseMs("BDMPI_TEST_PAUSE_AFTER_SHUTDOWN_MS", node);
  Pause(ms);
}

void PauseBeforeExit(int node) {
  static const long ms = PauseMs("BDMPI_TEST_PAUSE_BEFORE_EXIT_MS", node);
  Pause(ms);
}

void PauseStepDone(int node) {
  static long ms = PauseMs("BDMPI_TEST_PAUSE_STEP_DONE_MS", node);
  Pause(ms);
  ms = 0;  // the first step only
}

}  // namespace bdmpi::test_hooks

#else

namespace bdmpi::test_hooks {

bool Enabled() { return false; }
int PlaceWriteErrno() { return 0; }
bool RefuseLentReads() { return false; }
void PauseAfterShutdown(int) {}
void PauseBeforeExit(int) {}
void PauseStepDone(int) {}

}  // namespace bdmpi::test_hooks

#endif
