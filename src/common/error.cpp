#include "common/error.h"

#include <cerrno>
#include <cstring>

namespace bdmpi {

void ThrowSystemError(const std::string& what, int err) {
  int error_class = kErrOther;
  if (err == ENOMEM) error_class = kErrNoMem;
  if (err == ENOSPC || err == EDQUOT) error_class = kErrNoSpace;
  if (err == EIO) error_class = kErrIo;
  // The kernel refused to read or write the user's memory (a spill file
  // written from, or read into, an unmapped buffer).
  if (err == EFAULT) error_class = kErrBuffer;
  throw Error(error_class, what + ": " + std::strerror(err));
}

}  // namespace bdmpi
