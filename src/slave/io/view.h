// A file view (MPI-3.1 13.3): the file seen from a displacement as the
// filetype tiled over and over, only its data bytes visible. Positions
// count data bytes of the view ("stream bytes"); file pointers count
// etypes (stream bytes / etype size).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "slave/datatype/datatypes.h"
#include "slave/io/datarep.h"

namespace bdmpi::io {

class View {
 public:
  // The default view: byte stream from offset 0.
  View();
  // Copies the layouts; the handles are duplicated so that MPI_File_get_view
  // can hand them out after the program freed its own (see Release).
  // `writable`: the file is open for writing (no overlaps allowed then).
  // The layout is the types' in `datarep` (Datarep::FileType); positions
  // count bytes in the file.
  View(std::int64_t disp, MPI_Datatype etype, MPI_Datatype filetype, bool writable,
       const Datarep& datarep = *Datarep::Native());
  View(const View&) = delete;
  View& operator=(const View&) = delete;
  View(View&& other) noexcept;
  View& operator=(View&& other) noexcept;
  ~View();

  std::int64_t disp() const { return disp_; }
  MPI_Datatype etype() const { return etype_; }
  MPI_Datatype filetype() const { return filetype_; }
  std::uint64_t etype_size() const { return etype_size_; }

  // The file byte at which stream byte `stream` lies.
  std::uint64_t FileOffset(std::uint64_t stream) const;
  // Calls fn(file offset, length, stream offset) for the contiguous file
  // pieces of stream bytes [stream, stream + bytes), adjacent pieces merged.
  void ForEachPiece(std::uint64_t stream, std::uint64_t bytes,
                    const std::function<void(std::uint64_t, std::uint64_t,
                                             std::uint64_t)>& fn) const;
  // Stream bytes that lie before file byte `file_size` (the end of file
  // as the view sees it).
  std::uint64_t StreamBytesBefore(std::uint64_t file_size) const;

 private:
  void Release() noexcept;

  std::int64_t disp_ = 0;
  MPI_Datatype etype_ = MPI_BYTE;
  MPI_Datatype filetype_ = MPI_BYTE;
  std::uint64_t etype_size_ = 1;
  // The filetype's data runs and their sizes' prefix sums; one run of
  // `extent_` bytes for a contiguous view.
  std::shared_ptr<const TypeInfo> layout_;
  std::vector<std::uint64_t> run_starts_;  // stream offset of each run in a tile
  std::uint64_t tile_bytes_ = 1;           // data bytes per filetype
  std::uint64_t extent_ = 1;
};

}  // namespace bdmpi::io
