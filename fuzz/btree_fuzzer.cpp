// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: the merge checker's readers that bypass SQLite (mergecheck/src/page_file,
// btree_check, rowid_reader, index_reader, table_reader) on mutated database files. The bytes
// become a file (in memory, memfd_create), whose first pages are each walked as a table and as
// an index b-tree by CheckBtrees, as a table by RowidReader and by TableReader and as an index
// by IndexReader (both decoding the first three fields of each record; IndexReader also with a
// BtreeChecker shown each page it reads, as the merge's walk in index order does) and by an
// IndexCursor (the merge in parts: the whole tree, then searches). Any bytes give
// either a result or DamagedPage: never a crash, a read outside a page or a record, a hang or
// another exception.

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "sqlite/btree_check.h"
#include "sqlite/index_cursor.h"
#include "sqlite/index_reader.h"
#include "sqlite/page_file.h"
#include "sqlite/rowid_reader.h"
#include "sqlite/table_reader.h"

namespace {

using steadyflake::mergecheck::Btree;
using steadyflake::mergecheck::BtreeChecker;
using steadyflake::mergecheck::Cell;
using steadyflake::mergecheck::CheckBtrees;
using steadyflake::mergecheck::DamagedPage;
using steadyflake::mergecheck::IndexCursor;
using steadyflake::mergecheck::IndexReader;
using steadyflake::mergecheck::KeyRef;
using steadyflake::mergecheck::PageFile;
using steadyflake::mergecheck::RowidReader;
using steadyflake::mergecheck::TableReader;

// Touches every byte of the cells' text and blobs (a field past its record is a read ASan
// sees), and aborts unless there are three.
uint64_t Touch(std::span<const Cell> cells) {
  if (cells.size() != 3) std::abort();
  uint64_t bytes = 0;
  for (const Cell& cell : cells) {
    for (const char c : cell.bytes) bytes += static_cast<unsigned char>(c);
  }
  return bytes;
}

// IndexReader::Walk's visitor: every record's cells touched, and with `tuples` the records of
// small integers taken straight into a tuple (IntegerTuple), as the key scan takes them.
struct TupleVisitor {
  bool tuples = false;
  uint64_t bytes = 0;
  int64_t tuple[3] = {0, 0, 0};
  int64_t* IntegerTuple() { return tuples ? tuple : nullptr; }
  void TakeIntegerTuple() { bytes += static_cast<uint64_t>(tuple[0] ^ tuple[1] ^ tuple[2]); }
  void operator()(std::span<const Cell> cells) { bytes += Touch(cells); }
};

// Reads the tree rooted at `root` as an index with an IndexCursor (the merge in parts): the whole
// of it, each key's bytes touched, then searched for a few of the keys it gave. Throws
// DamagedPage.
void WalkWithCursor(const PageFile& file, uint32_t root) {
  IndexCursor cursor(file, root, [](const DamagedPage& damage) { throw damage; });
  cursor.Seek({});
  std::vector<std::string> keys;
  uint64_t records = 0;
  for (auto run = cursor.Next(); !run.empty(); run = cursor.Next()) {
    for (const KeyRef& key : run) {
      if (++records > 64 * uint64_t{file.pages()} * file.page_size()) std::abort();  // a hang
      if (keys.size() < 4) keys.emplace_back(key.bytes());  // touches every byte too
    }
  }
  for (const std::string& bound : keys) {
    cursor.Seek([&bound](const KeyRef& key) { return key.bytes() < bound; });
    for (const KeyRef& key : cursor.Next()) {
      if (key.size > file.page_size() * uint64_t{file.pages()}) std::abort();
    }
  }
}

// The in-memory file, reused by every run of this process.
int File() {
  static const int fd = ::memfd_create("btree-fuzz", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = File();
  if (::ftruncate(fd, 0) != 0) std::abort();
  if (size > 0 && ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  try {
    const PageFile file(fd);
    const std::atomic<bool> stop{false};
    const uint32_t roots = std::min<uint32_t>(file.pages(), 8);
    for (uint32_t root = 1; root <= roots; ++root) {
      for (const bool index : {false, true}) {
        const std::vector<Btree> trees{{root, index, "fuzz"}};
        const auto damage = CheckBtrees(file, trees, stop);
        if (damage.has_value() && damage->problem.empty()) std::abort();  // damage says what
      }
      try {
        RowidReader rowids(file);
        uint64_t count = 0;
        const uint64_t pages =
            rowids.Walk(root, [&count](std::span<const int64_t> run) { count += run.size(); });
        if (pages == 0 || pages > file.pages()) std::abort();  // visits each page at most once
      } catch (const DamagedPage&) {
      }
      for (const bool checked : {false, true}) {
        for (const bool tuples : {false, true}) {
          try {
            IndexReader records(file);
            BtreeChecker check(file);  // shown every page as the walk reads it, when `checked`
            const int fields[] = {0, 1, 2};
            // Records of small integers straight into a tuple, where `tuples`: the walk then
            // checks those cells itself.
            TupleVisitor visitor{tuples};
            const uint64_t pages = records.Walk(root, fields, visitor, checked ? &check : nullptr);
            if (pages == 0 || pages > file.pages()) std::abort();
          } catch (const DamagedPage&) {
          }
        }
      }
      try {
        WalkWithCursor(file, root);
      } catch (const DamagedPage&) {
      }
      try {
        TableReader rows(file);
        const int fields[] = {0, 1, 2};
        uint64_t bytes = 0;
        const uint64_t pages =
            rows.Walk(root, fields,
                      [&bytes](int64_t, std::span<const Cell> cells) { bytes += Touch(cells); });
        if (pages == 0 || pages > file.pages()) std::abort();
      } catch (const DamagedPage&) {
      }
    }
  } catch (const DamagedPage&) {
  }
  return 0;
}
