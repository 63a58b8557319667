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

// Data bytes of `count` elements of `datatype`, checked to be whole etypes
// of the file's view (kErrArg otherwise: MPI-3.1 13.4.1 needs it).
std::uint64_t AccessBytes(const FileInfo& file, int count, MPI_Datatype datatype);

// Reads from stream byte `stream` of the view; returns the data bytes read
// (fewer at the end of the file; the rest of the buffer is untouched).
std::uint64_t ReadStream(FileInfo& file, std::uint64_t stream, void* buffer, int count,
                         MPI_Datatype datatype);
std::uint64_t WriteStream(FileInfo& file, std::uint64_t stream, const void* buffer, int count,
                          MPI_Datatype datatype);

}  // namespace bdmpi::io
