// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: the SQL dump reader (mergecheck/src/dump/) as the merge checker uses it:
// OpenSource on a file, then a whole Scan with a visitor that reads every cell it is given.
// Every input ends in a finished scan or in Error(kInvalidArgument) whose one-line message
// names the file; anything else (another exception, a crash, a hang, undefined behaviour)
// aborts.
//
// The first byte of an input picks how it is read; the rest is the file. Its low six bits:
//   bit 0     gzip the rest in memory first, so mutations of a readable dump reach the gzip
//             reader (OpenSource then sees gzip's magic bytes)
//   bits 1-2  bytes per read: 0 = the reader's own (OpenSource, 4 MiB); 1, 2, 3 = 1, 7 or 64
//             bytes (OpenDumpSourceForTest), so tokens straddle reads; the outcome (tables,
//             rows, or the error) must be the one the reader's own size gives
//   bits 3-4  the columns the visitor asks for: 0 = all, 1 = every other one, 2 = none,
//             3 = all twice (in reverse order, then in order)
//   bit 5     scan again, only for the first table announced (`only`, as the checker rereads):
//             the rows must be those the first scan gave for that table; and, for a plain
//             dump, read that table's rows again at their positions (Source::ReadRowsAt, as
//             the checker's later passes do): the same rows again
// Seeds start with a printable mode byte ('@' = 0x40 is mode 0).
//
// After a finished scan: every Table passes CheckTable (schema_check.h); every row has one cell
// per column asked for and a position inside the input; a kBigInteger is decimal digits
// without a leading zero; bytes_read() is the size of the uncompressed input and rows_read()
// the number of rows the visitor got.

#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dump/dump_source.h"
#include "schema_check.h"
#include "source/source.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::fuzz {
namespace {

using mergecheck::Cell;
using mergecheck::Table;

// `text` as one gzip member.
std::string Gzip(std::string_view text) {
  z_stream z{};
  Check(deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  Check(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// A file under $TMPDIR holding `bytes`, removed with the object: the reader takes a path.
class TempFile {
 public:
  explicit TempFile(std::string_view bytes) {
    const char* dir = std::getenv("TMPDIR");
    path_ = dir != nullptr && *dir != '\0' ? dir : "/tmp";
    path_ += "/steadyflake-fuzz-dump-XXXXXX";
    const int fd = ::mkstemp(path_.data());
    if (fd < 0) {
      std::perror("fuzz_dump: mkstemp");
      std::abort();
    }
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) {
        std::perror("fuzz_dump: write");
        std::abort();
      }
      done += static_cast<size_t>(n);
    }
    ::close(fd);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() { ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// FNV-1a, to compare rows between two scans.
void Mix(uint64_t& h, const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
}

// Asks for the columns the mode names, checks every table and row it is given, and keeps a
// digest of each row (with its table's name) to compare one scan with another.
class TouchEveryCell final : public mergecheck::SourceVisitor {
 public:
  // `input_size`: of the uncompressed input, when known.
  TouchEveryCell(unsigned columns, std::optional<uint64_t> input_size)
      : columns_(columns), input_size_(input_size) {}

  std::vector<int> OnTable(const Table& table) override {
    CheckTable(table);
    if (!first_table_) first_table_ = table.name;
    uint64_t h = 0xcbf29ce484222325ULL;
    Mix(h, table.name.data(), table.name.size() + 1);  // with the NUL: names end unambiguously
    for (const mergecheck::Column& c : table.columns) {
      Mix(h, c.name.data(), c.name.size() + 1);
      Mix(h, c.declared_type.data(), c.declared_type.size() + 1);
    }
    for (const mergecheck::Key& k : table.keys) {
      Mix(h, &k.kind, sizeof k.kind);
      Mix(h, k.columns.data(), k.columns.size() * sizeof(int));
    }
    tables_.push_back(h);
    const int n = static_cast<int>(table.columns.size());
    std::vector<int> wanted;
    switch (columns_) {
      case 0:
        for (int i = 0; i < n; ++i) wanted.push_back(i);
        break;
      case 1:
        for (int i = 0; i < n; i += 2) wanted.push_back(i);
        break;
      case 2:
        break;
      default:
        for (int i = n - 1; i >= 0; --i) wanted.push_back(i);
        for (int i = 0; i < n; ++i) wanted.push_back(i);
    }
    cells_of_[table.name] = wanted.size();
    return wanted;
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t position) override {
    const auto it = cells_of_.find(table.name);
    Check(it != cells_of_.end() && it->second == cells.size());
    Check(!input_size_ || position < *input_size_);
    uint64_t h = 0xcbf29ce484222325ULL;
    Mix(h, &position, sizeof position);
    for (const Cell& cell : cells) {
      Mix(h, &cell.type, sizeof cell.type);
      switch (cell.type) {
        case Cell::Type::kNull:
          break;
        case Cell::Type::kInteger:
          Mix(h, &cell.integer, sizeof cell.integer);
          break;
        case Cell::Type::kBigInteger:
          Check(cell.bytes.size() >= 19 && cell.bytes[0] != '0');
          for (const char c : cell.bytes) Check(c >= '0' && c <= '9');
          Mix(h, cell.bytes.data(), cell.bytes.size());
          break;
        case Cell::Type::kReal:
          Check(!cell.bytes.empty());
          Mix(h, &cell.real, sizeof cell.real);
          Mix(h, cell.bytes.data(), cell.bytes.size());
          break;
        case Cell::Type::kText:
        case Cell::Type::kBlob:
          Mix(h, cell.bytes.data(), cell.bytes.size());  // reads every byte: ASan checks them
          break;
        default:
          std::abort();  // no such type
      }
    }
    rows_.emplace_back(table.name, h);
    positions_.push_back(position);
  }

  const std::optional<std::string>& first_table() const { return first_table_; }
  // Everything the scan gave, in order, as one comparable string.
  std::string Summary() const {
    std::string out;
    for (const uint64_t t : tables_) {
      out += "table ";
      out += std::to_string(t);
      out += '\n';
    }
    for (const auto& [table, h] : rows_) {
      out += table;
      out += ' ';
      out += std::to_string(h);
      out += '\n';
    }
    return out;
  }
  // Every row: its table's name and digest; and its position.
  const std::vector<std::pair<std::string, uint64_t>>& rows() const { return rows_; }
  const std::vector<uint64_t>& positions() const { return positions_; }

 private:
  const unsigned columns_;
  const std::optional<uint64_t> input_size_;
  std::map<std::string, size_t> cells_of_;  // per table name: cells per row
  std::optional<std::string> first_table_;
  std::vector<uint64_t> tables_;  // a digest of each OnTable
  std::vector<std::pair<std::string, uint64_t>> rows_;
  std::vector<uint64_t> positions_;
};

// One complete Scan of `source` (rows of the tables `only` names, or all).
TouchEveryCell ScanAll(mergecheck::Source& source, unsigned columns,
                       std::optional<uint64_t> input_size, const std::vector<std::string>& only) {
  TouchEveryCell visitor(columns, input_size);
  source.Scan(visitor, only);
  Check(!input_size || source.bytes_read() == *input_size);
  Check(source.rows_read() == visitor.rows().size());
  return visitor;
}

// Aborts unless a scan `chunk` bytes at a time ended as the reference scan did.
void SameOutcome(const std::string& reference, const std::string& got, size_t chunk) {
  if (reference == got) return;
  std::fprintf(stderr, "fuzz_dump: reading %zu bytes at a time changed the outcome:\n%s\nvs\n%s\n",
               chunk, reference.c_str(), got.c_str());
  std::abort();
}

void Run(const std::string& path, std::string_view text, unsigned mode) {
  static constexpr size_t kChunks[] = {0, 1, 7, 64};
  const size_t chunk = kChunks[(mode >> 1) & 3];
  const unsigned columns = (mode >> 3) & 3;
  const bool rescan = (mode & 32) != 0;

  std::unique_ptr<mergecheck::Source> source = mergecheck::OpenSource(path);
  const std::string format = source->format();
  Check(format.starts_with("sqlite-dump") || format.starts_with("mysql-dump"));
  const bool gzip = format.ends_with("+gzip");
  const bool sqlite = format.starts_with("sqlite-dump");
  // The size of what the reader inflates is only known when this target compressed it.
  const std::optional<uint64_t> size =
      !gzip || (mode & 1) != 0 ? std::optional<uint64_t>(text.size()) : std::nullopt;

  // Reading a few bytes at a time must change nothing (dump_parser.cpp): the same tables, rows
  // and positions as the reader's own size gives, or the same error.
  std::string reference;
  if (chunk != 0) {
    try {
      reference = ScanAll(*source, columns, size, {}).Summary();
    } catch (const Error& e) {
      reference = std::string("error: ") + e.what();
    }
    source = mergecheck::OpenDumpSourceForTest(path, gzip, chunk);
  }
  std::optional<TouchEveryCell> scanned;
  try {
    scanned.emplace(ScanAll(*source, columns, size, {}));
  } catch (const Error& e) {
    if (chunk != 0) SameOutcome(reference, std::string("error: ") + e.what(), chunk);
    throw;
  }
  if (chunk != 0) SameOutcome(reference, scanned->Summary(), chunk);
  const TouchEveryCell& all = *scanned;
  if (!rescan || !all.first_table()) return;
  // Again, for one table's rows only (MySQL's table names are case-sensitive, SQLite's not).
  // The input read whole once, so the rescan must too: an error now is a finding.
  const std::string& name = *all.first_table();
  std::optional<TouchEveryCell> one;
  try {
    one.emplace(ScanAll(*source, columns, size, {name}));
  } catch (const Error& e) {
    std::fprintf(stderr, "fuzz_dump: the rescan failed where the scan did not: %s\n", e.what());
    std::abort();
  }
  std::vector<std::pair<std::string, uint64_t>> want;
  for (const auto& row : all.rows()) {
    if (sqlite ? mergecheck::EqualsIgnoreCase(row.first, name) : row.first == name) {
      want.push_back(row);
    }
  }
  Check(one->rows() == want);
  // Those rows once more, at their positions: a plain dump reads them where the scan found them
  // (unless it created the table twice); a gzip one declines.
  TouchEveryCell at(columns, size);
  const std::vector<uint64_t>& positions = one->positions();
  bool read = false;
  try {
    read = source->ReadRowsAt(at, name, positions);
  } catch (const Error& e) {
    std::fprintf(stderr, "fuzz_dump: reading rows by position failed: %s\n", e.what());
    std::abort();
  }
  Check(!gzip || !read);
  if (read) Check(at.rows() == one->rows());
}

}  // namespace
}  // namespace steadyflake::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned mode = data[0] & 63u;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  // A SQLite database goes to the SQLite reader, which is not this target's.
  static constexpr std::string_view kSqliteMagic("SQLite format 3\0", 16);
  if ((mode & 1) == 0 && text.starts_with(kSqliteMagic)) return 0;
  const steadyflake::fuzz::TempFile file((mode & 1) != 0 ? steadyflake::fuzz::Gzip(text) : text);
  try {
    steadyflake::fuzz::Run(file.path(), text, mode);
  } catch (const steadyflake::Error& e) {
    const std::string_view message = e.what();
    if (e.code() != steadyflake::Error::Code::kInvalidArgument ||
        !message.starts_with(file.path() + ":") || message.find('\n') != std::string_view::npos) {
      std::fprintf(stderr, "fuzz_dump: not the documented error: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
