// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "merge/check_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "merge/database.h"
#include "merge/index_check.h"
#include "sqlite/page_file.h"

namespace steadyflake::mergecheck::merge {

namespace {

// One check, run on one connection: a PRAGMA, a table's pass of the linear index check, or an
// index's.
struct Task {
  enum class Kind { kPragma, kTable, kIndex } kind = Kind::kPragma;
  std::string pragma;     // kPragma: "quick_check" or "integrity_check('T')"
  std::size_t table = 0;  // kTable, kIndex: into Plan::linear
  std::size_t index = 0;  // kIndex: into LinearTable::indexes
  uint64_t weight = 0;
};

struct Plan {
  std::vector<LinearTable> linear;
  std::vector<std::vector<RowSum>> from_table;  // per linear table, per index
  std::vector<std::vector<RowSum>> from_index;
  std::vector<Task> tasks;  // heaviest first, so that the last ones to start are the short ones
};

// The checks of `tables`: the linear index check where it can read the table (index_check.h),
// else PRAGMA integrity_check(T); and one quick_check of the whole file.
Plan MakePlan(const std::string& path, const std::vector<CheckedTable>& tables) {
  Plan plan;
  Database db(path, Database::Mode::kReadOnly, "the output");
  uint64_t rows = 0;
  for (const CheckedTable& t : tables) {
    rows += t.rows;
    std::optional<LinearTable> linear = PlanLinearCheck(db, t.name);
    if (!linear) {
      // n log n: a seek into every index per row.
      plan.tasks.push_back(
          {Task::Kind::kPragma, "integrity_check(" + QuoteText(t.name) + ")", 0, 0, t.weight * 2});
      continue;
    }
    const std::size_t n = plan.linear.size();
    const std::size_t indexes = linear->indexes.size();
    if (indexes > 0)
      plan.tasks.push_back({Task::Kind::kTable, "", n, 0, t.rows * (1 + indexes / 2)});
    for (std::size_t i = 0; i < indexes; ++i) {
      plan.tasks.push_back({Task::Kind::kIndex, "", n, i, t.rows});
    }
    plan.linear.push_back(std::move(*linear));
    plan.from_table.emplace_back(indexes);
    plan.from_index.emplace_back(indexes);
  }
  // quick_check reads every page once: about twice the table passes' work in the benchmark.
  plan.tasks.push_back({Task::Kind::kPragma, "quick_check", 0, 0, rows * 2});
  std::stable_sort(plan.tasks.begin(), plan.tasks.end(),
                   [](const Task& x, const Task& y) { return x.weight > y.weight; });
  return plan;
}

// Runs a PRAGMA check; its lines that are not "ok", prefixed with the PRAGMA, go to `lines`.
void RunPragma(Database& db, const std::string& pragma, std::vector<std::string>& lines,
               std::size_t max_lines) {
  Statement check = db.Prepare("PRAGMA main." + pragma);
  while (db.Step(check, "run PRAGMA " + pragma)) {
    std::string line = check.Column(0).bytes;
    if (line == "ok") continue;
    // SQLite puts "*** in database main ***\n" before a database's first finding.
    if (line.rfind("*** in database", 0) == 0 && line.find('\n') != std::string::npos) {
      line.erase(0, line.find('\n') + 1);
    }
    if (lines.size() < max_lines) lines.push_back("PRAGMA " + pragma + ": " + line);
  }
}

// Runs `task` of `plan`, its findings into `lines` (under `mutex`, shared by the workers); the
// linear index check reads `pages` where it can (null: through SQLite).
void Run(Database& db, const PageFile* pages, Plan& plan, const Task& task,
         std::vector<std::string>& lines, std::mutex& mutex, std::size_t max_lines) {
  std::vector<std::string> found;
  if (task.kind == Task::Kind::kPragma) {
    RunPragma(db, task.pragma, found, max_lines);
  } else if (task.kind == Task::Kind::kTable) {
    plan.from_table[task.table] = SumTable(db, pages, plan.linear[task.table], found, max_lines);
  } else {
    plan.from_index[task.table][task.index] =
        SumIndex(db, pages, plan.linear[task.table], task.index, found, max_lines);
  }
  const std::lock_guard<std::mutex> lock(mutex);
  for (std::string& line : found) {
    if (lines.size() < max_lines) lines.push_back(std::move(line));
  }
}

}  // namespace

std::vector<std::string> CheckIntegrity(const std::string& path, std::vector<CheckedTable> tables,
                                        unsigned workers, const std::function<void()>& alongside,
                                        std::size_t max_lines) {
  Plan plan = MakePlan(path, tables);
  // The file's pages, for the linear index check's passes: the output is committed and no one
  // else writes it. Where it cannot be read so, the passes read through SQLite.
  std::unique_ptr<PageFile> pages;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    try {
      pages = std::make_unique<PageFile>(fd);
    } catch (const DamagedPage&) {
      pages.reset();  // quick_check says what is wrong with it
    }
  }
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::vector<std::string> lines;
  std::exception_ptr failed;
  const auto take = [&] {
    try {
      Database db(path, Database::Mode::kReadOnly, "the output");
      for (std::size_t i = next++; i < plan.tasks.size(); i = next++) {
        Run(db, pages.get(), plan, plan.tasks[i], lines, mutex, max_lines);
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex);
      if (!failed) failed = std::current_exception();
      next = plan.tasks.size();  // the others stop after their current check
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < std::max(workers, 1u); ++w) threads.emplace_back(take);
  std::exception_ptr alongside_failed;
  try {
    if (alongside) alongside();
  } catch (...) {
    alongside_failed = std::current_exception();
    next = plan.tasks.size();
  }
  take();
  for (std::thread& t : threads) t.join();
  if (fd >= 0) ::close(fd);
  if (alongside_failed) std::rethrow_exception(alongside_failed);
  if (failed) std::rethrow_exception(failed);
  for (std::size_t t = 0; t < plan.linear.size(); ++t) {
    for (std::size_t i = 0; i < plan.linear[t].indexes.size(); ++i) {
      for (std::string& line :
           CompareSums(plan.linear[t], i, plan.from_table[t][i], plan.from_index[t][i])) {
        if (lines.size() < max_lines) lines.push_back(std::move(line));
      }
    }
  }
  return lines;
}

}  // namespace steadyflake::mergecheck::merge
