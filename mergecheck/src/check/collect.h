// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// Collection, the checker's first stage: reads one input into a key set per table and key
// (key_set.h), then sorts the sets and decodes integer IDs into server ids. CollectBoth reads
// the two inputs on two threads.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_COLLECT_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_COLLECT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "check/collation.h"
#include "check/key_set.h"
#include "check/row_directory.h"
#include "source/schema.h"
#include "source/source.h"
#include "steadyflake/layout.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {

// One key of a table as collected from one input.
struct KeyState {
  Key key;
  std::vector<std::string> names;  // column names as declared
  std::vector<std::string> lower;  // the same, lowercase, for matching across inputs
  std::vector<int> cell;           // per key column: its index into OnRow's cells
  std::vector<Affinity> affinity;  // per key column
  // Per key column: the name of the collation its text values compare under ("" for none) and
  // the Collation; nullptr compares bytes (the name was empty, or unknown: see `unknown`).
  // Input A's schema decides: Collector::Recollate puts A's into B's keys where they differ.
  std::vector<std::string> collation_names;
  std::vector<const Collation*> collation;
  // Per key column: MySQL's prefix length (Key::prefixes), 0 for the whole value.
  std::vector<int> prefix;
  // The collations the input's schema gives the key's columns that may hold text (TEXT or BLOB
  // affinity), distinct, in column order: what the report names. Those compared as bytes because
  // this checker does not know them.
  std::vector<std::string> collations;
  std::vector<std::string> unknown;
  bool decoded = false;  // a single column of INTEGER affinity: IDs
  // A key the source gives in index order (Key::in_index_order) whose index sorts it as KeyOf
  // compares it: one TEXT column, or several each INTEGER or TEXT, the text under BINARY, NOCASE
  // or RTRIM, its index's collation: the first pass leaves `set` empty, and MergeInIndexOrder
  // (ordered_merge.h) compares the two inputs' values as their indexes sort them, filling
  // `merged`; or it hands the key back to the set (Collector::Undefer).
  bool deferred = false;
  struct Merged {
    uint64_t rows = 0;     // rows with a value (not NULL)
    uint64_t repeats = 0;  // of those, rows whose value another row has too
    // This input's values of those in both, in the order of the merge: the other input's
    // Merged::common holds their partners at the same positions.
    std::vector<std::vector<OwnedValue>> common;
  };
  std::optional<Merged> merged;
  KeySet set;
  uint64_t ids = 0;               // decoded: rows whose value is an ID of the layout
  uint64_t legacy = 0;            // decoded: rows whose value cannot be an ID of the layout
  std::vector<uint64_t> servers;  // decoded: distinct server ids, ascending
};

struct TableState {
  Table table;              // the last definition seen
  std::vector<int> wanted;  // columns OnRow receives, ascending
  std::vector<KeyState> keys;
  bool selected = true;  // by --table
  bool stale = false;    // keys changed after rows were read: reread the table
  // Every key deferred, so the first scan skipped the table (SourceVisitor::NeedsNoRows): its
  // rows are counted by the merge in index order (CountRows) or by a reread.
  bool uncounted = false;
  uint64_t rows = 0;
  // No key at all (none declared, no --key): a merge appends its rows. Then every column is
  // wanted, and `whole_rows` holds a 64-bit hash of each row (its values after affinity, in
  // the order of the columns' lowercase names, generated columns left out, so both inputs
  // agree whatever their column
  // order), for the rows present in both (Report::keyless).
  bool keyless = false;
  std::vector<int> by_name;  // keyless: positions in OnRow's cells, by column name
  KeySet whole_rows;
  // Where the rows are, when the input can read them again by position (row_directory.h).
  RowDirectory directory;
};

// The index of `key` among the keys of `table` (it must be one of them).
inline std::size_t KeyIndex(const TableState& table, const KeyState& key) {
  return static_cast<std::size_t>(&key - table.keys.data());
}

// The directory of `table`'s rows when it holds every row the input has, else nullptr.
inline const RowDirectory* FullDirectory(const TableState* table) {
  if (table == nullptr || !table->directory.on()) return nullptr;
  return table->directory.rows() == table->rows ? &table->directory : nullptr;
}

// Which integers are steadyflake IDs of a layout: an ID's time is after the epoch + 2 s and not
// after the cutoff; anything else (auto-increment values, negatives, values above the layout's
// largest ID) is legacy.
struct IdBounds {
  int shift = 0;           // sequence + server bits
  int64_t max_id = 0;      // the layout's largest ID
  int64_t first_tick = 0;  // IDs' ticks are above it
  int64_t last_tick = 0;   // and not above it (-1: none is)
  bool Holds(int64_t id) const {
    return id >= 0 && id <= max_id && (id >> shift) <= last_tick && (id >> shift) > first_tick;
  }
};
IdBounds IdBoundsOf(const Layout& layout, int64_t cutoff_ms);

// The counts of steadyflake IDs and of legacy values of a decoded key, and the distinct server
// ids of its IDs (IdBounds). REQUIRES: ids sorted.
void DecodeIds(std::span<const int64_t> ids, const Layout& layout, int64_t cutoff_ms,
               uint64_t& id_count, uint64_t& legacy, std::vector<uint64_t>& servers);

// True when Options::tables (--table) selects `table`: it names it, or names nothing.
bool Selected(const Options& options, const std::string& table);

// What one row's key is: NULL (not counted), an integer of a single-column key, two integers of
// a two-column key, or a hash (key_set.h 2.).
enum class KeyKind { kNull, kInteger, kPair, kHash };

// Buffers KeyOf reuses from row to row.
struct KeyScratch {
  std::string encoding;
  ValueBuffer buffer;
};

// The part of `v` a MySQL prefix key of `length` holds: its first `length` characters (UTF-8)
// when it is text, its first `length` bytes when it is a blob; all of anything else.
std::string_view KeyPrefix(const Value& v, int length);

// Appends to scratch.encoding the encoding of `v`, the value of key column `i`: text under the
// column's collation (its equality key, not its bytes), anything else as it is.
inline void AppendKeyValue(const KeyState& key, std::size_t i, Value v, KeyScratch& scratch) {
  if (key.prefix[i] > 0) v.bytes = KeyPrefix(v, key.prefix[i]);
  const Collation* collation = key.collation[i];
  if (v.tag == Value::Tag::kText && collation != nullptr && !collation->bytewise()) {
    AppendBytesEncoding(
        Value::Tag::kText, [&](std::string& out) { collation->AppendKey(v.bytes, out); },
        scratch.encoding);
    return;
  }
  AppendEncoding(v, scratch.encoding);
}

// The encoding AppendKeyValue gives the key of one column whose value is the text `text`
// (after any prefix) under `collation` (nullptr: bytes), written to `encoding` (kOneTextRoom
// bytes) on the stack: the tag, the 4-byte length, the collation's key (AppendBytesEncoding),
// by Collation::KeyInto. Returns its length, or 0 for a text longer than the room or one the
// collation cannot key so (then AppendKeyValue does). A key of one text column is the commonest
// hashed key, and growing a string byte by byte was most of its cost per row.
inline constexpr std::size_t kOneTextRoom = 125;
inline std::size_t EncodeOneText(const Collation* collation, std::string_view text,
                                 char* encoding) {
  constexpr std::size_t kHead = 5;  // the tag and the length
  if (text.size() > kOneTextRoom - kHead) return 0;
  std::size_t n = text.size();
  if (collation != nullptr) {
    n = collation->KeyInto(text, encoding + kHead);
    if (n == Collation::kNoKeyInto) return 0;
  } else if (n > 0) {
    std::memcpy(encoding + kHead, text.data(), n);
  }
  encoding[0] = static_cast<char>(Value::Tag::kText);
  for (std::size_t i = 0; i < 4; ++i) encoding[1 + i] = static_cast<char>(n >> (8 * i));
  return kHead + n;
}

// KeyHash of EncodeOneText's encoding; false, `hash` unset, where it gives none.
inline bool HashOneText(const Collation* collation, std::string_view text, Hash128& hash) {
  char encoding[kOneTextRoom];
  const std::size_t n = EncodeOneText(collation, text, encoding);
  if (n == 0) return false;
  hash = KeyHash(std::string_view(encoding, n));
  return true;
}

// HashFingerprint of KeyHash(encoding), without the rest of the hash.
inline uint32_t FingerprintOfEncoding(std::string_view encoding) {
  const uint32_t fingerprint = KeyFingerprintBits(encoding);
  return fingerprint | static_cast<uint32_t>(fingerprint == 0);  // as HashFingerprint
}

// HashFingerprint of HashOneText's hash, without the rest of it; false where it gives none.
inline bool FingerprintOneText(const Collation* collation, std::string_view text,
                               uint32_t& fingerprint) {
  char encoding[kOneTextRoom];
  const std::size_t n = EncodeOneText(collation, text, encoding);
  if (n == 0) return false;
  fingerprint = FingerprintOfEncoding(std::string_view(encoding, n));
  return true;
}

// The key `key` of the row `cells`: sets `integer` (kInteger), `pair` (kPair) or `hash`
// (kHash). Called for every key of every row, so it is inline.
inline KeyKind KeyOf(const KeyState& key, std::span<const Cell> cells, KeyScratch& scratch,
                     int64_t& integer, IntegerPair& pair, Hash128& hash) {
  scratch.encoding.clear();
  const std::size_t columns = key.cell.size();  // once: the appends below may alias key.cell
  const bool two = columns == 2;
  bool held = false;  // two columns: the first value, an integer, is held back for a pair
  Value first;
  for (std::size_t i = 0; i < columns; ++i) {
    const Value v = ApplyAffinity(cells[static_cast<std::size_t>(key.cell[i])], key.affinity[i],
                                  scratch.buffer);
    if (v.tag == Value::Tag::kNull) return KeyKind::kNull;  // NULLs never collide
    if (columns == 1 && v.tag == Value::Tag::kInteger) {
      integer = v.integer;
      return KeyKind::kInteger;
    }
    if (columns == 1 && v.tag == Value::Tag::kText && key.prefix[0] == 0 &&
        HashOneText(key.collation[0], v.bytes, hash)) {
      return KeyKind::kHash;
    }
    if (two && v.tag == Value::Tag::kInteger && (i == 0 || held)) {
      if (i == 1) {
        pair = IntegerPair{first.integer, v.integer};
        return KeyKind::kPair;
      }
      first = v;
      held = true;
      continue;
    }
    if (held) AppendKeyValue(key, 0, first, scratch);  // no pair after all: hash it
    held = false;
    AppendKeyValue(key, i, v, scratch);
  }
  hash = KeyHash(scratch.encoding);
  return KeyKind::kHash;
}

// Adds a row's key, of `kind` as KeyOf gave it, to `key`'s set; when `keep` (the input keeps a
// row directory), calls `keep_fingerprint` with its fingerprint (Fingerprint of an integer or
// pair, HashFingerprint of a hash), or with 0 for NULL. A hashed key is then only counted: the
// fingerprint stands for the hash until ResolveFingerprints (resolve.h), so of `hash` only the
// fingerprint's bits are read.
template <typename KeepFingerprint>
inline void AddKey(KeyState& key, KeyKind kind, int64_t integer, const IntegerPair& pair,
                   const Hash128& hash, bool keep, KeepFingerprint&& keep_fingerprint) {
  switch (kind) {
    case KeyKind::kNull:  // or another pass, or the merge, gives this key
      if (keep) keep_fingerprint(uint32_t{0});
      break;
    case KeyKind::kInteger:
      key.set.AddInteger(integer);
      if (keep) keep_fingerprint(Fingerprint(Hash128{0, static_cast<uint64_t>(integer)}));
      break;
    case KeyKind::kPair:
      key.set.AddPair(pair);
      if (keep) {
        keep_fingerprint(Fingerprint(
            Hash128{static_cast<uint64_t>(pair.first), static_cast<uint64_t>(pair.second)}));
      }
      break;
    case KeyKind::kHash:
      if (key.decoded) ++key.legacy;  // text, a real or a big integer: no ID
      if (keep) {
        key.set.CountHash();
        keep_fingerprint(HashFingerprint(hash));
      } else {
        key.set.AddHash(hash);
      }
      break;
  }
}

// The hash KeyOf gives a row whose key values (after affinity) are `values`, none NULL.
Hash128 HashOfValues(const KeyState& key, const std::vector<OwnedValue>& values);

// True when a text column of `key` compares under a collation that is not plain bytes: two
// different values may be one key.
bool Collated(const KeyState& key);

// Whether rows of `key` can be found by looking up its text, real and integer values
// (Source::LookUpValues) exactly as KeyOf compares them, and under which collations: "" for a
// column that holds no text, the collation SQLite names for one that does. False for a column
// whose affinity makes KeyOf equate values SQLite's `=` does not (BLOB: text and blob bytes;
// NUMERIC), a MySQL prefix, or a collation SQLite does not know (a MySQL one).
bool LookUpCollations(const KeyState& key, std::vector<std::string>& collations);

// The columns of `now` (a table's definition as the source gives it during a reread) that hold
// what `final_state`'s wanted columns hold, matched by name.
std::vector<int> MapWanted(const TableState& final_state, const Table& now);

// Reads one input into key sets. Not thread-safe: one thread runs it and owns it until joined.
class Collector : public SourceVisitor {
 public:
  // Thrown by Run when another thread set its `cancelled` flag.
  struct Cancelled : std::exception {
    const char* what() const noexcept override { return "merge check cancelled"; }
  };

  // `input`: 0 for A, 1 for B (passed to Options::progress). `options` and `source` must
  // outlive the Collector.
  Collector(const Options& options, int input, Source& source)
      : options_(options), input_(input), source_(source) {}

  // Reads the input, rereads stale tables, then sorts the sets and decodes IDs (IDs whose time
  // is after `cutoff_ms` are legacy). Throws Cancelled once `cancelled` is set (it is checked
  // every 65,536 rows), and what the source or an --key naming a missing column throws.
  void Run(const Layout& layout, int64_t cutoff_ms, const std::atomic<bool>& cancelled);

  std::vector<int> OnTable(const Table& table) override;
  std::vector<std::vector<int>> Groups(const Table& table) override;
  void OnPass(const Table& table, std::span<const int> present, bool first) override;
  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t position) override;
  // What OnRow gives each row, computed key by key over the rows (collect_rows.cpp); row by
  // row, as OnRow, where that differs.
  void OnRows(const Table& table, std::span<const Cell> cells, std::size_t width,
              std::span<const uint64_t> positions) override;
  // The run at once where every key the pass computes is one INTEGER column (the rowid): its
  // values appended in bulk; else row by row, as OnRow.
  void OnRowids(const Table& table, std::span<const int> present, std::size_t width,
                std::span<const int64_t> rowids) override;
  // The same for a run of integers of a pass that reads one field of an index.
  void OnIntegers(const Table& table, std::span<const int> present, std::size_t width,
                  std::span<const int64_t> values, uint64_t first) override;
  // True (and the table is then `uncounted`) when every key of `table` is deferred.
  bool NeedsNoRows(const Table& table) override;

  // One key whose text must compare under other collations than this input's schema gives:
  // the target's (input A's), per key column by name.
  struct Recollation {
    std::string table;
    std::vector<std::string> lower;            // the key's columns, lowercase
    std::vector<std::string> collation_names;  // per key column
  };
  // Makes each key of `changes` compare under its collations and reads those tables again
  // (once), then sorts and decodes them as Run does. Throws as Run does.
  void Recollate(const std::vector<Recollation>& changes, const Layout& layout, int64_t cutoff_ms);

  // Makes the deferred keys of `keys` (table name, lowercase columns) ordinary ones and reads
  // their tables again (once), then sorts and decodes them as Run does. Throws as Run does.
  void Undefer(const std::vector<std::pair<std::string, std::vector<std::string>>>& keys,
               const Layout& layout, int64_t cutoff_ms);
  // The rows of an `uncounted` table, `rows` as the merge in index order found them in its
  // index; a no-op for any other table.
  void CountRows(const std::string& table, uint64_t rows);
  // The key of table `table` over `lower`, for MergeInIndexOrder to fill; nullptr when none.
  KeyState* FindKey(const std::string& table, const std::vector<std::string>& lower);

  // The tables in the order the source defined them.
  const std::vector<TableState>& tables() const { return tables_; }
  // The table named `name`, or nullptr.
  const TableState* Find(const std::string& name) const {
    const auto it = index_.find(name);
    return it == index_.end() ? nullptr : &tables_[it->second];
  }
  // The same, to change (resolve.h: the hashes a first pass kept as fingerprints).
  TableState* Find(const std::string& name) {
    const auto it = index_.find(name);
    return it == index_.end() ? nullptr : &tables_[it->second];
  }
  // Rows read by the first pass (of every table, selected or not).
  uint64_t rows() const { return rows_; }

 private:
  void Tick();
  // OnRowids' and OnIntegers' bulk append of `values`, the keys' values at `present`; false,
  // having added nothing, when some key the pass computes is not one INTEGER column.
  bool AddIntegerRun(const Table& table, std::span<const int> present,
                     std::span<const int64_t> values);
  // Whether OnRows may compute the keys of these rows of `t` key by key: every key is computed
  // by this pass, and every value of a key kept in row order (RowDirectory::Implicit) is an
  // integer, as OnRow takes it without materializing the directory.
  bool KeysAtOnce(const TableState& t, std::span<const Cell> cells, std::size_t width) const;
  // OnRows' work for key `i` of `t` over the rows from directory row `first` (when it keeps
  // rows), after they are counted.
  void KeyOverRows(TableState& t, std::size_t i, std::span<const Cell> cells, std::size_t width,
                   std::size_t rows, std::size_t first);
  // KeyOverRows for a key of one TEXT column (with no prefix).
  void TextKeyOverRows(TableState& t, std::size_t i, std::span<const Cell> cells, std::size_t width,
                       std::size_t rows, std::size_t first);
  // The state of `table`, the table of the row being given (OnRow, OnRowids).
  TableState& TableOf(const Table& table);
  void BuildKeys(TableState& t);
  // Empties t's directory, keeping rows from now on when the source can read them by position.
  void ResetDirectory(TableState& t);
  // Rereads the tables marked stale (their sets cleared first), then sorts, decodes and
  // dedupes their keys (every table's, the first time).
  void Finish(const Layout& layout, int64_t cutoff_ms);

  const Options& options_;
  const int input_;
  Source& source_;
  const std::atomic<bool>* cancelled_ = nullptr;  // during Run
  std::vector<TableState> tables_;                // in the order the source defined them
  std::unordered_map<std::string, std::size_t> index_;
  TableState* last_ = nullptr;         // the table of the previous row
  const Table* last_given_ = nullptr;  // the Table the source gave that row with
  std::vector<int> wanted_;            // what OnTable returned last
  // Of the current pass (source.h): whether its rows are counted, and which keys it computes.
  bool counting_ = true;
  PassKeys pass_keys_;
  bool rereading_ = false;
  bool sorted_ = false;  // Finish ran: the sets of tables not stale are final
  uint64_t rows_ = 0;
  uint64_t since_progress_ = 0;
  KeyScratch scratch_;
  std::vector<int64_t> run_;  // OnRows: an Implicit key's integers
};

// Runs a.Run on the calling thread and b.Run on a thread of its own. When one input fails, the
// other stops early; then throws that input's error (input A's first when both fail).
//
// Threads: each thread owns its Collector (and the key sets in it) until it is joined; the only
// state the threads share is a cancellation flag (set by the thread whose input failed) and the
// Options (read-only, except the progress callback, which must be thread-safe).
void CollectBoth(Collector& a, Collector& b, const Layout& layout, int64_t cutoff_ms);

// The report's summary of one input: its path and format, the tables, rows and bytes read, and
// the key values held.
InputReport DescribeInput(const std::string& path, const Source& source,
                          const Collector& collector);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_COLLECT_H_
