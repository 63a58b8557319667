// Moving data between a user's buffer and a file through the file's view.
// The buffer's elements become one stream of data bytes (as is for a type
// without gaps, else packed or unpacked once); the view says where each
// stream byte lies in the file. Every contiguous piece goes in one large
// pread/pwrite (adjacent pieces of the view merged), so large I/O is large
// requests; reads into storage-backed memory go into the rank's backing
// file instead of its memory (memory::ReadFileInto).
#pragma once

#include <mpi.h>

#include <cstdint>

#include "slave/io/file.h"

namespace bdmpi::io {

// Data bytes `count` elements of `datatype` take in the file (in the
// view's data representation), checked to be whole etypes of the view
// (kErrArg otherwise: MPI-3.1 13.4.1 needs it).
std::uint64_t AccessBytes(const FileInfo& file, int count, MPI_Datatype datatype);

// What an access moved: stream bytes of the view (bytes in the file) and
// the wire bytes they are in memory (the status's count); the same but
// for a data representation other than "native".
struct Moved {
  std::uint64_t stream = 0;
  std::uint64_t wire = 0;
};

// Reads from stream byte `stream` of the view (fewer bytes at the end of
// the file; the rest of the buffer is untouched).
Moved ReadStream(FileInfo& file, std::uint64_t stream, void* buffer, int count,
                 MPI_Datatype datatype);
Moved WriteStream(FileInfo& file, std::uint64_t stream, const void* buffer, int count,
                  MPI_Datatype datatype);

}  // namespace bdmpi::io
