// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Merge (steadyflake/mergecheck/merge.h): the plan read and checked against the inputs, the
// working copies made beside the output, the rewrite applied and verified, the tables merged and
// verified, the output renamed into place. Every file it makes is named after the output
// ("OUT.tmp-PID", "OUT.tmp-PID-b") so that a run killed at any point leaves no OUT, and the next
// run removes what a dead run left.

#include "steadyflake/mergecheck/merge.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "dump/byte_stream.h"
#include "merge/database.h"
#include "merge/merge_sql.h"
#include "merge/merge_tables.h"
#include "merge/plan_file.h"
#include "merge/verify_rewrite.h"
#include "source/read_buffer.h"
#include "source/source.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/fingerprint.h"

namespace steadyflake::mergecheck {

namespace {

using merge::Database;

[[noreturn]] void Refuse(const std::string& message) {
  throw Error(Error::Code::kInvalidArgument, message);
}

// The files a run makes, removed unless kept (the output, once renamed, is not among them).
class TempFiles {
 public:
  ~TempFiles() {
    for (const std::string& f : files_) {
      for (const char* suffix : {"", "-journal", "-wal", "-shm"}) ::unlink((f + suffix).c_str());
    }
  }
  std::string Add(std::string path) {
    files_.push_back(std::move(path));
    return files_.back();
  }

 private:
  std::vector<std::string> files_;
};

void CheckFingerprints(const merge::PlanFile& plan, const std::string (&paths)[2],
                       MergeReport& report) {
  for (int i = 0; i < 2; ++i) {
    if (!plan.fingerprints[i]) {
      Refuse(plan.dir + "/plan.json has no fingerprint of " + (i == 0 ? "A" : "B") +
             " (a plan older than `merge`): run merge-plan again");
    }
  }
  // Both files read at once, B on a thread of its own: two files, two cores.
  std::future<InputFingerprint> of_b = std::async(std::launch::async, FingerprintInput, paths[1]);
  const InputFingerprint fingerprints[2] = {FingerprintInput(paths[0]), of_b.get()};
  for (int i = 0; i < 2; ++i) {
    const char* which = i == 0 ? "A" : "B";
    const InputFingerprint& now = fingerprints[i];
    const std::string change = FingerprintChange(*plan.fingerprints[i], now);
    if (!change.empty()) {
      Refuse(std::string(which) + " (" + paths[i] + ") changed since plan " + plan.id + ": " +
             change + "; run merge-plan again on the inputs as they are now");
    }
    if (now.mtime != plan.fingerprints[i]->mtime) {
      report.notes.push_back(std::string(which) + " was modified at " + now.mtime +
                             ", after the plan's " + plan.fingerprints[i]->mtime +
                             ", with the same content (a copy)");
    }
  }
}

// A SQLite file opened read-only, or a sqlite3 dump loaded into a working file.
std::unique_ptr<Database> OpenInput(const std::string& path, const char* which,
                                    const std::string& temp_path) {
  const std::string format = OpenSource(path)->format();
  if (format == "sqlite") {
    return std::make_unique<Database>(path, Database::Mode::kReadOnly, which);
  }
  if (format.rfind("sqlite-dump", 0) != 0) {
    Refuse(std::string(which) + " (" + path + ") is a " + format +
           ": merge it on its server with --dialect mysql");
  }
  auto db = std::make_unique<Database>(temp_path, Database::Mode::kCreate, which);
  db->Exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF");
  const auto stream = dump::OpenByteStream(path, format.find("+gzip") != std::string::npos);
  std::string text;
  constexpr std::size_t kBytes = std::size_t{1} << 20;
  const ReadBuffer buffer = NewReadBuffer(kBytes);  // on a page: read_buffer.h
  char* const into = reinterpret_cast<char*>(buffer.get());
  while (const std::size_t n = stream->Read(into, kBytes)) text.append(into, n);
  const std::string error = db->TryExec(text);
  if (!error.empty())
    Refuse(std::string(which) + " (" + path + "): SQLite refuses the dump: " + error);
  return db;
}

// The working files beside the output: the output begun as a copy of A (`result`), and B'
// (`b2_path`), B's copy with rewrite-b.sql applied. A is copied on a thread of its own while B
// is copied and rewritten: two files, two cores. Every name is registered before either starts.
// A copy is the file's bytes copied by the kernel under SQLite's read lock (CopyFileTo), or,
// for a WAL database, SQLite's backup API.
struct WorkingCopies {
  WorkingCopies(const std::string& base, TempFiles& temps)
      : out_tmp(temps.Add(base)),
        a_loaded(temps.Add(base + "-a")),
        b_loaded(temps.Add(base + "-b0")),
        b2_path(temps.Add(base + "-b")) {}

  void Make(const std::string& path_a, const std::string& path_b, const merge::PlanFile& plan,
            const MergeOptions& options) {
    std::exception_ptr copy_failed;
    std::thread copy_a([&] {
      try {
        a = OpenInput(path_a, "A", a_loaded);
        const bool copied = a->CopyFileTo(out_tmp);
        result = std::make_unique<Database>(out_tmp, Database::Mode::kCreate, "the output");
        if (!copied) result->CopyFrom(*a);
        wal = result->IsWal();
        result->Exec("PRAGMA journal_mode = DELETE; PRAGMA synchronous = OFF");
      } catch (...) {
        copy_failed = std::current_exception();
      }
    });
    try {
      Rewrite(path_b, plan, options);
    } catch (...) {
      copy_a.join();
      throw;
    }
    copy_a.join();
    if (copy_failed) std::rethrow_exception(copy_failed);
  }

  const std::string out_tmp, a_loaded, b_loaded, b2_path;
  std::unique_ptr<Database> result, a, b;
  std::future<merge::RewriteExpectation> expectation;  // ExpectRewrite of B, under way
  bool wal = false;                                    // A is a WAL database: so is the output

 private:
  void Rewrite(const std::string& path_b, const merge::PlanFile& plan,
               const MergeOptions& options) {
    b = OpenInput(path_b, "B", b_loaded);
    const bool copied = b->CopyFileTo(b2_path);
    // B's half of the verification reads only B: on a connection and a thread of its own while
    // the rewrite runs, when the other core has little else to do.
    expectation = std::async(std::launch::async, [&plan, path = b->path()] {
      Database reader(path, Database::Mode::kReadOnly, "B");
      return merge::ExpectRewrite(reader, plan);
    });
    Database rewritten(b2_path, Database::Mode::kCreate, "B'");
    if (!copied) rewritten.CopyFrom(*b);
    rewritten.Exec("PRAGMA journal_mode = DELETE; PRAGMA synchronous = OFF");
    if (options.progress) options.progress({"rewrite", 0, 0});
    const std::string failed = rewritten.TryExec(plan.rewrite_sql);
    if (!failed.empty()) {
      Refuse(plan.dir + "/rewrite-b.sql fails on a copy of B: " + failed +
             "; undo the edit, or run merge-plan again");
    }
  }
};

// Makes and removes `path`, so that a folder SQLite cannot write in is named with the system's
// reason ("Read-only file system") rather than SQLite's "unable to open database file".
void ProbeWritable(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    Refuse("cannot write " + path + ": " + std::strerror(errno) +
           "; name a folder you can write for --out, with room for two copies of the inputs");
  }
  ::close(fd);
  ::unlink(path.c_str());
}

// Flushes `path` and its folder, then renames it to `out` unless `out` exists.
void Publish(const std::string& path, const std::filesystem::path& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) Refuse("cannot flush " + path + ": " + std::strerror(errno));
  ::close(fd);
  if (::renameat2(AT_FDCWD, path.c_str(), AT_FDCWD, out.c_str(), RENAME_NOREPLACE) != 0) {
    Refuse("cannot rename " + path + " to " + out.string() + ": " + std::strerror(errno) +
           "; nothing was written at " + out.string());
  }
  const std::string dir = out.has_parent_path() ? out.parent_path().string() : ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void Attach(Database& db, const std::string& path) {
  merge::Statement attach = db.Prepare("ATTACH ?1 AS b");
  sqlite3_bind_text(attach.get(), 1, path.c_str(), -1, SQLITE_TRANSIENT);
  db.Step(attach, "open B'");
}

// The rewrite verified (VerifyRewrite, on a connection of its own to A with B' attached) while
// the tables are merged into `result` (MergeTables): both only read B', and the merge is
// committed to a working file that is renamed into place only if both pass. Returns whether
// they did; the report holds the verification's findings, and the merge's once the rewrite
// passed.
bool VerifyAndMerge(Database& result, Database& a, Database& b, const std::string& b2_path,
                    std::future<merge::RewriteExpectation>& expectation,
                    const merge::PlanFile& plan, const MergeOptions& options, MergeReport& report) {
  Attach(result, b2_path);
  Database verifier(a.path(), Database::Mode::kReadOnly, "A");
  Attach(verifier, b2_path);
  std::mutex progress_mutex;
  const auto progress = [&](const char* stage, uint64_t done, uint64_t total) {
    const std::lock_guard<std::mutex> lock(progress_mutex);
    if (options.progress) options.progress({stage, done, total});
  };
  progress("verify the rewrite", 0, 0);
  MergeReport verified;
  merge::Mismatches rewrite_mismatches(verified, options.max_mismatches);
  std::exception_ptr failed;
  std::thread verify([&] {
    try {
      const merge::RewriteExpectation expected = expectation.get();
      merge::VerifyRewrite(
          b, verifier, plan, expected, verified, rewrite_mismatches,
          [&](uint64_t done, uint64_t total) { progress("verify the rewrite", done, total); });
    } catch (...) {
      failed = std::current_exception();
    }
  });
  progress("merge", 0, 0);
  MergeReport merged;
  merge::Mismatches merge_mismatches(merged, options.max_mismatches);
  try {
    merge::MergeTables(result, a, plan, merged, merge_mismatches, {});
  } catch (...) {
    verify.join();
    throw;
  }
  verify.join();
  if (failed) std::rethrow_exception(failed);
  // The tables as the verification counted them, with the merge's counts beside.
  report.keys = std::move(verified.keys);
  report.tables = std::move(verified.tables);
  for (const MergeReport::Table& m : merged.tables) {
    MergeReport::Table* t = nullptr;
    for (MergeReport::Table& x : report.tables) t = x.name == m.name ? &x : t;
    if (t == nullptr) {
      report.tables.push_back(m);
      continue;
    }
    t->rows_a = m.rows_a;
    t->replaced = m.replaced;
    t->merged = m.merged;
  }
  const MergeReport& first = rewrite_mismatches.any() ? verified : merged;
  report.mismatches = first.mismatches;
  report.more = first.more;
  return !rewrite_mismatches.any() && !merge_mismatches.any();
}

}  // namespace

std::vector<std::string> RemoveFilesOfDeadRuns(const std::string& path) {
  const std::filesystem::path file = path;
  const std::string prefix = file.filename().string() + ".tmp-";
  const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : ".";
  std::vector<std::string> notes;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)) continue;
    if (std::filesystem::remove(entry.path(), error)) {
      notes.push_back("removed " + entry.path().string() + ", left by a run that died");
    }
  }
  return notes;
}

MergeReport Merge(const std::string& path_a, const std::string& path_b,
                  const MergeOptions& options) {
  MergeReport report;
  const merge::PlanFile plan = merge::ReadPlanFile(options.plan_dir);
  report.plan = plan.id;
  report.dialect = options.dialect.empty() ? plan.dialect : options.dialect;
  if (report.dialect != plan.dialect) {
    Refuse("--dialect " + report.dialect + " is not the plan's (" + plan.dialect +
           "): B's format decides the dialect; drop --dialect");
  }
  const std::string paths[2] = {path_a, path_b};
  CheckFingerprints(plan, paths, report);
  if (plan.unresolved != 0) {
    uint64_t held = 0;
    for (const merge::PlanFile::Rows& u : plan.unmerged) held += u.rows;
    report.notes.push_back(std::to_string(plan.unresolved) +
                           " unresolved item(s): the rewrite holds back " + std::to_string(held) +
                           " row(s) of B in steadyflake_unmerged_<table>, merged as they are "
                           "for the operator to settle later (docs/merging.md section 9)");
  }
  report.out = options.out;
  if (report.dialect == "mysql") {
    merge::WriteMysqlMerge(path_a, path_b, plan, options, report);
    return report;
  }
  const std::filesystem::path out = options.out;
  std::error_code error;
  if (std::filesystem::exists(std::filesystem::symlink_status(out, error))) {
    Refuse(out.string() + " exists; merge writes a new file: remove it or name another --out");
  }
  for (std::string& note : RemoveFilesOfDeadRuns(out.string())) {
    report.notes.push_back(std::move(note));
  }
  TempFiles temps;
  const std::string base = out.string() + ".tmp-" + std::to_string(::getpid());
  ProbeWritable(base);
  if (options.progress) options.progress({"copy", 0, 0});
  WorkingCopies copies(base, temps);
  copies.Make(path_a, path_b, plan, options);
  Database& result = *copies.result;
  if (!VerifyAndMerge(result, *copies.a, *copies.b, copies.b2_path, copies.expectation, plan,
                      options, report)) {
    return report;
  }
  result.Exec("DETACH b");
  if (copies.wal) result.Exec("PRAGMA journal_mode = WAL");
  result.Close();
  if (options.progress) options.progress({"publish", 0, 0});
  Publish(copies.out_tmp, out);
  report.verified = true;
  return report;
}

}  // namespace steadyflake::mergecheck
