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
#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "steadyflake/error.h"
#include "steadyflake/generator.h"
#include "steadyflake/mergecheck/plan.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

namespace {

constexpr char kUsage[] =
    "steadyflake merge-plan A B --out DIR --server-id N [--rename TEMPLATE]\n"
    "                              [--refs FILE] [--json] [--layout L] [--epoch TIME]\n"
    "                              [--state-dir D | --no-state] [--key TABLE:COL[,COL]]...\n"
    "                              [--id-column TABLE:COL]... [--not-id-column TABLE:COL]...\n"
    "                              [--table T]...";

// Writes `text` to `path` atomically: a temporary file beside it, flushed to disk, renamed over
// it, and the folder flushed; a reader sees the old file or the new one, never a part.
void WriteAtomically(const std::filesystem::path& path, const std::string& text) {
  const std::string tmp = path.string() + ".tmp-" + std::to_string(::getpid());
  auto fail = [&](const std::string& what) {
    const int error = errno;
    ::unlink(tmp.c_str());
    throw CliError("cannot " + what + " " + path.string() + ": " + std::strerror(error),
                   "check that --out names a folder you can write, with room on its disk");
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("create");
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      fail("write");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail("flush");
  }
  if (::close(fd) != 0) fail("write");
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("replace");
  const int dir = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace

int RunMergePlan(const std::vector<std::string>& args) {
  po::options_description visible("Options");
  visible.add_options()("out", po::value<std::string>(),
                        "required: the folder for plan.json and rewrite-b.sql (made if missing)")(
      "server-id", po::value<std::string>(),
      "required: the merged server's id, held by neither shard: keys of steadyflake IDs get "
      "fresh IDs under it")("rename", po::value<std::string>()->default_value("{name}.s{server}"),
                            "how a colliding name of B is renamed: {name} its name, {server} B's "
                            "server id")("json", "print plan.json instead of the summary")(
      "state-dir", po::value<std::string>(),
      "state folder of the generator of fresh IDs (default: as 'steadyflake gen')")(
      "no-state", "keep no state file for the fresh IDs (they may repeat a later run's)");
  AddCheckOptions(visible);
  visible.add_options()("help,h", "print this help");
  po::options_description all;
  all.add(visible).add_options()("input", po::value<std::vector<std::string>>()->composing(),
                                 "inputs");
  po::positional_options_description positional;
  positional.add("input", -1);
  po::variables_map vm;
  ParseArgs("steadyflake", "merge-plan", args, all, &positional, vm);
  if (vm.count("help") != 0) {
    PrintHelp(kUsage,
              "Plans the rewrite of shard B that lets it merge into shard A (the target):\n"
              "colliding integer keys of B get new values (fresh IDs, or an offset above both\n"
              "shards' largest for legacy and narrow columns) and every column that refers to\n"
              "them follows; colliding names are renamed; rows identical in A are dropped.\n"
              "Writes DIR/plan.json (review it) and DIR/rewrite-b.sql (one transaction, in B's\n"
              "dialect, refuses to run twice). A and B are never modified.\n"
              "Exit status: 0 plan written (or nothing to do); 4 written, but items remain\n"
              "unresolved (listed); 2 could not plan (one line on stderr). See docs/merging.md.",
              visible);
    return kExitOk;
  }
  const std::vector<std::string> inputs = vm.count("input") != 0
                                              ? vm["input"].as<std::vector<std::string>>()
                                              : std::vector<std::string>();
  if (inputs.size() != 2) {
    throw CliError("merge-plan needs two inputs, got " + std::to_string(inputs.size()),
                   "run 'steadyflake merge-plan A B --out DIR --server-id N' (A the target)");
  }
  if (vm.count("out") == 0) {
    throw CliError("missing --out",
                   "name the folder for plan.json and rewrite-b.sql, e.g. --out plan");
  }
  mergecheck::PlanOptions options;
  options.check.layout = ResolveLayout(vm);
  const Layout& layout = options.check.layout;
  if (vm.count("server-id") == 0) {
    throw CliError("missing --server-id",
                   "pass the merged server's id, one neither shard holds, e.g. --server-id 103");
  }
  options.server_id = ParseUnsignedOption("--server-id", vm["server-id"].as<std::string>(), 0,
                                          layout.max_server_id());
  options.rename = vm["rename"].as<std::string>();
  ReadCheckOptions(vm, options.check);

  // Fresh IDs come from a generator like gen's, made on first use.
  Generator::Options generator_options;
  generator_options.layout = layout;
  generator_options.server_id = options.server_id;
  const bool no_state = vm.count("no-state") != 0;
  if (no_state && vm.count("state-dir") != 0) {
    throw CliError("--no-state and --state-dir contradict each other", "pass one of them");
  }
  if (!no_state) {
    generator_options.state_dir =
        vm.count("state-dir") != 0 ? vm["state-dir"].as<std::string>() : DefaultStateDir();
  }
  std::unique_ptr<Generator> generator;
  options.next_id = [&]() -> int64_t {
    if (!generator) {
      if (no_state) {
        std::fprintf(stderr,
                     "steadyflake: warning: --no-state keeps no state file, so a later run under "
                     "--server-id %llu may issue these fresh IDs again\n",
                     static_cast<unsigned long long>(options.server_id));
      }
      generator = MakeGenerator(generator_options);
    }
    return static_cast<int64_t>(generator->next());
  };

  mergecheck::Plan plan;
  try {
    plan = mergecheck::MakePlan(inputs[0], inputs[1], options);
  } catch (const Error& e) {
    throw FromEngine("", e, "check the inputs and options");
  }
  const std::filesystem::path out_dir = vm["out"].as<std::string>();
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  if (error) {
    throw CliError("cannot make --out folder " + Quote(out_dir.string()) + ": " + error.message(),
                   "name a folder you can write");
  }
  const std::string json = mergecheck::FormatPlanJson(plan);
  WriteAtomically(out_dir / "plan.json", json);
  WriteAtomically(out_dir / "rewrite-b.sql", mergecheck::FormatPlanSql(plan));

  Output out(stdout);
  if (vm.count("json") != 0) {
    out.Append(json);
  } else {
    out.Append(mergecheck::FormatPlanText(plan));
    out.Append("wrote " + (out_dir / "plan.json").string() + " and " +
               (out_dir / "rewrite-b.sql").string() + " (" + plan.dialect + ")\n");
  }
  out.Flush();
  return plan.unresolved.empty() ? kExitOk : kExitUnresolved;
}

}  // namespace steadyflake::cli
