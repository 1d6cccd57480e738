// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// MySQL's collations swept, not sampled (issue 31, item 3; collation_sweep_test.cpp is SQLite's
// half): every exact collation the checker knows for MySQL and MariaDB (Collation::All() but
// the approximate ICU ones and SQLite's NOCASE and RTRIM) is held to a real MariaDB on some
// 21,500 strings: every ASCII character alone, with one and two trailing spaces, and at seven
// places in longer text (collation.cpp weighs eight ASCII bytes at once); every code
// point whose weight data/collations/*.inc lists (utf8mb4_general_ci: each that does not weigh
// itself; utf8mb4_unicode_ci: each that does not weigh UCA's implicit weights) with its
// neighbours; the edges of the implicit ranges collation.cpp computes; a sample above U+FFFF;
// every pair of lower-case letters and the ASCII spelling of each expansion (ß = "SS"); and
// "a" beside each character that weighs what a space weighs or nothing at all.
//
// MariaDB decides: the strings go into one table per collation (those the column's character set
// holds), and a self-join on `a.s = b.s` gives each string its class (the lowest id equal to
// it). Its WEIGHT_STRING(), trailing space weights dropped under PAD SPACE, must give the same
// classes (a check of the oracle). The checker agrees when two strings have equal keys
// (Collation::AppendKey) exactly when MariaDB calls them equal; each disagreement fails, naming
// the collation and both strings as code points.
//
// The test runs the `mariadb` client itself against the server tests/mergecheck/with_mariadb.sh
// starts (its socket in STEADYFLAKE_TEST_MARIADB); without that variable every test fails.

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "check/collation.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {
namespace {

// ---- The strings ---------------------------------------------------------------------------

std::string Utf8(uint32_t point) {
  std::string out;
  if (point < 0x80) {
    out.push_back(static_cast<char>(point));
  } else if (point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | point >> 6));
    out.push_back(static_cast<char>(0x80 | (point & 0x3F)));
  } else if (point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | point >> 12));
    out.push_back(static_cast<char>(0x80 | (point >> 6 & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | point >> 18));
    out.push_back(static_cast<char>(0x80 | (point >> 12 & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (point >> 6 & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (point & 0x3F)));
  }
  return out;
}

bool IsCharacter(int64_t point) {
  return point >= 0 && point <= 0x10FFFF && !(point >= 0xD800 && point <= 0xDFFF);
}

// `text` (valid UTF-8) as code points, "U+0061 U+0020", or "(empty)".
std::string CodePoints(const std::string& text) {
  if (text.empty()) return "(empty)";
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const int length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    uint32_t point = length == 1 ? lead : lead & (0x7F >> length);
    for (int k = 1; k < length && i + k < text.size(); ++k) {
      point = point << 6 | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    }
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%sU+%04X", out.empty() ? "" : " ", point);
    out += buffer;
    i += static_cast<std::size_t>(length);
  }
  return out;
}

std::string ReadCollationsFile(const std::string& name) {
  std::ifstream in(std::string(STEADYFLAKE_COLLATIONS_DIR) + "/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The code points utf8mb4_general_ci.inc lists: those that do not weigh themselves.
std::vector<uint32_t> GeneralCiListed() {
  std::vector<uint32_t> out;
  std::istringstream lines(ReadCollationsFile("utf8mb4_general_ci.inc"));
  for (std::string line; std::getline(lines, line);) {
    unsigned point = 0, weight = 0;
    if (std::sscanf(line.c_str(), "{0x%x, 0x%x}", &point, &weight) == 2) out.push_back(point);
  }
  return out;
}

// utf8mb4_unicode_ci.inc: each code point that does not weigh UCA's implicit weights, with its
// weights ("CCCC", n, n times "WWWW" in the quoted lines).
std::map<uint32_t, std::vector<uint16_t>> UnicodeCiListed() {
  std::string entries;
  std::istringstream lines(ReadCollationsFile("utf8mb4_unicode_ci.inc"));
  for (std::string line; std::getline(lines, line);) {
    if (line.size() >= 2 && line.front() == '"') entries += line.substr(1, line.size() - 2);
  }
  const auto hex = [&](std::size_t at, std::size_t digits) {
    return static_cast<uint32_t>(std::stoul(entries.substr(at, digits), nullptr, 16));
  };
  std::map<uint32_t, std::vector<uint16_t>> out;
  for (std::size_t at = 0; at + 5 <= entries.size();) {
    std::vector<uint16_t>& weights = out[hex(at, 4)];
    const uint32_t count = hex(at + 4, 1);
    at += 5;
    for (uint32_t i = 0; i < count; ++i, at += 4) weights.push_back(hex(at, 4) & 0xFFFF);
  }
  return out;
}

// The strings of the sweep, each once, in a fixed order.
class StringSet {
 public:
  void Add(const std::string& s) {
    if (seen_.insert(s).second) strings_.push_back(s);
  }
  void AddPoint(int64_t point) {
    if (IsCharacter(point)) Add(Utf8(static_cast<uint32_t>(point)));
  }
  void AddWithNeighbours(int64_t point) {
    for (int64_t p = point - 1; p <= point + 1; ++p) AddPoint(p);
  }
  std::vector<std::string> Take() { return std::move(strings_); }

 private:
  std::set<std::string> seen_;
  std::vector<std::string> strings_;
};

// Strings that reach the edges of what utf8mb4_unicode_ci's table says beyond one character:
// the ASCII spelling of each expansion, when each of its weights is an ASCII character's
// (U+00DF "SS", U+FB03 "FFI"), and "a" beside each character that weighs what a space weighs
// (PAD SPACE drops them at the end) or nothing (ignorable anywhere).
void AddUnicodeCiCombinations(const std::map<uint32_t, std::vector<uint16_t>>& table,
                              StringSet& set) {
  std::map<uint16_t, char> ascii;  // a weight -> the lowest ASCII character weighing it alone
  for (int c = 127; c >= 1; --c) {
    const auto it = table.find(static_cast<uint32_t>(c));
    if (it != table.end() && it->second.size() == 1) ascii[it->second[0]] = static_cast<char>(c);
  }
  const std::vector<uint16_t> space = table.at(' ');
  std::vector<uint32_t> suffixes = {0x09};
  int ignorables = 0;
  for (const auto& [point, weights] : table) {
    if (weights.size() >= 2 && weights.size() <= 4) {
      std::string spelling;
      for (const uint16_t w : weights) {
        if (ascii.count(w) != 0) spelling.push_back(ascii[w]);
      }
      if (spelling.size() == weights.size()) set.Add(spelling);
    }
    if (weights == space || (weights.empty() && ++ignorables <= 8)) suffixes.push_back(point);
  }
  for (const uint32_t s : suffixes) {
    set.Add("a" + Utf8(s));
    set.Add(Utf8(s) + "a");
    set.Add("a" + Utf8(s) + " ");
    set.Add("a" + Utf8(s) + Utf8(s));
  }
}

std::vector<std::string> SweepStrings() {
  StringSet set;
  set.Add("");
  for (int c = 1; c < 128; ++c) {
    for (const char* spaces : {"", " ", "  "})
      set.Add(std::string(1, static_cast<char>(c)) + spaces);
  }
  for (char a = 'a'; a <= 'z'; ++a) {
    for (char b = 'a'; b <= 'z'; ++b) set.Add(std::string{a, b});
  }
  // Each ASCII character, NUL too, in 17 bytes of text: at each end of the two eight-byte words
  // the general_ci key reads at once, and in the byte after them. And in 16 bytes, once all ASCII
  // and once beside U+0137, which weighs what 'k' weighs: the same key, read two ways.
  for (int c = 0; c < 128; ++c) {
    const std::string ch(1, static_cast<char>(c));
    for (const std::size_t at : {0, 7, 8, 15, 16}) {
      std::string text(17, 'k');
      text[at] = ch[0];
      set.Add(text);
    }
    set.Add(std::string(10, 'k') + ch + "kkkkk");
    set.Add(std::string(9, 'k') + Utf8(0x137) + ch + "kkkkk");
  }
  for (const uint32_t point : GeneralCiListed()) set.AddWithNeighbours(point);
  const std::map<uint32_t, std::vector<uint16_t>> unicode = UnicodeCiListed();
  for (const auto& [point, weights] : unicode) set.AddWithNeighbours(point);
  // The ranges collation.cpp computes: UCA's implicit weights (CJK ideographs from 0xFB40, the
  // base stepping at U+8000), the surrogates' edges, the end of the plane, above it 0xFFFD.
  for (const int64_t edge : {0x4E00, 0x9FA5, 0xF900, 0xFAFF, 0x8000, 0xD800, 0xDFFF, 0xFFFD, 0xFFFF,
                             0x10000, 0x1F600, 0x2F800, 0x10FFFF}) {
    set.AddWithNeighbours(edge);
  }
  AddUnicodeCiCombinations(unicode, set);
  set.Add("a" + Utf8(0x1F600));
  set.Add(Utf8(0x1F600) + " ");
  return set.Take();
}

// ---- Asking MariaDB ------------------------------------------------------------------------

// A collation of the sweep and the MariaDB character set of its column ("binary": VARBINARY).
struct Target {
  const Collation* collation;
  std::string charset;
};

// GoogleTest names a failing case's parameter by its collation.
void PrintTo(const Target& target, std::ostream* out) { *out << target.collation->name(); }

// The character set a MySQL collation's name belongs to, or "" when this test does not know it.
std::string CharsetOf(const std::string& name) {
  if (name == "BINARY") return "binary";
  for (const char* prefix : {"utf8mb4", "utf8mb3", "utf8", "latin1", "ascii"}) {
    const std::string p = std::string(prefix) + "_";
    if (name.compare(0, p.size(), p) == 0)
      return prefix == std::string("utf8") ? "utf8mb3" : prefix;
  }
  return "";
}

// Every exact collation of Collation::All() but SQLite's own (collation_sweep_test.cpp).
std::vector<Target> Targets() {
  std::vector<Target> out;
  for (const Collation& c : Collation::All()) {
    if (c.approximate() || c.name() == "NOCASE" || c.name() == "RTRIM") continue;
    out.push_back({&c, CharsetOf(c.name())});
  }
  return out;
}

// MySQL 8's collations MariaDB 10.11 does not have: checked when the server knows them.
bool MysqlOnly(const std::string& name) { return name == "utf8mb4_0900_bin"; }

// A value of `target`'s column type holding the SQL expression `text` (a utf8mb4 string).
std::string Typed(const Target& target, const std::string& text) {
  if (target.charset == "binary") return "CAST(" + text + " AS BINARY)";
  return "CONVERT(" + text + " USING " + target.charset + ") COLLATE " + target.collation->name();
}

// Runs `sql` through the mariadb client on STEADYFLAKE_TEST_MARIADB's socket, its output (tab
// separated, no headers) into `output`; `force`: go on past a failing statement. Returns ""
// or what went wrong.
std::string RunMariadb(const std::string& sql, const std::string& output, bool force) {
  const char* socket = std::getenv("STEADYFLAKE_TEST_MARIADB");
  if (socket == nullptr || *socket == '\0') {
    return "STEADYFLAKE_TEST_MARIADB is not set: run this test through "
           "tests/mergecheck/with_mariadb.sh (ctest -R mergecheck.collation_sweep_mariadb)";
  }
  const std::string input = output + ".sql", errors = output + ".err";
  std::ofstream(input) << sql;
  const std::string command = "mariadb --no-defaults -S '" + std::string(socket) +
                              "' -uroot --batch --skip-column-names "
                              "--default-character-set=utf8mb4" +
                              (force ? " --force" : "") + " < '" + input + "' > '" + output +
                              "' 2> '" + errors + "'";
  if (std::system(command.c_str()) != 0 && !force) {
    std::ifstream in(errors);
    std::ostringstream text;
    text << in.rdbuf();
    return "the mariadb client failed: " + text.str();
  }
  return "";
}

std::vector<std::vector<std::string>> ReadRows(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::istringstream split(line);
    for (std::string field; std::getline(split, field, '\t');) fields.push_back(field);
    if (!line.empty() && line.back() == '\t') fields.emplace_back();
    rows.push_back(std::move(fields));
  }
  return rows;
}

// The SQL that loads the strings into table t<i> of each target and prints, per target, whether
// it pads ("pad", name, 1 or 0), a space's weight ("space", name, hex) and each string it holds
// ("row", name, id, the value held as UTF-8 in hex, the lowest id equal to it, its
// WEIGHT_STRING in hex).
std::string SweepSql(const std::vector<std::string>& strings, const std::vector<Target>& targets) {
  std::string sql =
      "CREATE DATABASE sweep; USE sweep;\n"
      "CREATE TABLE src (id INT PRIMARY KEY, v VARBINARY(64) NOT NULL);\n";
  for (std::size_t i = 0; i < strings.size(); ++i) {
    sql += i % 1000 == 0 ? "INSERT INTO src VALUES " : ", ";
    sql += "(" + std::to_string(i) + ", X'";
    AppendHex(sql, strings[i]);
    sql += "')";
    if (i % 1000 == 999 || i + 1 == strings.size()) sql += ";\n";
  }
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const Target& t = targets[i];
    const std::string table = "t" + std::to_string(i), name = "'" + t.collation->name() + "'";
    const bool binary = t.charset == "binary";
    const std::string held = "CONVERT(CONVERT(v USING utf8mb4) USING " + t.charset + ")";
    sql += "CREATE TABLE " + table + " (id INT PRIMARY KEY, s " +
           (binary ? "VARBINARY(64)"
                   : "VARCHAR(64) CHARACTER SET " + t.charset + " COLLATE " + t.collation->name()) +
           " NOT NULL, KEY (s));\n";
    // Only what the column holds as it was sent (latin1 and ascii hold few of the strings).
    sql += binary
               ? "INSERT INTO " + table + " SELECT id, v FROM src;\n"
               : "INSERT IGNORE INTO " + table + " SELECT id, " + held +
                     " FROM src WHERE CAST(CONVERT(" + held + " USING utf8mb4) AS BINARY) = v;\n";
    sql += "SELECT 'pad', " + name + ", " + Typed(t, "'a'") + " = " + Typed(t, "'a '") + ";\n";
    sql += "SELECT 'space', " + name + ", HEX(WEIGHT_STRING(" + Typed(t, "' '") + "));\n";
    sql += "SELECT 'row', " + name + ", a.id, HEX(" +
           (binary ? std::string("a.s") : "CAST(CONVERT(a.s USING utf8mb4) AS BINARY)") +
           "), MIN(b.id), HEX(WEIGHT_STRING(a.s)) FROM " + table + " a JOIN " + table +
           " b ON a.s = b.s GROUP BY a.id;\n";
  }
  return sql;
}

// What MariaDB said about one collation.
struct Answer {
  bool known = false;                       // the server accepts the collation's name
  bool pad = false;                         // 'a' = 'a '
  std::string space;                        // WEIGHT_STRING(' '), hex
  std::map<int, int> rep;                   // id -> the lowest id equal to it
  std::map<int, std::string> held, weight;  // id -> the value held, WEIGHT_STRING (hex)
};

struct Sweep {
  std::string error;  // why MariaDB could not be asked; "" when it was
  std::string version;
  std::vector<std::string> strings;
  std::map<std::string, Answer> answers;  // by collation name
};

// Which targets MariaDB knows (a statement that names an unknown collation fails; --force goes
// on), and its version.
std::string AskWhichAreKnown(const std::vector<Target>& targets, const std::string& out,
                             Sweep& sweep) {
  std::string sql = "SELECT 'version', VERSION();\n";
  for (const Target& t : targets) {
    sweep.answers[t.collation->name()];
    sql += "SELECT 'known', '" + t.collation->name() + "', " + Typed(t, "''") + " IS NOT NULL;\n";
  }
  if (std::string error = RunMariadb(sql, out, /*force=*/true); !error.empty()) return error;
  for (const std::vector<std::string>& row : ReadRows(out)) {
    if (row.size() == 2 && row[0] == "version") sweep.version = row[1];
    if (row.size() == 3 && row[0] == "known") sweep.answers[row[1]].known = true;
  }
  return sweep.version.empty() ? "MariaDB did not answer SELECT VERSION()" : "";
}

// Asks MariaDB once for the whole test program.
const Sweep& MariadbSweep() {
  static const Sweep* const sweep = [] {
    auto* s = new Sweep;
    s->strings = SweepStrings();
    // Beside the socket: the folder with_mariadb.sh removes at the end.
    const char* socket = std::getenv("STEADYFLAKE_TEST_MARIADB");
    const std::string socket_path = socket != nullptr ? socket : "";
    const std::string out =
        socket_path.substr(0, socket_path.rfind('/') + 1) + "collation_mariadb_sweep";
    std::vector<Target> known;
    s->error = AskWhichAreKnown(Targets(), out + ".known.tsv", *s);
    if (!s->error.empty()) return s;
    for (const Target& t : Targets()) {
      if (s->answers[t.collation->name()].known) known.push_back(t);
    }
    s->error = RunMariadb(SweepSql(s->strings, known), out + ".tsv", /*force=*/false);
    for (const std::vector<std::string>& row : ReadRows(out + ".tsv")) {
      Answer& a = s->answers[row.at(1)];
      if (row[0] == "pad") a.pad = row.at(2) == "1";
      if (row[0] == "space") a.space = row.at(2);
      if (row[0] != "row") continue;
      const int id = std::stoi(row.at(2));
      a.held[id] = row.at(3);
      a.rep[id] = std::stoi(row.at(4));
      a.weight[id] = row.at(5);
    }
    return s;
  }();
  return *sweep;
}

// ---- Comparing -----------------------------------------------------------------------------

// Two equalities over the same strings agree when every pair one calls equal the other does
// too. For each class of `first` (strings with one key), every member must have the `second`
// key of the class's first member, and the other way round: each disagreeing pair of strings
// puts at least one member beside its class's first member here, without looking at all
// 21,000² pairs. Fails for the first few, naming both strings; returns how many there were.
int ExpectSameClasses(const std::string& what, const std::vector<std::string>& strings,
                      const std::vector<int>& ids, const std::vector<std::string>& first,
                      const std::vector<std::string>& second, const std::string& first_name,
                      const std::string& second_name) {
  int disagreements = 0;
  for (int pass = 0; pass < 2; ++pass) {
    const std::vector<std::string>& by = pass == 0 ? first : second;
    const std::vector<std::string>& other = pass == 0 ? second : first;
    std::map<std::string, std::size_t> head;  // a key of `by` -> its class's first member
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const std::size_t h = head.emplace(by[i], i).first->second;
      if (other[i] == other[h]) continue;
      if (++disagreements <= 10) {
        ADD_FAILURE() << what << ": " << CodePoints(strings[ids[h]]) << " and "
                      << CodePoints(strings[ids[i]]) << ": "
                      << (pass == 0 ? first_name : second_name) << " says equal, "
                      << (pass == 0 ? second_name : first_name) << " says different";
      }
    }
  }
  return disagreements;
}

// A weight string (hex) without its trailing space weights: how PAD SPACE compares it.
std::string WithoutTrailingSpaces(std::string weight, const std::string& space) {
  while (!space.empty() && weight.size() >= space.size() && weight.size() % space.size() == 0 &&
         weight.compare(weight.size() - space.size(), space.size(), space) == 0) {
    weight.resize(weight.size() - space.size());
  }
  return weight;
}

// Whether a column of `charset` must hold `text`: latin1 and ascii are only required to hold
// ASCII, utf8mb3 the Basic Multilingual Plane.
bool MustHold(const std::string& charset, const std::string& text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80 && (charset == "latin1" || charset == "ascii")) return false;
    if (byte >= 0xF0 && charset == "utf8mb3") return false;
  }
  return true;
}

class CollationMariadbSweep : public ::testing::TestWithParam<Target> {};

TEST(CollationMariadbSweepTest, EveryExactMysqlCollationIsSweptOnMariadb) {
  const Sweep& sweep = MariadbSweep();
  ASSERT_EQ(sweep.error, "");
  std::cout << "[ mariadb  ] " << sweep.version << ", " << sweep.strings.size() << " strings\n";
  for (const Target& t : Targets()) {
    EXPECT_NE(t.charset, "") << t.collation->name()
                             << ": exact, but CharsetOf() does not know its character set";
    EXPECT_TRUE(sweep.answers.at(t.collation->name()).known || MysqlOnly(t.collation->name()))
        << "MariaDB " << sweep.version << " does not know " << t.collation->name();
  }
}

TEST_P(CollationMariadbSweep, AgreesWithMariadbOnEveryString) {
  const Target& target = GetParam();
  const std::string& name = target.collation->name();
  const Sweep& sweep = MariadbSweep();
  ASSERT_EQ(sweep.error, "");
  const Answer& answer = sweep.answers.at(name);
  if (!answer.known && MysqlOnly(name)) {
    GTEST_SKIP() << name << " is MySQL 8's; MariaDB " << sweep.version << " does not know it";
  }
  ASSERT_TRUE(answer.known) << name;
  ASSERT_FALSE(answer.held.empty()) << name << ": MariaDB's answer has no rows";
  std::vector<int> ids;
  std::vector<std::string> equal, weight, key;
  int missing = 0;
  for (std::size_t i = 0; i < sweep.strings.size(); ++i) {
    const std::string& text = sweep.strings[i];
    const auto held = answer.held.find(static_cast<int>(i));
    if (held == answer.held.end()) {
      if (MustHold(target.charset, text) && ++missing <= 10) {
        ADD_FAILURE() << name << ": MariaDB holds no " << CodePoints(text);
      }
      continue;
    }
    std::string held_hex, sent_hex;
    for (const char c : held->second) held_hex.push_back(static_cast<char>(std::tolower(c)));
    AppendHex(sent_hex, text);
    ASSERT_EQ(held_hex, sent_hex) << name << ": MariaDB holds something else than "
                                  << CodePoints(text);
    ids.push_back(static_cast<int>(i));
    equal.push_back(std::to_string(answer.rep.at(static_cast<int>(i))));
    weight.push_back(
        answer.pad ? WithoutTrailingSpaces(answer.weight.at(static_cast<int>(i)), answer.space)
                   : answer.weight.at(static_cast<int>(i)));
    std::string k;
    target.collation->AppendKey(text, k);
    key.push_back(std::move(k));
  }
  EXPECT_EQ(missing, 0) << name << ": strings its character set holds, missing";
  std::cout << "[ mariadb  ] " << name << ": " << ids.size() << " strings, "
            << std::set<std::string>(equal.begin(), equal.end()).size() << " classes\n";
  EXPECT_EQ(ExpectSameClasses(name + " (the oracle)", sweep.strings, ids, equal, weight,
                              "MariaDB's =", "MariaDB's WEIGHT_STRING"),
            0);
  EXPECT_EQ(ExpectSameClasses(name, sweep.strings, ids, equal, key, "MariaDB", "the checker"), 0);
}

INSTANTIATE_TEST_SUITE_P(Mysql, CollationMariadbSweep, ::testing::ValuesIn(Targets()),
                         [](const ::testing::TestParamInfo<Target>& param) {
                           return param.param.collation->name();
                         });

}  // namespace
}  // namespace steadyflake::mergecheck
