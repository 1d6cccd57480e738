// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// `steadyflake merge-plan A B --out DIR --server-id N [--rename T] [--refs FILE] [--json] ...`:
// plans the rewrite of shard B that lets it merge into A (docs/merging.md "Merge day"), and
// writes DIR/plan.json and DIR/rewrite-b.sql. A thin front over mergecheck::MakePlan. Exit
// status 0 plan written (or nothing to do), 4 written but items remain unresolved, 2 could not
// plan.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli.h"
#include "cli_profile.h"
#include "steadyflake/error.h"
#include "steadyflake/generator.h"
#include "steadyflake/mergecheck/merge.h"
#include "steadyflake/mergecheck/plan.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

namespace {

constexpr char kUsage[] =
    "steadyflake merge-plan A B --out DIR --server-id N [--rename TEMPLATE]\n"
    "                              [--refs FILE] [--json] [--layout L] [--epoch TIME]\n"
    "                              [--state-dir D | --no-state] [--key TABLE:COL[,COL]]...\n"
    "                              [--id-column TABLE:COL]... [--not-id-column TABLE:COL]...\n"
    "                              [--table T]... [--profile FILE] [--draft-profile FILE]";

// Files written together: each to a temporary file beside it, flushed to disk; then, once every
// one is complete, all renamed over their names and the folders flushed. A failure before the
// renames removes the temporary files (and the --out folder if this run made it), so a reader
// sees the old set or the new one, never a part. Only a run killed between two renames leaves a
// new plan.json beside an old rewrite-b.sql, which merge refuses (their plan ids differ). The
// temporary files of a killed run ("plan.json.tmp-PID") are removed by the next run.
class FileSet {
 public:
  explicit FileSet(std::filesystem::path made_dir = {}) : made_dir_(std::move(made_dir)) {}
  FileSet(const FileSet&) = delete;
  FileSet& operator=(const FileSet&) = delete;
  ~FileSet() {
    for (const auto& [path, tmp] : files_) ::unlink(tmp.c_str());
    if (!done_ && !made_dir_.empty()) ::rmdir(made_dir_.c_str());
  }

  void Write(const std::filesystem::path& path, const std::string& text) {
    for (std::string& note : mergecheck::RemoveFilesOfDeadRuns(path.string())) {
      notes_.push_back(std::move(note));
    }
    const std::string tmp = path.string() + ".tmp-" + std::to_string(::getpid());
    files_.emplace_back(path, tmp);
    auto fail = [&](const std::string& what) {
      throw CliError("cannot " + what + " " + path.string() + ": " + std::strerror(errno),
                     "check that --out names a folder you can write, with room on its disk");
    };
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail("create");
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int error = errno;
        ::close(fd);
        errno = error;
        fail("write");
      }
      done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) {
      const int error = errno;
      ::close(fd);
      errno = error;
      fail("flush");
    }
    if (::close(fd) != 0) fail("write");
  }

  // What the writes removed: "removed F, left by a run that died".
  const std::vector<std::string>& notes() const { return notes_; }

  void Commit() {
    StopHereForTest("rename");  // every file written, none renamed (tests/cli/merge_test.sh)
    for (const auto& [path, tmp] : files_) {
      if (path != files_.front().first) StopHereForTest("rename " + path.filename().string());
      if (::rename(tmp.c_str(), path.c_str()) != 0) {
        throw CliError("cannot replace " + path.string() + ": " + std::strerror(errno),
                       "check that --out names a folder you can write");
      }
      const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
      const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
      }
    }
    files_.clear();
    done_ = true;
  }

 private:
  std::filesystem::path made_dir_;
  std::vector<std::pair<std::filesystem::path, std::string>> files_;
  std::vector<std::string> notes_;
  bool done_ = false;
};

// The options merge-plan takes, beyond the check's.
po::options_description PlanOptionsDescription() {
  po::options_description visible("Options");
  visible.add_options()("out", po::value<std::string>(),
                        "required: the folder for plan.json and rewrite-b.sql (made if missing)")(
      "server-id", po::value<std::string>(),
      "required (here or in the profile): the merged server's id, held by neither shard: keys "
      "of steadyflake IDs get fresh IDs under it")(
      "rename", po::value<std::string>(),
      "how a colliding name of B is renamed: {name} its name, {server} B's server id (default "
      "'{name}.s{server}')")("json", "print plan.json instead of the summary")(
      "profile", po::value<std::string>(),
      "FILE: the game's merge profile (TOML): confirmed references, global columns, options")(
      "draft-profile", po::value<std::string>(),
      "FILE: also write the profile this plan would need, proposals commented out")(
      "state-dir", po::value<std::string>(),
      "state folder of the generator of fresh IDs (default: as 'steadyflake gen')")(
      "no-state", "keep no state file for the fresh IDs (they may repeat a later run's)");
  AddCheckOptions(visible);
  visible.add_options()("help,h", "print this help");
  return visible;
}

// Where a flag and the profile both say something, the flag wins, and the summary says so.
void ApplyProfile(const Profile& profile, const po::variables_map& vm,
                  mergecheck::PlanOptions& options, std::vector<std::string>& notes) {
  const auto overridden = [&](const char* flag, const std::string& key) {
    notes.push_back("--" + std::string(flag) + " from the command line overrides the profile's " +
                    key);
  };
  if (profile.rename) {
    if (vm.count("rename") != 0)
      overridden("rename", "rename");
    else
      options.rename = *profile.rename;
  }
  const auto columns = [&](const char* flag, const std::vector<std::string>& items,
                           std::vector<mergecheck::Options::Column>& out) {
    if (items.empty()) return;
    if (vm.count(flag) != 0) return overridden(flag, flag);
    for (const std::string& c : items)
      out.push_back(ParseColumnOption(std::string("--") + flag, c));
  };
  columns("id-column", profile.id_columns, options.check.id_columns);
  columns("not-id-column", profile.not_id_columns, options.check.not_id_columns);
  if (!profile.keys.empty()) {
    if (vm.count("key") != 0) {
      overridden("key", "keys");
    } else {
      for (const std::string& k : profile.keys)
        options.check.extra_keys.push_back(ParseKeyOption(k));
    }
  }
  if (!profile.tables.empty()) {
    if (vm.count("table") != 0)
      overridden("table", "tables");
    else
      options.check.tables = profile.tables;
  }
  // --refs lines and the profile's references are both confirmed: together.
  options.check.references.insert(options.check.references.end(), profile.references.begin(),
                                  profile.references.end());
  options.global = profile.global;
  options.own_keys = profile.own_keys;
  options.on_conflict = profile.on_conflict;
  for (const Profile::Name& name : profile.names) {
    options.names.push_back(name.rule);
    // A game-level name is a key of its own, compared under the game's rule.
    mergecheck::Options::ExtraKey key{name.rule.table, {name.rule.column}, {}};
    if (!name.compare_as.empty()) key.collations = {name.compare_as};
    options.check.extra_keys.push_back(std::move(key));
  }
}

// The plan's options from the command line and the profile, but the generator of fresh IDs.
mergecheck::PlanOptions ReadPlanOptions(const po::variables_map& vm,
                                        std::vector<std::string>& notes) {
  mergecheck::PlanOptions options;
  options.check.layout = ResolveLayout(vm);
  ReadCheckOptions(vm, options.check);
  std::optional<Profile> profile;
  if (vm.count("profile") != 0) {
    profile = ReadProfile(vm["profile"].as<std::string>());
    ApplyProfile(*profile, vm, options, notes);
  }
  if (vm.count("rename") != 0) options.rename = vm["rename"].as<std::string>();
  const uint64_t max = options.check.layout.max_server_id();
  if (vm.count("server-id") != 0) {
    if (profile && profile->server_id)
      notes.push_back("--server-id from the command line overrides the profile's server_id");
    options.server_id =
        ParseUnsignedOption("--server-id", vm["server-id"].as<std::string>(), 0, max);
  } else if (profile && profile->server_id) {
    options.server_id =
        ParseUnsignedOption("the profile's server_id", std::to_string(*profile->server_id), 0, max);
  } else {
    throw CliError("missing --server-id",
                   "pass the merged server's id, one neither shard holds, e.g. --server-id 103 "
                   "(or server_id in the profile)");
  }
  return options;
}

// The generator of fresh IDs, like gen's, made on first use.
std::function<int64_t()> FreshIds(const po::variables_map& vm, const Layout& layout,
                                  uint64_t server_id, std::shared_ptr<Generator>& generator) {
  Generator::Options generator_options;
  generator_options.layout = layout;
  generator_options.server_id = server_id;
  const bool no_state = vm.count("no-state") != 0;
  if (no_state && vm.count("state-dir") != 0) {
    throw CliError("--no-state and --state-dir contradict each other", "pass one of them");
  }
  if (!no_state) {
    generator_options.state_dir =
        vm.count("state-dir") != 0 ? vm["state-dir"].as<std::string>() : DefaultStateDir();
  }
  return [&generator, generator_options, no_state, server_id]() -> int64_t {
    if (!generator) {
      if (no_state) {
        std::fprintf(stderr,
                     "steadyflake: warning: --no-state keeps no state file, so a later run under "
                     "--server-id %llu may issue these fresh IDs again\n",
                     static_cast<unsigned long long>(server_id));
      }
      generator = MakeGenerator(generator_options);
    }
    return static_cast<int64_t>(generator->next());
  };
}

// Writes plan.json, rewrite-b.sql and, when asked, the draft profile; prints the summary.
void WritePlan(const po::variables_map& vm, const mergecheck::Plan& plan,
               const mergecheck::PlanOptions& options, std::vector<std::string> notes) {
  const std::filesystem::path out_dir = vm["out"].as<std::string>();
  std::error_code error;
  const bool made = !std::filesystem::exists(out_dir, error);
  std::filesystem::create_directories(out_dir, error);
  if (error) {
    throw CliError("cannot make --out folder " + Quote(out_dir.string()) + ": " + error.message(),
                   "name a folder you can write");
  }
  const std::string json = mergecheck::FormatPlanJson(plan);
  FileSet files(made ? out_dir : std::filesystem::path());
  files.Write(out_dir / "plan.json", json);
  files.Write(out_dir / "rewrite-b.sql", mergecheck::FormatPlanSql(plan));
  if (vm.count("draft-profile") != 0) {
    files.Write(vm["draft-profile"].as<std::string>(), DraftProfile(plan, options));
  }
  files.Commit();
  notes.insert(notes.end(), files.notes().begin(), files.notes().end());
  Output out(stdout);
  if (vm.count("json") != 0) {
    out.Append(json);
  } else {
    if (vm.count("profile") != 0) out.Append("profile " + vm["profile"].as<std::string>() + "\n");
    for (const std::string& note : notes) out.Append("note: " + note + "\n");
    out.Append(mergecheck::FormatPlanText(plan));
    out.Append("wrote " + (out_dir / "plan.json").string() + " and " +
               (out_dir / "rewrite-b.sql").string() + " (" + plan.dialect + ")\n");
    if (vm.count("draft-profile") != 0) {
      out.Append("wrote the draft profile " + vm["draft-profile"].as<std::string>() + "\n");
    }
  }
  out.Flush();
}

}  // namespace

int RunMergePlan(const std::vector<std::string>& args) {
  const po::options_description visible = PlanOptionsDescription();
  po::variables_map vm;
  const std::vector<std::string> inputs = ParseWithTwoInputs(
      "merge-plan", args, visible, kUsage,
      "Plans the rewrite of shard B that lets it merge into shard A (the target):\n"
      "colliding integer keys of B get new values (fresh IDs, or an offset above both\n"
      "shards' largest for legacy and narrow columns) and every confirmed reference to\n"
      "them follows; colliding names are renamed; rows identical in A are dropped.\n"
      "Writes DIR/plan.json (review it) and DIR/rewrite-b.sql (one transaction, in B's\n"
      "dialect, refuses to run twice). A and B are never modified.\n"
      "Exit status: 0 plan written (or nothing to do); 4 written, but items remain\n"
      "unresolved (listed); 2 could not plan (one line on stderr). See docs/merging.md.",
      "steadyflake merge-plan A B --out DIR --server-id N (A the target)", vm);
  if (inputs.empty()) return kExitOk;  // --help
  if (vm.count("out") == 0) {
    throw CliError("missing --out",
                   "name the folder for plan.json and rewrite-b.sql, e.g. --out plan");
  }
  std::vector<std::string> notes;
  mergecheck::PlanOptions options = ReadPlanOptions(vm, notes);
  std::shared_ptr<Generator> generator;
  options.next_id = FreshIds(vm, options.check.layout, options.server_id, generator);
  mergecheck::Plan plan;
  try {
    plan = mergecheck::MakePlan(inputs[0], inputs[1], options);
  } catch (const Error& e) {
    throw FromEngine("", e, "check the inputs and options");
  }
  WritePlan(vm, plan, options, notes);
  return plan.unresolved.empty() ? kExitOk : kExitUnresolved;
}

}  // namespace steadyflake::cli
