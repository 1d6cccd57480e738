// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "merge/check_output.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "merge/database.h"

namespace steadyflake::mergecheck::merge {

namespace {

struct Task {
  std::string pragma;  // "quick_check" or "integrity_check(\"T\")"
  uint64_t weight = 0;
};

// The checks, heaviest first, so that the last ones to start are the short ones.
std::vector<Task> Tasks(std::vector<CheckedTable> tables) {
  std::vector<Task> tasks;
  uint64_t rows = 0;
  for (const CheckedTable& t : tables) {
    // A name SQLite parses as the table's, whatever it holds: a string literal.
    std::string literal = "'";
    for (const char c : t.name) literal += c == '\'' ? std::string("''") : std::string(1, c);
    tasks.push_back({"integrity_check(" + literal + "')", t.weight});
    rows += t.weight;
  }
  // quick_check reads every page once and weighs no index entry against its row: cheaper than
  // the integrity checks together, by about half in the benchmark.
  tasks.push_back({"quick_check", rows / 2});
  std::stable_sort(tasks.begin(), tasks.end(),
                   [](const Task& x, const Task& y) { return x.weight > y.weight; });
  return tasks;
}

}  // namespace

std::vector<std::string> CheckIntegrity(const std::string& path, std::vector<CheckedTable> tables,
                                        unsigned workers, const std::function<void()>& alongside,
                                        std::size_t max_lines) {
  const std::vector<Task> tasks = Tasks(std::move(tables));
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::vector<std::string> lines;
  std::exception_ptr failed;
  const auto take = [&] {
    try {
      Database db(path, Database::Mode::kReadOnly, "the output");
      for (std::size_t i = next++; i < tasks.size(); i = next++) {
        Statement check = db.Prepare("PRAGMA main." + tasks[i].pragma);
        while (db.Step(check, "run PRAGMA " + tasks[i].pragma)) {
          std::string line = check.Column(0).bytes;
          if (line == "ok") continue;
          // SQLite puts "*** in database main ***\n" before a database's first finding.
          if (line.rfind("*** in database", 0) == 0 && line.find('\n') != std::string::npos) {
            line.erase(0, line.find('\n') + 1);
          }
          const std::lock_guard<std::mutex> lock(mutex);
          if (lines.size() < max_lines) lines.push_back("PRAGMA " + tasks[i].pragma + ": " + line);
        }
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex);
      if (!failed) failed = std::current_exception();
      next = tasks.size();  // the others stop after their current check
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < std::max(workers, 1u); ++w) threads.emplace_back(take);
  std::exception_ptr alongside_failed;
  try {
    if (alongside) alongside();
  } catch (...) {
    alongside_failed = std::current_exception();
    next = tasks.size();
  }
  take();
  for (std::thread& t : threads) t.join();
  if (alongside_failed) std::rethrow_exception(alongside_failed);
  if (failed) std::rethrow_exception(failed);
  return lines;
}

}  // namespace steadyflake::mergecheck::merge
