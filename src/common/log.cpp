#include "common/log.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>


namespace bdmpi {
namespace {

struct LogState {
  LogLevel level = LogLevel::kWarn;
  std::string categories;  // empty: all
  char prefix[64] = "bdmpi";
};

LogState& State() {
  static LogState state;
  return state;
}

LogLevel ParseLevel(const char* text) {
  if (text == nullptr) return LogLevel::kWarn;
  if (!std::strcmp(text, "error")) return LogLevel::kError;
  if (!std::strcmp(text, "info")) return LogLevel::kInfo;
  if (!std::strcmp(text, "debug")) return LogLevel::kDebug;
  return LogLevel::kWarn;
}

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
  }
  return "?";
}

}  // namespace

void InitLog(const char* who) {
  LogState& state = State();
  state.level = ParseLevel(std::getenv("BDMPI_LOG"));
  const char* categories = std::getenv("BDMPI_LOG_CATEGORIES");
  state.categories = categories ? std::string(",") + categories + "," : "";
  std::snprintf(state.prefix, sizeof state.prefix, "%s pid %d", who,
                static_cast<int>(getpid()));
}

bool LogEnabled(LogLevel level, const char* category) {
  const LogState& state = State();
  if (level > state.level) return false;
  if (state.categories.empty() || level == LogLevel::kError) return true;
  return state.categories.find(std::string(",") + category + ",") !=
         std::string::npos;
}

void LogPrint(LogLevel level, const char* category, const char* fmt, ...) {
  char line[1024];
  int n = std::snprintf(line, sizeof line, "[bdmpi %s %s %s] ",
                        State().prefix, LevelName(level), category);
  va_list args;
  va_start(args, fmt);
  if (n >= 0 && n < static_cast<int>(sizeof line))
    std::vsnprintf(line + n, sizeof line - n, fmt, args);
  va_end(args);
  // One write per line so that lines of concurrent processes do not mix.
  std::string text(line);
  text += '\n';
  ssize_t ignored = write(STDERR_FILENO, text.data(), text.size());
  (void)ignored;
}

}  // namespace bdmpi
