// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// `steadyflake gen --server-id N [--count K] ...`: K IDs, decimal, one per line, increasing.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "cli.h"
#include "registry_flags.h"
#include "steadyflake/error.h"
#include "steadyflake/generator.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

namespace {

// IDs taken from the generator at a time: small enough that output streams steadily once the
// generator paces at its sustained rate, large enough that the one atomic per batch is nothing.
constexpr uint64_t kChunk = 16384;

// With --registry: a thread that ends the process with exit status 2 once the generator lost
// its server id (design section 10: gen exits 2). The engine's next_batch() would otherwise wait
// for good; IDs printed before are valid (the next owner starts past them).
class LostWatch {
 public:
  explicit LostWatch(const Generator& generator)
      : thread_([this, &generator] {
          std::unique_lock<std::mutex> lock(mu_);
          while (!done_) {
            if (generator.lost()) {
              std::fprintf(stderr, "steadyflake: %s; gen stops (exit 2)\n",
                           generator.state_error().c_str());
              std::fflush(stderr);
              std::_Exit(kExitError);
            }
            // Polling, not synchronisation: how soon a loss is noticed.
            cv_.wait_for(lock, std::chrono::milliseconds(50));
          }
        }) {}
  ~LostWatch() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace

int RunGen(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()(
      "server-id", po::value<std::string>(),
      "required: this server's (shard's) id, in [0, max server id of the layout]; two "
      "servers that may ever be merged must never share one")(
      "count", po::value<std::string>()->default_value("1"), "how many IDs to print (>= 1)")(
      "layout", po::value<std::string>()->default_value("game"),
      "game, snowflake or T/S/Q@<n>ms, e.g. 37/16/10@10ms")(
      "epoch", po::value<std::string>(),
      "start of time: YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS[.fff]Z or Unix ms (default: the "
      "layout's)")("state-dir", po::value<std::string>(),
                   "folder of the state file that keeps IDs increasing across runs (default: "
                   "$STEADYFLAKE_STATE_DIR, else $XDG_STATE_HOME/steadyflake, else "
                   "$HOME/.local/state/steadyflake)")(
      "no-state", "keep no state file: IDs may repeat across runs (prints a warning)")(
      "resume-after", po::value<std::string>(),
      "the largest ID this server id issued before (e.g. the largest in its database): "
      "IDs start after it, whatever the state file or clock say")(
      "max-lead-ms", po::value<std::string>(),
      "how far (ms) an ID's time may run ahead of the clock when more IDs are asked for than "
      "the layout issues per tick; beyond it gen waits (default 2000)")("help,h",
                                                                        "print this help");
  AddRegistryOptions(options);
  po::variables_map vm;
  ParseArgs("steadyflake", "gen", args, options, nullptr, vm);
  if (vm.count("help") != 0) {
    PrintHelp(
        "steadyflake gen --server-id N [--count K] [--layout L] [--epoch TIME]\n"
        "                        [--state-dir D | --no-state] [--resume-after ID]\n"
        "                        [--max-lead-ms M]\n"
        "       steadyflake gen --registry URL[,URL...] [--registry-prefix P]\n"
        "                        --server-id N|auto [--server-range LO-HI] [--lease-ttl-ms T] ...",
        "Prints K new IDs for server N, in decimal, one per line, strictly increasing.\n"
        "A state file in the state folder keeps every run's IDs above the previous run's,\n"
        "even if the wall clock was set back; it is locked while gen runs.\n"
        "With --registry the server id is claimed on etcd (refused, naming the holder, when\n"
        "another process holds it) and the reserved time is kept there instead (docs/fleet.md).",
        options);
    return kExitOk;
  }

  Generator::Options generator_options;
  generator_options.layout = ResolveLayout(vm);
  const Layout& layout = generator_options.layout;
  const std::string server_range = "[0, " + std::to_string(layout.max_server_id()) + "]";

  if (vm.count("server-id") == 0) {
    throw CliError("missing --server-id",
                   "pass this server's id in " + server_range + ", e.g. --server-id 7");
  }
  const std::optional<registry::Options> fleet = ReadRegistryOptions(vm, "steadyflake gen");
  if (fleet && (vm.count("state-dir") != 0 || vm.count("no-state") != 0)) {
    throw CliError("--registry and --state-dir/--no-state contradict each other",
                   "with --registry the reserved time lives on etcd: drop the state option");
  }
  // The engine owns the server-id rule and names the range; only text that is no uint64 at all
  // is rejected here, with the layout's range.
  if (!fleet && vm["server-id"].as<std::string>() == "auto") {
    throw CliError("--server-id auto needs --registry",
                   "pass --registry http://HOST:PORT, or a server id in " + server_range);
  }
  if (!fleet) try {
      generator_options.server_id =
          ParseUnsignedOption("--server-id", vm["server-id"].as<std::string>(), 0, UINT64_MAX);
    } catch (const CliError&) {
      throw CliError("bad --server-id " + Quote(vm["server-id"].as<std::string>()) +
                         ": not an integer in " + server_range,
                     "pass this server's id in " + server_range);
    }
  const uint64_t count =
      ParseUnsignedOption("--count", vm["count"].as<std::string>(), 1, INT64_MAX);
  if (vm.count("resume-after") != 0) {
    generator_options.resume_after = static_cast<Id>(
        ParseUnsignedOption("--resume-after", vm["resume-after"].as<std::string>(), 0, INT64_MAX));
  }
  if (vm.count("max-lead-ms") != 0) {
    // Any number passes through; the engine owns the ceiling and the reservation beyond it.
    generator_options.max_lead = std::chrono::milliseconds(
        ParseUnsignedOption("--max-lead-ms", vm["max-lead-ms"].as<std::string>(), 0, INT64_MAX));
  }

  const bool no_state = vm.count("no-state") != 0;
  if (no_state && vm.count("state-dir") != 0) {
    throw CliError("--no-state and --state-dir contradict each other", "pass one of them");
  }
  if (fleet) {
    // The reservation lives on etcd.
  } else if (no_state) {
    std::fprintf(stderr,
                 "steadyflake: warning: --no-state keeps no state file, so IDs may repeat across "
                 "runs; drop --no-state to keep them increasing\n");
  } else {
    // The generator creates the folder, parents included.
    std::string dir =
        vm.count("state-dir") != 0 ? vm["state-dir"].as<std::string>() : DefaultStateDir();
    generator_options.state_dir = std::move(dir);
  }

  if (fleet) {
    // Claimed after every option was read and before any ID exists: a refused id prints nothing.
    auto store =
        ClaimServerId(*fleet, layout, vm["server-id"].as<std::string>(),
                      vm.count("server-range") != 0
                          ? std::optional<std::string>(vm["server-range"].as<std::string>())
                          : std::nullopt,
                      "steadyflake gen");
    generator_options.server_id = store->server_id();
    generator_options.reservation_store = std::move(store);
  }
  const std::unique_ptr<Generator> generator = MakeGenerator(generator_options);
  std::optional<LostWatch> watch;
  if (fleet) watch.emplace(*generator);
  const uint64_t chunk = std::min(kChunk, generator->max_batch());
  Output out(stdout);
  constexpr std::size_t kMaxLine = 21;  // 19 digits of an int64, a newline, and slack
  for (uint64_t left = count; left > 0;) {
    const uint64_t n = std::min(left, chunk);
    const IdRange ids = generator->next_batch(n);
    for (const Id id : ids) {
      char* const begin = out.Reserve(kMaxLine);
      char* const end = std::to_chars(begin, begin + kMaxLine, id).ptr;
      *end = '\n';
      out.Commit(end + 1);
    }
    left -= n;
  }
  out.Flush();
  if (const std::string error = generator->state_error(); !error.empty()) {
    std::fprintf(stderr, "steadyflake: warning: %s: %s\n", fleet ? "registry" : "state file",
                 error.c_str());
  }
  return kExitOk;
}

}  // namespace steadyflake::cli
