// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge checker: before two game shards are merged, answers whether any row would
// collide, now or later. Reads two inputs (SQLite database files, or SQL dumps from
// `sqlite3 .dump`, mysqldump or mariadb-dump, any of them gzip-compressed; detected by content)
// read-only, and compares every PRIMARY KEY and UNIQUE key of every table present in both.
//
// Pipeline, one room of src/ per stage (docs/architecture.md): the source contract and schema
// (src/source/) -> the readers (src/sqlite/, src/dump/) -> the check: key sets, collations,
// comparison, verdict (src/check/) -> the merge plan (src/plan/) -> reports (src/report/).
//
// Thread-safety: Check() is reentrant; it reads the two inputs on two threads of its own.
// Memory grows with the number of key values (at most 24 bytes each), not with row width.

#ifndef STEADYFLAKE_MERGECHECK_MERGECHECK_H_
#define STEADYFLAKE_MERGECHECK_MERGECHECK_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "steadyflake/layout.h"

namespace steadyflake::mergecheck {

struct Options {
  // Decodes integer single-column keys into server ids. Default: game.
  Layout layout = Layout::Game();
  // The time of the check, Unix ms: IDs whose time is more than one day after it count as
  // legacy/foreign (not from the layout; the day allows for clock skew between machines).
  // Default (nullopt): the wall clock when Check() starts. Tests pass a fixed time.
  std::optional<int64_t> now_ms{};
  // Extra keys to check, beside the declared ones: table and columns (--key TABLE:COL[,COL]).
  struct ExtraKey {
    std::string table{};
    std::vector<std::string> columns{};
    // Per column, the collation to compare it under instead of the column's, when a game
    // compares names by a rule of its own (the merge profile's `compare_as`: 'Alice' and
    // 'alice' are one name to the game though the column is utf8mb4_bin); empty: the column's.
    // Over a key the table has already, it replaces that key's collations. Must be a collation
    // this checker knows (Check throws Error otherwise).
    std::vector<std::string> collations{};
  };
  std::vector<ExtraKey> extra_keys{};
  // Which integer single-column keys give server ids (docs/merging.md "Which columns hold
  // IDs"): by default each PRIMARY KEY whose values are mostly steadyflake IDs of the layout.
  // id_columns (--id-column TABLE:COL) adds one, also one judged legacy; not_id_columns
  // (--not-id-column TABLE:COL) removes one. Each must name an integer single-column key of a
  // table in A or B (Check throws Error otherwise), and no column may be in both.
  struct Column {
    std::string table{};
    std::string column{};
  };
  std::vector<Column> id_columns{};
  std::vector<Column> not_id_columns{};
  // Columns that refer to a key (--refs FILE, lines `item.owner_id -> player.id`), beside the
  // declared FOREIGN KEYs, the names and the inference that find the others (KeyReport::
  // references). Each must name an integer column of a table in B and a single-column key.
  struct Reference {
    std::string table{};
    std::string column{};
    std::string ref_table{};
    std::string ref_column{};
    // Who said so, reported as ReferenceReport::found: "--refs", or "profile" (the merge
    // profile's [references]). Either is a confirmed reference.
    std::string source = "--refs";
    // A conditional reference (the profile's `where = "messageType = 0"`, for a polymorphic
    // column): only the rows whose integer column `where_column` holds `where_value` refer to
    // the key. Empty: every row.
    std::string where_column = {};
    int64_t where_value = 0;
  };
  std::vector<Reference> references = {};
  // Only these tables (--table); empty: all.
  std::vector<std::string> tables{};
  // Conflicting keys listed per key in the report (KeyReport::conflicts); 0: all. Default 1000.
  // More costs memory and, for hashed keys, time in the second read of input A.
  uint64_t limit = 1000;
  // How far one input's reading has come, for progress on a terminal.
  struct Progress {
    int input = 0;           // 0: A, 1: B
    uint64_t bytes = 0;      // read so far: a dump's text (inflated), a SQLite file's pages
    uint64_t rows = 0;       // rows read so far
    uint64_t file_read = 0;  // how far into the input file (a gzip dump: compressed bytes)
    uint64_t file_size = 0;  // the input file's size; 0 if unknown
  };
  // Called every 65,536 rows from the reading threads; may be empty. The two threads call it
  // concurrently, so it must be thread-safe. file_read / file_size is the share of the file
  // read; a check reads each input about once, plus a short second pass over overlapping keys
  // (file_read may then pass file_size: a caller showing a share clamps it).
  std::function<void(const Progress&)> progress{};
};

// The progress line `steadyflake merge-check` draws on a terminal, from the latest Progress of
// each input and the seconds since the check started: each input's share of its file read and
// its rows, then an estimate of the time left from the share of both files read so far:
// "A 45% 1,234,567 rows | B 40% 1,100,000 rows | 12 s left". A share shows at most 99% (a
// second pass may follow); an input of unknown size shows the MB read instead, and the
// estimate waits for a second of reading and 1% of the bytes.
std::string FormatProgress(const Options::Progress (&inputs)[2], double elapsed_seconds);

// One value of a key column in a report, as JSON shows it: integers as decimal strings, text as
// strings, blobs as "x'hex'", NULL as null.
struct ReportValue {
  enum class Type { kNull, kInteger, kReal, kText, kBlob };
  Type type = Type::kNull;
  std::string text{};  // decimal for kInteger (may exceed int64 for BIGINT UNSIGNED), the bytes
                       // for kText and kBlob, the literal for kReal
};

// A column of input B that refers to a single-column integer key: what a remap of the key's
// overlapping values must rewrite too (merge-plan), and the blast radius merge-check shows.
struct ReferenceReport {
  std::string table{};
  std::string column{};
  // How it was found: "foreign key" (declared), "--refs" or "profile" (Options::references),
  // "name" (`<table>_id`, `<table>id`,
  // `<table>_guid`, `<table>guid`, case and underscores aside), or "inferred" (an integer column,
  // not a single-column key itself, whose non-NULL values all lie among the key's values in B, with
  // at least 100 distinct values or 90% of the key's).
  std::string found{};
  uint64_t rows = 0;        // rows of B whose value is one of the key's overlapping values
  uint64_t distinct = 0;    // inferred: the column's distinct values (all among the key's)
  uint64_t key_values = 0;  // inferred: the key's distinct values in B
  // Inferred for more than one key ("guild.id"): the others it fits too. Ambiguous: a plan
  // rewrites it for none of them until --refs says which.
  std::vector<std::string> also = {};
  // A conditional reference (Options::Reference::where_column): only rows whose where_column
  // holds where_value refer to the key, and only they are counted and rewritten.
  std::string where_column = {};
  int64_t where_value = 0;
};

struct KeyReport {
  std::string table{};
  std::vector<std::string> columns{};
  enum class Kind { kPrimary, kUnique } kind = Kind::kPrimary;
  uint64_t rows_a = 0;  // key values in input A (rows whose key has no NULL)
  uint64_t rows_b = 0;
  uint64_t overlap = 0;                               // values present in both
  std::vector<std::vector<ReportValue>> conflicts{};  // up to Options::limit, ascending
  // Of the `overlap` values, those whose rows are the same in A and B in every column (a seeded
  // reference row: a merge may skip it) and those whose rows differ (a real conflict); and per
  // listed conflict, whether its rows are identical (the same length as `conflicts`).
  uint64_t identical = 0;
  uint64_t differing = 0;
  std::vector<bool> conflicts_identical = {};
  // Under a collation, input B's value of each conflict where its bytes differ from A's ('alice'
  // for A's 'Alice'), else an empty row; the same length as `conflicts`, or empty when every
  // B value is A's.
  std::vector<std::vector<ReportValue>> conflicts_b = {};
  // True for a single-column key of INTEGER affinity: its values were decoded with the layout.
  // ids_*: rows whose value is a steadyflake ID of the layout (its time after the epoch + 2 s,
  // which no 32-bit auto-increment value reaches, and not after now_ms + 1 day); legacy_*: the
  // other rows (auto-increment values, negative, above the layout's largest ID, in the future,
  // or no integer: text, a real, above 2^63-1).
  bool decoded = false;
  uint64_t ids_a = 0;
  uint64_t ids_b = 0;
  uint64_t legacy_a = 0;
  uint64_t legacy_b = 0;
  // For a decoded key: whether its IDs gave server ids (Report::servers_*), and why.
  // kAnalysed: "primary key" or "--id-column"; kLegacy: a primary key whose values are mostly
  // not IDs ("4,200 of 4,200 values are not IDs of layout game"); kSkipped: "not a primary key"
  // or "--not-id-column".
  enum class IdUse { kNotDecoded, kAnalysed, kLegacy, kSkipped };
  IdUse id_use = IdUse::kNotDecoded;
  std::string id_reason = {};
  // The collations the key's text compares under, as input A's schema names them (the merge
  // target's decide), distinct, in column order; empty for a key of numbers only.
  std::vector<std::string> collations = {};
  // Input B's, when they differ from A's (a schema drift; B's values were compared under A's
  // collations, as the merge into A will).
  std::vector<std::string> collations_b = {};
  // Collations of A's this checker does not know: the key was compared as bytes, and the
  // verdict is at least RISK.
  std::vector<std::string> unknown_collations = {};
  // True when a collation of the key was only approximated (ICU for MySQL 8's 0900 and
  // MariaDB's uca1400 collations): flagged, not a RISK.
  bool approximate = false;
  // A single-column integer key with overlapping values: the columns of B that refer to it, by
  // table and column (the blast radius of remapping its overlapping values in B).
  std::vector<ReferenceReport> references = {};
};

struct InputReport {
  std::string path{};
  std::string format{};  // "sqlite", "sqlite-dump", "mysql-dump" (+ "+gzip")
  uint64_t tables = 0;
  uint64_t rows = 0;   // rows read (of the tables --table selects)
  uint64_t bytes = 0;  // bytes read (SQLite: pages; dumps: SQL text, after decompression)
  // Key values held in memory for this input, and the bytes that held them (the memory target
  // is at most 24 bytes per key, whatever the row width).
  uint64_t keys_held = 0;
  uint64_t key_bytes = 0;
  // How the rows were read, so a report says which path stood behind it: "SQL text" (dumps);
  // for SQLite files "b-tree pages" (the direct reader, for tables whose key is the rowid),
  // "SQLite" (queries through the library), "b-tree pages (N tables) and SQLite (M tables)",
  // or "SQLite: <why not the pages>" when the file alone does not hold the data (a WAL
  // database whose -wal log holds committed rows).
  std::string reader = {};
};

// Something present in one input only.
struct Drift {
  std::string table{};
  std::vector<std::string> columns{};  // empty: the whole table
  std::string only_in{};               // "a" or "b"
};

// A table with no PRIMARY KEY and no UNIQUE key (declared or --key) in either input: a merge
// appends its rows, so a row present in both inputs ends up twice. A warning; the verdict does
// not change.
struct KeylessTable {
  std::string table{};
  uint64_t rows_a = 0;
  uint64_t rows_b = 0;
  uint64_t in_both = 0;  // distinct whole rows (every column equal) present in both inputs
};

struct Report {
  enum class Verdict { kSafe, kConflict, kRisk };
  Verdict verdict = Verdict::kSafe;
  // Why the verdict is RISK, one sentence each ("server id 7 issues IDs in both shards",
  // "player (name) was compared as bytes: collation utf8mb4_0900_ai_ci unknown"); set by the
  // checker with the verdict, empty unless it is RISK.
  std::vector<std::string> risks{};
  InputReport inputs[2];
  std::vector<KeyReport> keys{};
  // Server ids found in the keys analysed for them (KeyReport::id_use, legacy values excluded)
  // of each input, and in both; ascending.
  std::vector<uint64_t> servers_a{}, servers_b{}, servers_shared{};
  std::vector<Drift> drift{};
  std::vector<KeylessTable> keyless = {};  // by table name
};

// Checks inputs `path_a` and `path_b`, which are only read, never modified. Throws
// steadyflake::Error (kInvalidArgument) naming the file and, where known, the line or page,
// when an input cannot be read or checked: missing, unreadable, neither SQLite nor a
// recognised dump, truncated, corrupt; or when Options::tables or extra_keys name a table or
// column neither input has.
Report Check(const std::string& path_a, const std::string& path_b, const Options& options);

// The report for people: per table and key, rows on each side, overlap count, the first 10
// conflicting keys (IDs decoded with `layout`); the server ids; drift; and the verdict as the
// last line ("verdict: safe to merge", "verdict: CONFLICT — 12 values in 3 keys (from 2 tables)
// overlap",
// "verdict: RISK — server id 101 issues IDs in both shards").
std::string FormatText(const Report& report, const Layout& layout);
// The report as one JSON document (documented in docs/merging.md).
std::string FormatJson(const Report& report);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_MERGECHECK_H_
