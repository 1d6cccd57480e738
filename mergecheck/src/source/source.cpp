// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// OpenSource: picks the reader by the first bytes of the file, never by its name. Covers.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "source/source.h"
#include "steadyflake/error.h"

namespace steadyflake::mergecheck {

namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& problem) {
  throw Error(Error::Code::kInvalidArgument, path + ": " + problem);
}

}  // namespace

namespace {

// The default of OnRowids and OnIntegers: one OnRow per value, with the value in every present
// field. `position(row)` numbers the row as the visitor's OnRow expects.
template <class Position>
void IntegersAsRows(SourceVisitor& visitor, const Table& table, std::span<const int> present,
                    std::size_t width, std::span<const int64_t> values, Position position) {
  std::vector<Cell> cells(width);
  for (const int i : present) cells[static_cast<std::size_t>(i)].type = Cell::Type::kInteger;
  for (std::size_t row = 0; row < values.size(); ++row) {
    for (const int i : present) cells[static_cast<std::size_t>(i)].integer = values[row];
    visitor.OnRow(table, cells, position(row));
  }
}

}  // namespace

void SourceVisitor::OnRows(const Table& table, std::span<const Cell> cells, std::size_t width,
                           std::span<const uint64_t> positions) {
  for (std::size_t row = 0; row < positions.size(); ++row) {
    OnRow(table, cells.subspan(row * width, width), positions[row]);
  }
}

void SourceVisitor::OnRowids(const Table& table, std::span<const int> present, std::size_t width,
                             std::span<const int64_t> rowids) {
  IntegersAsRows(*this, table, present, width, rowids,
                 [&](std::size_t row) { return static_cast<uint64_t>(rowids[row]); });
}

void SourceVisitor::OnIntegers(const Table& table, std::span<const int> present, std::size_t width,
                               std::span<const int64_t> values, uint64_t first) {
  IntegersAsRows(*this, table, present, width, values,
                 [first](std::size_t row) { return first + row; });
}

bool Covers(std::span<const int> present, std::span<const int> needed) {
  return std::all_of(needed.begin(), needed.end(), [&](int position) {
    return std::binary_search(present.begin(), present.end(), position);
  });
}

std::unique_ptr<Source> OpenSource(const std::string& path) {
  // Non-blocking: a FIFO without a writer would block open(2) forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) Fail(path, "no such file; check the path");
    if (error == EACCES) {
      Fail(path,
           "permission denied; make the file readable by this user (the check never "
           "writes to it)");
    }
    Fail(path, std::string("cannot open: ") + std::strerror(error) + "; check the path");
  }
  struct stat info {};
  unsigned char head[4096];
  ssize_t n = -1;
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    Fail(path, "is a directory; pass a SQLite database file or an SQL dump");
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    Fail(path,
         "is not a regular file (a pipe, socket or device), and the check reads each input "
         "more than once; save it to a file and pass that");
  }
  do {
    n = ::pread(fd, head, sizeof head, 0);
  } while (n < 0 && errno == EINTR);
  const int error = errno;
  ::close(fd);
  if (n < 0) Fail(path, std::string("cannot read: ") + std::strerror(error) + "; check the file");
  const auto size = static_cast<std::size_t>(n);
  if (size == 0) {
    Fail(path, "the file is empty; pass a SQLite database file or an SQL dump");
  }
  static constexpr char kSqliteMagic[] = "SQLite format 3";  // and its terminating NUL
  if (size >= sizeof kSqliteMagic && std::memcmp(head, kSqliteMagic, sizeof kSqliteMagic) == 0) {
    return OpenSqliteSource(path);
  }
  if (size >= 2 && head[0] == 0x1f && head[1] == 0x8b) return OpenDumpSource(path, true);
  // A NUL byte early on means a binary file: dumps escape NUL (\0, X'00', 0x00). Anything else
  // goes to the dump reader, which names the line where it stops making sense: a mysqldump
  // without --hex-blob may hold raw control bytes as early as its first rows.
  if (std::memchr(head, 0, size) == nullptr) return OpenDumpSource(path, false);
  Fail(path,
       "neither a SQLite database nor an SQL dump; pass a SQLite file or the output of "
       "sqlite3 .dump, mysqldump or mariadb-dump (optionally gzip-compressed)");
}

}  // namespace steadyflake::mergecheck
