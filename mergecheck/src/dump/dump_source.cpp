// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// OpenDumpSource: the Source for SQL dumps (sqlite3 .dump, mysqldump, mariadb-dump), plain or
// gzip-compressed, and DetectDumpKind, which tells them apart by their first bytes. The parsing
// is in dump_parser.cpp.

#include "dump/dump_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dump/byte_stream.h"
#include "dump/dump_error.h"
#include "dump/dump_parser.h"
#include "dump/rows_at.h"
#include "dump/statement_scanner.h"
#include "steadyflake/error.h"

namespace steadyflake::mergecheck {

namespace dump {

DumpKind DetectDumpKind(std::string_view head, const std::string& path) {
  std::string_view text = head;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  size_t i = 0;
  while (i < text.size() && IsSpace(text[i])) ++i;
  if (i == text.size()) {
    FailAt(path, 1 + CountLines(head), "the file is empty, not an SQL dump", kFixUnreadable);
  }
  DumpKind kind;
  const std::string_view rest = text.substr(i);
  kind.has_header_comment = head.find("-- MySQL dump") != std::string_view::npos ||
                            head.find("-- MariaDB dump") != std::string_view::npos;
  if (kind.has_header_comment || rest.starts_with("/*!") || rest.starts_with("/*M!")) {
    kind.dialect = Dialect::kMysql;
    return kind;
  }
  if (StartsWithIgnoreCase(rest, "PRAGMA") || StartsWithIgnoreCase(rest, "BEGIN TRANSACTION")) {
    kind.dialect = Dialect::kSqlite;
    return kind;
  }
  // Skip comments to the first statement, which must start with an SQL keyword.
  for (;;) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    if (text.substr(i, 2) == "--" || text.substr(i, 1) == "#") {
      const size_t eol = text.find('\n', i);
      i = eol == std::string_view::npos ? text.size() : eol + 1;
    } else if (text.substr(i, 2) == "/*") {
      const size_t close = text.find("*/", i + 2);
      i = close == std::string_view::npos ? text.size() : close + 2;
    } else if (text.substr(i, 1) == ";") {
      ++i;  // an empty statement, as after /*!40101 ... */
    } else {
      break;
    }
  }
  size_t w = i;
  while (w < text.size() && IsWordByte(static_cast<unsigned char>(text[w]))) ++w;
  const std::string_view word = text.substr(i, w - i);
  if (!IsStatementKeyword(word)) {
    const size_t offset = static_cast<size_t>(text.data() - head.data()) + i;
    FailAt(
        path, 1 + CountLines(head.substr(0, offset)),
        "not an SQL dump: expected an SQL statement, found '" + Printable(text.substr(i, 24)) + "'",
        kFixUnreadable);
  }
  const bool mysql_signs = head.find('`') != std::string_view::npos ||
                           head.find("ENGINE=") != std::string_view::npos ||
                           head.find("LOCK TABLES") != std::string_view::npos ||
                           head.find("/*!") != std::string_view::npos;
  kind.dialect = mysql_signs ? Dialect::kMysql : Dialect::kSqlite;
  return kind;
}

}  // namespace dump

namespace {

// One dump file. Scan may run again (each run reads the file from the start); the file is
// opened read-only for each run and closed at its end. Scan is not thread-safe; bytes_read and
// rows_read may be called from any thread during it.
class DumpSource final : public Source {
 public:
  DumpSource(std::string path, bool gzip, size_t chunk_size)
      : path_(std::move(path)), gzip_(gzip), chunk_size_(chunk_size == 0 ? 1 : chunk_size) {
    // Detect the dialect from the first bytes, so format() is right before the first Scan and
    // a file that is no dump is refused at once.
    std::unique_ptr<dump::ByteStream> in = dump::OpenByteStream(path_, gzip_);
    std::string head(dump::kDetectBytes, '\0');
    size_t got = 0;
    while (got < head.size()) {
      const size_t n = in->Read(head.data() + got, head.size() - got);
      if (n == 0) break;
      got += n;
    }
    head.resize(got);
    kind_ = dump::DetectDumpKind(head, path_);
    struct stat info {};
    if (::stat(path_.c_str(), &info) == 0) {
      file_size_ = static_cast<uint64_t>(info.st_size);
      identity_ = Identity(info);
    }
  }

  std::string format() const override {
    std::string f = kind_.dialect == dump::Dialect::kSqlite ? "sqlite-dump" : "mysql-dump";
    if (gzip_) f += "+gzip";
    return f;
  }

  std::string reader() const override { return "SQL text"; }

  void Scan(SourceVisitor& visitor, const std::vector<std::string>& only) override {
    progress_.bytes.store(0, std::memory_order_relaxed);
    progress_.rows.store(0, std::memory_order_relaxed);
    progress_.file_bytes.store(0, std::memory_order_relaxed);
    auto index = std::make_shared<dump::InsertIndex>();
    dump::ParseDump(path_, gzip_, kind_, chunk_size_, visitor, only, progress_,
                    gzip_ ? nullptr : index.get());
    for (const auto& [name, rows] : index->tables) by_table_[name] = index;
  }

  bool ReadsRowsAt() const override { return !gzip_; }

  bool ReadRowsAt(SourceVisitor& visitor, const std::string& table,
                  std::span<const uint64_t> positions) override {
    const auto it = by_table_.find(table);
    if (gzip_ || it == by_table_.end() || !it->second->tables.at(table).usable) return false;
    // Rows all read before are given from what that read kept: the file is not opened again.
    if (std::all_of(positions.begin(), positions.end(),
                    [&](uint64_t position) { return !rows_read_.Find(position).empty(); })) {
      dump::ReadDumpRowsAt(path_, -1, file_size_, kind_.dialect, *it->second, table, positions,
                           visitor, rows_read_);
      return true;
    }
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      throw Error(Error::Code::kInvalidArgument, path_ + ": cannot open it again (" +
                                                     std::strerror(errno) + "); " +
                                                     std::string(dump::kFixChanged));
    }
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat info {};
    if (::fstat(fd, &info) != 0 || Identity(info) != identity_) {
      throw Error(
          Error::Code::kInvalidArgument,
          path_ + " changed since merge-check began reading it; " + std::string(dump::kFixChanged));
    }
    dump::ReadDumpRowsAt(path_, fd, file_size_, kind_.dialect, *it->second, table, positions,
                         visitor, rows_read_);
    return true;
  }

  uint64_t bytes_read() const override { return progress_.bytes.load(std::memory_order_relaxed); }
  uint64_t rows_read() const override { return progress_.rows.load(std::memory_order_relaxed); }
  uint64_t file_read() const override {
    return progress_.file_bytes.load(std::memory_order_relaxed);
  }
  uint64_t file_size() const override { return file_size_; }

 private:
  // Fixed at construction.
  const std::string path_;
  const bool gzip_;
  const size_t chunk_size_;
  dump::DumpKind kind_;
  uint64_t file_size_ = 0;  // at the start; 0 if it could not be read

  dump::ScanProgress progress_;

  // What says the file is the one first read: device, inode, size and modification time.
  using FileIdentity = std::array<uint64_t, 5>;
  static FileIdentity Identity(const struct stat& info) {
    return {static_cast<uint64_t>(info.st_dev), static_cast<uint64_t>(info.st_ino),
            static_cast<uint64_t>(info.st_size), static_cast<uint64_t>(info.st_mtim.tv_sec),
            static_cast<uint64_t>(info.st_mtim.tv_nsec)};
  }
  FileIdentity identity_{};
  // Per table, the index of the last Scan that gave its rows (rows_at.h).
  std::map<std::string, std::shared_ptr<const dump::InsertIndex>> by_table_;
  dump::RowCache rows_read_;  // by ReadRowsAt, for the next passes
};

}  // namespace

std::unique_ptr<Source> OpenDumpSourceForTest(const std::string& path, bool gzip,
                                              size_t chunk_size) {
  return std::make_unique<DumpSource>(path, gzip, chunk_size);
}

std::unique_ptr<Source> OpenDumpSource(const std::string& path, bool gzip) {
  return std::make_unique<DumpSource>(path, gzip, kDumpChunkSize);
}

}  // namespace steadyflake::mergecheck
