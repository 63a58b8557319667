// One logger for both halves: run-time level from BDMPI_LOG
// (error|warn|info|debug, default warn), optional category filter
// BDMPI_LOG_CATEGORIES=ipc,sched,coll,disk,p2p; every line is prefixed with
// the node, rank (or "master") and pid so interleaved output stays readable.
#pragma once

#include <cstdarg>

namespace bdmpi {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

// Sets the prefix ("master n0" / "rank 5") and reads the environment.
void InitLog(const char* who);
bool LogEnabled(LogLevel level, const char* category);
void LogPrint(LogLevel level, const char* category, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

}  // namespace bdmpi

#define BDMPI_LOG(level, category, ...)                        \
  do {                                                         \
    if (::bdmpi::LogEnabled(level, category))                  \
      ::bdmpi::LogPrint(level, category, __VA_ARGS__);         \
  } while (0)
#define BDMPI_DEBUG(category, ...) \
  BDMPI_LOG(::bdmpi::LogLevel::kDebug, category, __VA_ARGS__)
#define BDMPI_INFO(category, ...) \
  BDMPI_LOG(::bdmpi::LogLevel::kInfo, category, __VA_ARGS__)
#define BDMPI_WARN(category, ...) \
  BDMPI_LOG(::bdmpi::LogLevel::kWarn, category, __VA_ARGS__)
#define BDMPI_ERROR(category, ...) \
  BDMPI_LOG(::bdmpi::LogLevel::kError, category, __VA_ARGS__)
