// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Each row is read from a window of the file that starts at its '(': 1 KiB, doubled until the
// row fits, so a row of any size is read whole and a small one costs one pread(2) of little
// more than itself (16 KiB windows made the 2,000 rows a 2M-row check reads by position take
// 20 ms, 1 KiB ones 9.5). The next row's window starts at the size that would have held the
// last one: rows of a table are often of a size.

#include "dump/rows_at.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

#include "dump/dump_error.h"
#include "dump/dump_tables.h"
#include "dump/row_reader.h"
#include "steadyflake/error.h"

namespace steadyflake::mergecheck::dump {

namespace {

constexpr size_t kFirstWindow = 1 << 10;

// Reads `n` bytes at `offset` of `fd` into `into`, or throws.
void ReadAt(const std::string& path, int fd, uint64_t offset, size_t n, std::string& into) {
  into.resize(n);
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, into.data() + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      throw Error(Error::Code::kInvalidArgument,
                  path + ": cannot read it again (" +
                      (r < 0 ? std::string(std::strerror(errno)) : "it is shorter now") + "); " +
                      std::string(kFixChanged));
    }
    got += static_cast<size_t>(r);
  }
}

// Reads the row at `position` (its '(') with `reader`, which has its INSERT's header, from
// `cache` when it holds the row, else from the file, and then adds it to `cache`.
// `first`: the window to try first; set to the least that would have held this row.
void ReadOneRow(const std::string& path, int fd, uint64_t size, uint64_t position,
                RowReader& reader, std::string& window, size_t& first, RowCache& cache) {
  if (const std::string_view kept = cache.Find(position); !kept.empty()) {
    Shortfall need{kept.data(), "a row of an INSERT"};
    // It was read whole before, with its ')': read again, it ends there.
    if (reader.ReadRow(kept.data(), kept.data() + kept.size(), false, position, need)) return;
  }
  for (size_t want = first;; want *= 2) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(want, size - position));
    const bool at_eof = position + n == size;
    ReadAt(path, fd, position, n, window);
    if (window.empty() || window[0] != '(') {
      FailAt(path, LineOfOffset(path, false, position),
             "no row is where the first read found one (the file changed)", kFixChanged);
    }
    const char* begin = window.data();
    const char* end = begin + window.size();
    Shortfall need{begin, "a row of an INSERT"};
    try {
      if (const char* after = reader.ReadRow(begin, end, at_eof, position, need)) {
        first = std::max(kFirstWindow, std::bit_ceil(static_cast<size_t>(after - begin)));
        cache.Add(position, std::string_view(begin, static_cast<size_t>(after - begin)));
        return;
      }
    } catch (const RowError& e) {
      const bool short_context =
          e.context != nullptr && !at_eof &&
          static_cast<size_t>(end - e.context) < kPrintableBytes &&
          std::memchr(e.context, '\n', static_cast<size_t>(end - e.context)) == nullptr;
      if (!short_context) {
        FailAt(path, LineOfOffset(path, false, position + static_cast<uint64_t>(e.at - begin)),
               e.problem, kFixUnreadable);
      }
      continue;  // a wider window, for the message's quote
    }
    if (at_eof) {
      FailAt(path, LineOfOffset(path, false, position),
             "the dump ends inside a row of an INSERT (it is cut short)", kFixChanged);
    }
  }
}

}  // namespace

void ReadDumpRowsAt(const std::string& path, int fd, uint64_t size, Dialect dialect,
                    const InsertIndex& index, const std::string& table,
                    std::span<const uint64_t> positions, SourceVisitor& visitor, RowCache& cache) {
  const InsertIndex::TableRows& rows = index.tables.at(table);
  const std::vector<std::string> every;  // DumpTables keeps it by reference
  DumpTables tables(dialect, visitor, every);
  tables.Adopt(rows.table, rows.rowid_alias);
  RowReader reader(dialect, visitor);
  std::string window;
  size_t first = kFirstWindow;
  uint32_t header = UINT32_MAX;
  for (const uint64_t position : positions) {
    // The statement the row is in: the last one that starts before it.
    const auto after =
        std::upper_bound(rows.statements.begin(), rows.statements.end(), position,
                         [](uint64_t p, const InsertIndex::Statement& s) { return p < s.offset; });
    if (after == rows.statements.begin() || position >= size) {
      FailAt(path, LineOfOffset(path, false, std::min(position, size)),
             "no row of table '" + table + "' is where the first read found one", kFixChanged);
    }
    const InsertIndex::Statement& statement = *(after - 1);
    if (statement.header != header) {
      try {
        reader.StartRows(index.headers.at(statement.header), tables);
      } catch (const SyntaxError& e) {
        FailAt(path, LineOfOffset(path, false, statement.offset + e.offset), e.problem,
               kFixUnreadable);
      }
      header = statement.header;
    }
    ReadOneRow(path, fd, size, position, reader, window, first, cache);
  }
}

}  // namespace steadyflake::mergecheck::dump
