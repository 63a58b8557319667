// Byte sizes as people type them: "64k", "1m", "2g", "3KiB" or a plain count.
// The one parser for options and environment variables alike.
#pragma once

#include <cstddef>
#include <string>

namespace bdmpi {

// Throws Error(kErrArg) "<what>: bad size '<text>' ..." on anything else,
// on negative numbers (strtoull would take "-1" as 2^64 - 1) and on sizes
// that overflow once scaled.
std::size_t ParseByteSize(const std::string& text, const std::string& what = "size");

// The shortest exact spelling: 65536 -> "64k", 1000 -> "1000".
std::string FormatByteSize(std::size_t bytes);

}  // namespace bdmpi
