// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// `steadyflake merge-check A B [--layout L] [--epoch TIME] [--json] [--key TABLE:COL[,COL]]...
//  [--id-column TABLE:COL]... [--not-id-column TABLE:COL]... [--table T]... [--limit N]`: will
// two shards collide when merged? A thin front over the
// steadyflake::mergecheck library (docs/merging.md). Exit status 0 safe, 1 a key overlaps,
// 3 no overlap but a server id issued IDs in both, 2 could not check.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cli.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

namespace {

constexpr char kUsage[] =
    "steadyflake merge-check A B [--layout L] [--epoch TIME] [--json]\n"
    "                              [--key TABLE:COL[,COL]]... [--id-column TABLE:COL]...\n"
    "                              [--not-id-column TABLE:COL]... [--refs FILE]\n"
    "                              [--table T]... [--limit N]";

// mergecheck::FormatProgress's line (each input's share of its file read, rows, time left),
// redrawn on a terminal's stderr at most every 200 ms and erased when done. Called from the
// checker's two reading threads; `mutex_` guards the rest.
class Progress {
 public:
  void Update(const mergecheck::Options::Progress& progress) {
    const std::lock_guard<std::mutex> lock(mutex_);
    inputs_[progress.input == 0 ? 0 : 1] = progress;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    drawn_ = true;
    const std::chrono::duration<double> elapsed = now - start_;
    std::fprintf(stderr, "\r\033[Kmerge-check: %s",
                 mergecheck::FormatProgress(inputs_, elapsed.count()).c_str());
    std::fflush(stderr);
  }

  ~Progress() {
    if (drawn_) std::fputs("\r\033[K", stderr);
  }

 private:
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  mergecheck::Options::Progress inputs_[2];       // guarded by mutex_
  std::chrono::steady_clock::time_point last_{};  // guarded by mutex_
  bool drawn_ = false;                            // guarded by mutex_
};

}  // namespace

int RunMergeCheck(const std::vector<std::string>& args) {
  std::string limit_text;
  po::options_description visible("Options");
  AddCheckOptions(visible);
  visible.add_options()("json", "the report as one JSON document")(
      "limit", po::value(&limit_text)->default_value("1000"),
      "conflicting keys listed per key in --json; 0: all")("help,h", "print this help");
  po::variables_map vm;
  const std::vector<std::string> inputs = ParseWithTwoInputs(
      "merge-check", args, visible, kUsage,
      "Checks two shards before they are merged: will any row collide, now or later?\n"
      "A and B are SQLite database files or SQL dumps (sqlite3 .dump, mysqldump,\n"
      "mariadb-dump), optionally gzip-compressed, recognised by content and never\n"
      "modified. Every PRIMARY KEY and UNIQUE key of every table in both is compared;\n"
      "integer primary keys that hold IDs are decoded with the layout into the server\n"
      "ids that issued them (--id-column / --not-id-column adjust which).\n"
      "Exit status: 0 safe to merge; 1 a key overlaps; 3 no overlap, but a server id\n"
      "issued IDs in both (a future collision); 2 could not check (one line on stderr).\n"
      "See docs/merging.md.",
      "steadyflake merge-check A B with two databases or dumps", vm);
  if (inputs.empty()) return kExitOk;  // --help
  mergecheck::Options options;
  options.layout = ResolveLayout(vm);
  options.limit = ParseUnsignedOption("--limit", limit_text, 0, UINT64_MAX);
  ReadCheckOptions(vm, options);

  mergecheck::Report report;
  {
    std::optional<Progress> progress;
    if (::isatty(STDERR_FILENO) == 1) {
      progress.emplace();
      options.progress = [&progress](const mergecheck::Options::Progress& p) {
        progress->Update(p);
      };
    }
    try {
      report = mergecheck::Check(inputs[0], inputs[1], options);
    } catch (const Error& e) {
      throw FromEngine("", e, "check the inputs");
    }
  }
  Output out(stdout);
  out.Append(vm.count("json") != 0 ? mergecheck::FormatJson(report)
                                   : mergecheck::FormatText(report, options.layout));
  out.Flush();
  return ExitStatusOf(report.verdict);
}

int ExitStatusOf(mergecheck::Report::Verdict verdict) {
  switch (verdict) {
    case mergecheck::Report::Verdict::kSafe:
      return kExitOk;
    case mergecheck::Report::Verdict::kConflict:
      return kExitConflict;
    case mergecheck::Report::Verdict::kRisk:
      return kExitRisk;
  }
  return kExitError;
}

}  // namespace steadyflake::cli
