// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// `steadyflake merge A B --plan DIR --out OUT [--json] [--dialect D] [--a-db N] [--b-db N]`: the
// last step of merge day (docs/merging.md "Merge and verify"). A thin front over
// mergecheck::Merge. Exit status 0 merged and verified, 1 verification failed (nothing
// written), 2 could not run.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cli.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/merge.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

namespace {

constexpr char kUsage[] =
    "steadyflake merge A B --plan DIR --out OUT [--json]\n"
    "                         [--dialect mysql --a-db NAME --b-db NAME]";

// "merge: verify the rewrite 40% (3 of 12), 5 s left", redrawn on a terminal's stderr at most
// every 200 ms once the merge has run for a second, and erased when done.
class Progress {
 public:
  void Update(const mergecheck::MergeOptions::Progress& p) {
    const auto now = std::chrono::steady_clock::now();
    if (p.stage != stage_) {
      stage_ = p.stage;
      stage_start_ = now;
    }
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(200)) {
      return;
    }
    last_ = now;
    drawn_ = true;
    std::string line = "merge: " + p.stage;
    if (p.total != 0) {
      const double share = static_cast<double>(p.done) / static_cast<double>(p.total);
      line += " " + std::to_string(static_cast<int>(share * 100)) + "% (" + std::to_string(p.done) +
              " of " + std::to_string(p.total) + ")";
      const std::chrono::duration<double> spent = now - stage_start_;
      if (share > 0) {
        line += ", " + std::to_string(static_cast<long>(spent.count() / share * (1 - share))) +
                " s left";
      }
    }
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
  }
  ~Progress() {
    if (drawn_) std::fputs("\r\033[K", stderr);
  }

 private:
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point stage_start_ = start_;
  std::chrono::steady_clock::time_point last_{};
  std::string stage_;
  bool drawn_ = false;
};

}  // namespace

int RunMerge(const std::vector<std::string>& args) {
  po::options_description visible("Options");
  visible.add_options()("plan", po::value<std::string>(),
                        "required: the folder merge-plan wrote (plan.json, rewrite-b.sql)")(
      "out", po::value<std::string>(),
      "required: the merged database to write (must not exist); with --dialect mysql, the folder "
      "for merge.sql and verify.sql")("json", "print the report as JSON")(
      "dialect", po::value<std::string>(), "sqlite or mysql (default: the plan's)")(
      "a-db", po::value<std::string>()->default_value("a"),
      "mysql: the database that holds A on the server")(
      "b-db", po::value<std::string>()->default_value("b"),
      "mysql: the database that holds B' (B after rewrite-b.sql) on the server")("help,h",
                                                                                 "print this help");
  po::variables_map vm;
  const std::vector<std::string> inputs = ParseWithTwoInputs(
      "merge", args, visible, kUsage,
      "Merges shard B into shard A as the plan says, and verifies it: the plan must\n"
      "still fit A and B; rewrite-b.sql is applied to a copy of B and checked row by\n"
      "row against B and plan.json (every row that referred to an old value now refers\n"
      "to the new one, nothing else moved); then A and B' are merged in dependency\n"
      "order in one transaction and checked (rows, references, foreign keys,\n"
      "integrity). OUT is written only when every check passes. A and B are only read.\n"
      "Exit status: 0 merged and verified; 1 verification failed (the mismatches are\n"
      "listed, nothing written); 2 could not run (one line on stderr). See\n"
      "docs/merging.md.",
      "steadyflake merge A B --plan DIR --out OUT (A the target)", vm);
  if (inputs.empty()) return kExitOk;  // --help
  for (const char* required : {"plan", "out"}) {
    if (vm.count(required) == 0) {
      throw CliError(std::string("missing --") + required,
                     std::string(required) == "plan"
                         ? "name the folder merge-plan wrote, e.g. --plan plan"
                         : "name the merged database to write, e.g. --out merged.db");
    }
  }
  mergecheck::MergeOptions options;
  options.plan_dir = vm["plan"].as<std::string>();
  options.out = vm["out"].as<std::string>();
  if (vm.count("dialect") != 0) {
    options.dialect = vm["dialect"].as<std::string>();
    if (options.dialect != "sqlite" && options.dialect != "mysql") {
      throw CliError("--dialect " + Quote(options.dialect) + " is not one of sqlite, mysql",
                     "pass --dialect sqlite or --dialect mysql, or leave it out");
    }
  }
  options.a_db = vm["a-db"].as<std::string>();
  options.b_db = vm["b-db"].as<std::string>();
  std::optional<Progress> progress;
  if (::isatty(STDERR_FILENO) == 1) progress.emplace();
  // The fault tests' seam stops at the start of a stage, once.
  options.progress =
      [&progress, stopped = std::string()](const mergecheck::MergeOptions::Progress& p) mutable {
        if (p.stage != stopped) StopHereForTest(stopped = p.stage);
        if (progress) progress->Update(p);
      };
  mergecheck::MergeReport report;
  try {
    report = mergecheck::Merge(inputs[0], inputs[1], options);
  } catch (const Error& e) {
    throw FromEngine("", e, "check the inputs and the plan");
  }
  progress.reset();
  Output out(stdout);
  out.Append(vm.count("json") != 0 ? mergecheck::FormatMergeJson(report)
                                   : mergecheck::FormatMergeText(report));
  out.Flush();
  return report.verified ? kExitOk : kExitConflict;
}

}  // namespace steadyflake::cli
