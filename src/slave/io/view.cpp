#include "slave/io/view.h"

#include <algorithm>
#include <utility>

#include "common/error.h"

namespace bdmpi::io {

namespace {

bool IsPredefined(MPI_Datatype type) { return LookupType(type).predefined; }

// MPI-3.1 13.3: an etype's and a filetype's displacements are non-negative
// and monotonically non-decreasing, and in a file opened for writing they
// must not overlap. MPI_ERR_IO, as ROMIO reports it.
void CheckMonotonic(const TypeInfo& type, const char* what, bool writable) {
  std::int64_t start = 0, end = 0;
  for (const TypeRun& run : FlatRuns(type)) {
    const char* why = nullptr;
    if (run.offset < 0)
      why = " has a negative displacement";
    else if (run.offset < start)
      why = " has decreasing displacements";
    else if (writable && run.offset < end)
      why = " overlaps itself in a file opened for writing";
    if (why != nullptr)
      throw Error(MPI_ERR_IO, std::string("the view's ") + what + why +
                                  " (MPI-3.1 13.3 requires displacements non-negative, "
                                  "non-decreasing and, for writing, disjoint)");
    start = run.offset;
    end = std::max(end, run.offset + static_cast<std::int64_t>(run.length));
  }
}

MPI_Datatype Keep(MPI_Datatype type) { return IsPredefined(type) ? type : DupType(type); }

}  // namespace

View::View() {
  auto layout = std::make_shared<TypeInfo>(LookupType(MPI_BYTE));
  layout->runs = {TypeRun{0, 1, 1, 0, nullptr}};
  layout_ = std::move(layout);
  run_starts_ = {0};
}

View::View(std::int64_t disp, MPI_Datatype etype, MPI_Datatype filetype, bool writable,
           const Datarep& datarep)
    : disp_(disp) {
  if (!LookupType(etype).committed || !LookupType(filetype).committed)
    throw Error(kErrType, "the etype and the filetype of a view must be committed");
  // The types as the file has them; the program's handles are kept for
  // MPI_File_get_view.
  struct FileTypes {
    MPI_Datatype etype, filetype;
    bool etype_made = false, filetype_made = false;
    ~FileTypes() {
      if (etype_made) FreeType(&etype);
      if (filetype_made) FreeType(&filetype);
    }
  } file{etype, filetype};
  file.etype = datarep.FileType(etype, &file.etype_made);
  file.filetype = datarep.FileType(filetype, &file.filetype_made);
  const TypeInfo& e = LookupType(file.etype);
  const TypeInfo& f = LookupType(file.filetype);
  if (e.size == 0) throw Error(kErrType, "the etype of a view must not be empty");
  if (f.size == 0 || f.size % e.size != 0)
    throw Error(kErrType, "the filetype's size (" + std::to_string(f.size) +
                              " bytes) is not a positive multiple of the etype's (" +
                              std::to_string(e.size) + ")");
  if (disp < 0) throw Error(kErrArg, "the displacement of a view must not be negative");
  CheckMonotonic(e, "etype", writable);
  CheckMonotonic(f, "filetype", writable);
  auto layout = std::make_shared<TypeInfo>(f);
  // Pieces are looked up by their place in the stream: one run per block.
  layout->runs = FlatRuns(f);
  if (layout->runs.empty()) layout->runs = {TypeRun{0, f.size, 1, 0, nullptr}};
  std::uint64_t at = 0;
  for (const TypeRun& run : layout->runs) {
    run_starts_.push_back(at);
    at += run.length;
  }
  tile_bytes_ = at;
  if (f.extent < 0)
    throw Error(kErrArg, "the view's filetype has a negative extent (MPI-3.1 13.3 tiles the "
                         "file with it upwards)");
  extent_ = static_cast<std::uint64_t>(f.extent);
  layout_ = std::move(layout);
  etype_size_ = e.size;
  etype_ = Keep(etype);
  filetype_ = Keep(filetype);
}

View::View(View&& other) noexcept { *this = std::move(other); }

View& View::operator=(View&& other) noexcept {
  if (this == &other) return *this;
  Release();
  disp_ = other.disp_;
  etype_ = std::exchange(other.etype_, MPI_BYTE);
  filetype_ = std::exchange(other.filetype_, MPI_BYTE);
  etype_size_ = other.etype_size_;
  layout_ = other.layout_;
  run_starts_ = other.run_starts_;
  tile_bytes_ = other.tile_bytes_;
  extent_ = other.extent_;
  return *this;
}

View::~View() { Release(); }

void View::Release() noexcept {
  for (MPI_Datatype* type : {&etype_, &filetype_}) {
    try {
      if (!IsPredefined(*type)) FreeType(type);
    } catch (const Error&) {  // MPI_Finalize forgot the types first
    }
    *type = MPI_BYTE;
  }
}

std::uint64_t View::FileOffset(std::uint64_t stream) const {
  std::uint64_t tile = stream / tile_bytes_, within = stream % tile_bytes_;
  auto it = std::upper_bound(run_starts_.begin(), run_starts_.end(), within) - 1;
  const TypeRun& run = layout_->runs[static_cast<std::size_t>(it - run_starts_.begin())];
  return static_cast<std::uint64_t>(disp_) + tile * extent_ +
         static_cast<std::uint64_t>(run.offset) + (within - *it);
}

void View::ForEachPiece(std::uint64_t stream, std::uint64_t bytes,
                        const std::function<void(std::uint64_t, std::uint64_t,
                                                 std::uint64_t)>& fn) const {
  std::uint64_t pending_file = 0, pending_length = 0, pending_stream = 0;
  const std::uint64_t end = stream + bytes;
  std::uint64_t at = stream;
  while (at < end) {
    std::uint64_t tile = at / tile_bytes_, within = at % tile_bytes_;
    auto it = std::upper_bound(run_starts_.begin(), run_starts_.end(), within) - 1;
    std::size_t index = static_cast<std::size_t>(it - run_starts_.begin());
    // Whole tiles of a contiguous view go at once.
    for (; index < layout_->runs.size() && at < end; ++index) {
      const TypeRun& run = layout_->runs[index];
      std::uint64_t skip = within - run_starts_[index];
      std::uint64_t length = std::min(run.length - skip, end - at);
      std::uint64_t file = static_cast<std::uint64_t>(disp_) + tile * extent_ +
                           static_cast<std::uint64_t>(run.offset) + skip;
      if (pending_length > 0 && pending_file + pending_length == file) {
        pending_length += length;
      } else {
        if (pending_length > 0) fn(pending_file, pending_length, pending_stream);
        pending_file = file;
        pending_length = length;
        pending_stream = at;
      }
      at += length;
      within = run_starts_[index] + skip + length;
      if (index + 1 < layout_->runs.size()) within = run_starts_[index + 1];
    }
    if (layout_->runs.size() == 1 && extent_ == tile_bytes_ && at < end) {
      // A contiguous view: the rest is one piece.
      std::uint64_t file = static_cast<std::uint64_t>(disp_) + (at / tile_bytes_) * extent_ +
                           static_cast<std::uint64_t>(layout_->runs[0].offset) +
                           at % tile_bytes_;
      if (pending_file + pending_length == file) {
        pending_length += end - at;
        at = end;
      }
    }
  }
  if (pending_length > 0) fn(pending_file, pending_length, pending_stream);
}

std::uint64_t View::StreamBytesBefore(std::uint64_t file_size) const {
  std::uint64_t disp = static_cast<std::uint64_t>(disp_);
  if (file_size <= disp) return 0;
  std::uint64_t span = file_size - disp;
  std::uint64_t tiles = span / extent_, rest = span % extent_;
  std::uint64_t bytes = tiles * tile_bytes_;
  for (const TypeRun& run : layout_->runs) {
    std::uint64_t start = static_cast<std::uint64_t>(run.offset);
    if (rest > start) bytes += std::min(run.length, rest - start);
  }
  return bytes;
}

}  // namespace bdmpi::io
