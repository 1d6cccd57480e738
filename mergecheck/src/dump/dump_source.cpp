// Copyright 2026 The steadyflake Authors.
//
// OpenDumpSource: the Source for SQL dumps (sqlite3 .dump, mysqldump, mariadb-dump), plain or
// gzip-compressed. The parsing is in dump_parser.cpp.

#include "dump/dump_source.h"

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "dump/byte_stream.h"
#include "dump/dump_parser.h"

namespace steadyflake::mergecheck {
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
  }

  std::string format() const override {
    std::string f = kind_.dialect == dump::Dialect::kSqlite ? "sqlite-dump" : "mysql-dump";
    if (gzip_) f += "+gzip";
    return f;
  }

  void Scan(SourceVisitor& visitor, const std::vector<std::string>& only) override {
    progress_.bytes.store(0, std::memory_order_relaxed);
    progress_.rows.store(0, std::memory_order_relaxed);
    dump::ParseDump(path_, gzip_, kind_, chunk_size_, visitor, only, progress_);
  }

  uint64_t bytes_read() const override { return progress_.bytes.load(std::memory_order_relaxed); }
  uint64_t rows_read() const override { return progress_.rows.load(std::memory_order_relaxed); }

 private:
  // Fixed at construction.
  const std::string path_;
  const bool gzip_;
  const size_t chunk_size_;
  dump::DumpKind kind_;

  dump::ScanProgress progress_;
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
