#include "common/byte_size.h"

#include <cerrno>
#include <cstdlib>
#include <limits>

#include "common/error.h"

namespace bdmpi {
namespace {

struct Suffix {
  const char* text;
  unsigned shift;
};
constexpr Suffix kSuffixes[] = {{"k", 10}, {"K", 10}, {"KiB", 10}, {"m", 20}, {"M", 20},
                                {"MiB", 20}, {"g", 30}, {"G", 30}, {"GiB", 30}};

}  // namespace

std::size_t ParseByteSize(const std::string& text, const std::string& what) {
  auto bad = [&](const std::string& why) -> std::size_t {
    throw Error(kErrArg, what + ": " + why + " '" + text +
                             "' (a byte count, optionally with k, m or g)");
  };
  std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos || text[first] == '-') return bad("bad size");
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || errno == ERANGE) return bad("bad size");
  std::string suffix(end);
  unsigned shift = 0;
  if (!suffix.empty()) {
    bool known = false;
    for (const Suffix& s : kSuffixes) {
      if (suffix == s.text) {
        shift = s.shift;
        known = true;
      }
    }
    if (!known) return bad("bad size suffix in");
  }
  if (value > (std::numeric_limits<unsigned long long>::max() >> shift))
    return bad("too large a size");
  return static_cast<std::size_t>(value << shift);
}

std::string FormatByteSize(std::size_t bytes) {
  for (auto [suffix, shift] : {std::pair{"g", 30u}, std::pair{"m", 20u}, std::pair{"k", 10u}}) {
    if (bytes != 0 && bytes % (std::size_t{1} << shift) == 0)
      return std::to_string(bytes >> shift) + suffix;
  }
  return std::to_string(bytes);
}

}  // namespace bdmpi
