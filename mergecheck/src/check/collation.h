// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// How a database compares the text of a key column: its collation. Two values collide in a
// merge when the collation of the target's column calls them equal ('Alice' and 'alice' under
// SQLite's NOCASE or MySQL's utf8mb4_general_ci), not only when their bytes are. A Collation
// gives each text an equality key: two texts are equal under the collation exactly when their
// keys are equal, so the checker hashes keys where it hashed bytes (key_set.h).
//
// Known here, exactly:
//   SQLite  BINARY (bytes), NOCASE (ASCII letters folded; 'É' and 'é' differ), RTRIM (trailing
//           spaces ignored);
//   MySQL   binary (bytes, no padding); <charset>_bin for utf8mb4, utf8mb3, utf8, latin1 and
//           ascii (PAD SPACE: trailing spaces ignored, otherwise bytes; utf8mb4_bin orders by
//           code point, which for equality is the bytes); utf8mb4_nopad_bin, utf8mb4_0900_bin
//           (NO PAD: bytes); utf8mb4_general_ci and utf8mb3_general_ci (utf8_general_ci): each
//           character weighs what MariaDB's WEIGHT_STRING() says (the table in
//           data/collations/, generated from MariaDB 10.11), every character above U+FFFF
//           weighs 0xFFFD (so all emoji are equal), PAD SPACE; utf8mb4_unicode_ci and
//           utf8mb3_unicode_ci (utf8_unicode_ci): UCA 4.0.0 as MariaDB implements it, each
//           character none, one or several weights from the table in data/collations/ (or UCA's
//           implicit weights, computed), 0xFFFD above U+FFFF, PAD SPACE (trailing characters
//           that weigh what a space weighs, NO-BREAK SPACE among them, ignored). Bytes that are
//           not UTF-8 (a column MySQL would have refused them for) compare as themselves.
// Approximately, through ICU's root collator (UCA 14, CLDR's root order) at the strength the name
// says (ai_ci primary, as_ci secondary, as_cs tertiary): MySQL 8's utf8mb4_0900_ai_ci, _as_ci,
// _as_cs (NO PAD; MySQL implements UCA 9.0.0) and MariaDB's utf8mb4_uca1400_ai_ci, _as_ci,
// _as_cs (PAD SPACE) and utf8mb4_uca1400_nopad_* (NO PAD).
// Any other name is unknown: the key is compared as bytes and the report says so
// (docs/merging.md "How values compare").

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_COLLATION_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_COLLATION_H_

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace steadyflake::mergecheck {

class Collation {
 public:
  enum class Rule {
    kBytes,        // equal when the bytes are
    kPadSpace,     // trailing spaces (0x20) ignored, then bytes
    kAsciiNoCase,  // ASCII A-Z folded to a-z, then bytes
    kGeneralCi,    // MariaDB's utf8mb4_general_ci weights, PAD SPACE
    kUnicodeCi,    // MariaDB's utf8mb4_unicode_ci weights (UCA 4.0.0), PAD SPACE
    kIcu,          // ICU's root collator at `strength`; PAD SPACE when `pad`
  };

  // The collation `name` names (case-insensitive, as both databases read names), or nullptr
  // when it is not one of those above.
  static const Collation* Find(std::string_view name);
  // Every collation Find knows, in the order listed above (the sweeps in tests/mergecheck/ hold
  // each exact one to its database).
  static std::span<const Collation> All();

  // The name as this checker spells it ("NOCASE", "utf8mb4_bin").
  const std::string& name() const { return name_; }
  // True when two texts are equal exactly when their bytes are: no key needs computing.
  bool bytewise() const { return rule_ == Rule::kBytes; }
  // True when the keys only approximate the database's comparison (ICU's UCA 14 for MySQL's
  // UCA 9.0.0 or MariaDB's own UCA 14 implementation).
  bool approximate() const { return rule_ == Rule::kIcu; }

  // Appends the equality key of `text` to `out` (see above).
  void AppendKey(std::string_view text, std::string& out) const;

  // Writes the key AppendKey would append to `out` (room for text.size() bytes) and returns its
  // length, for the texts whose key is no longer than they are and needs no decoding: any text
  // under BINARY, the _bin rules and NOCASE, ASCII text without NUL under general_ci. For any
  // other, returns kNoKeyInto (what it wrote is meaningless): call AppendKey. The checker's
  // per-row path (collect.h), which this spares a string's growth.
  static constexpr std::size_t kNoKeyInto = static_cast<std::size_t>(-1);
  std::size_t KeyInto(std::string_view text, char* out) const;

  // `strength` (kIcu): 1 primary (accent- and case-insensitive), 2 secondary (accent-sensitive),
  // 3 tertiary (and case-sensitive).
  Collation(std::string name, Rule rule, int strength = 0, bool pad = false)
      : name_(std::move(name)), rule_(rule), strength_(strength), pad_(pad) {}

 private:
  void AppendIcuKey(std::string_view text, std::string& out) const;

  std::string name_;
  Rule rule_;
  int strength_;
  bool pad_;
};

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_COLLATION_H_
