// MPI-IO's calls on open files, below the extern "C" layer (api/io.cpp).
// Collective calls synchronise on the file's communicator through the
// masters (MPI_Barrier/MPI_Allreduce), so a rank waiting in one is
// descheduled and lets the other ranks of its node run. Data access is
// independent I/O by every rank (see docs/mpi-io.md).
#pragma once

#include <mpi.h>

#include <cstdint>

#include "slave/io/file.h"

namespace bdmpi::io {

MPI_File Open(MPI_Comm comm, const char* filename, int amode, MPI_Info info);
void Close(MPI_File* file);
void Delete(const char* filename);

void SetSize(FileInfo& file, MPI_Offset size);
void Preallocate(FileInfo& file, MPI_Offset size);
MPI_Offset GetSize(const FileInfo& file);
void SetView(FileInfo& file, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
             const char* datarep);
void Sync(FileInfo& file);
void SetAtomicity(FileInfo& file, bool atomic);

// Which file pointer an access uses.
enum class Pointer { kExplicit, kIndividual, kShared };

struct Access {
  Pointer pointer = Pointer::kIndividual;
  MPI_Offset offset = 0;  // kExplicit: in etypes of the view
  bool collective = false;
};

// Reads or writes and fills `status` (may be MPI_STATUS_IGNORE).
void Read(FileInfo& file, const Access& access, void* buffer, int count,
          MPI_Datatype datatype, MPI_Status* status);
void Write(FileInfo& file, const Access& access, const void* buffer, int count,
           MPI_Datatype datatype, MPI_Status* status);
// MPI_File_read/write_ordered: collective, in rank order from the shared
// pointer.
void ReadOrdered(FileInfo& file, void* buffer, int count, MPI_Datatype datatype,
                 MPI_Status* status);
void WriteOrdered(FileInfo& file, const void* buffer, int count, MPI_Datatype datatype,
                  MPI_Status* status);

void Seek(FileInfo& file, MPI_Offset offset, int whence);
void SeekShared(FileInfo& file, MPI_Offset offset, int whence);
MPI_Offset GetPositionShared(FileInfo& file);
MPI_Offset GetByteOffset(const FileInfo& file, MPI_Offset offset);

}  // namespace bdmpi::io
