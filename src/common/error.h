// Errors inside the runtime are exceptions that carry an MPI error class; the
// slave's extern "C" boundary turns them into return codes and calls the
// communicator's error handler, the master turns them into a job failure.
#pragma once

#include <stdexcept>
#include <string>

namespace bdmpi {

// Error classes, numerically equal to include/mpi.h's MPI_ERR_* (checked by
// tests/unit/handles_test.cpp); the master cannot include our mpi.h.
enum ErrorClass : int {
  kSuccess = 0,
  kErrBuffer = 1,
  kErrCount = 2,
  kErrType = 3,
  kErrTag = 4,
  kErrComm = 5,
  kErrRank = 6,
  kErrRequest = 7,
  kErrRoot = 8,
  kErrGroup = 9,
  kErrOp = 10,
  kErrArg = 13,
  kErrUnknown = 14,
  kErrTruncate = 15,
  kErrOther = 16,
  kErrIntern = 17,
  kErrInStatus = 18,
  kErrPending = 19,
  kErrIo = 35,
  kErrName = 38,
  kErrNoMem = 39,
  kErrNoSpace = 41,
  kErrPort = 43,
  kErrSpawn = 50,
  kErrUnsupportedOperation = 52,
  kErrRmaRange = 54,
};

class Error : public std::runtime_error {
 public:
  Error(int error_class, const std::string& message)
      : std::runtime_error(message), error_class_(error_class) {}
  int error_class() const { return error_class_; }

 private:
  int error_class_;
};

// A failed system call: the message names the call and errno's text.
[[noreturn]] void ThrowSystemError(const std::string& what, int err);

// Internal invariants (never user input): throws kErrIntern with the file,
// line and the failed condition.
#define BDMPI_ENFORCE(cond, msg)                                           \
  do {                                                                     \
    if (!(cond))                                                           \
      throw ::bdmpi::Error(::bdmpi::kErrIntern,                            \
                           std::string(__FILE__) + ":" +                   \
                               std::to_string(__LINE__) + ": " #cond ": " + \
                               (msg));                                     \
  } while (0)

}  // namespace bdmpi
