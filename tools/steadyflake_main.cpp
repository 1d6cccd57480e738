// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// steadyflake: the command-line tool. `steadyflake layout|gen|decode|merge-check|merge-plan
// [options]`; see docs/cli.md and docs/merging.md. main() only dispatches and turns every failure
// into one line on stderr and a documented exit status: 0 success, 2 usage or input error, 141
// standard output closed early; merge-check adds 1 (a key overlaps) and 3 (a shared server id),
// merge-plan 4 (unresolved items).

#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli.h"
#include "steadyflake/steadyflake.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

namespace {

constexpr char kUsage[] =
    "Usage: steadyflake <command> [options]\n"
    "       steadyflake --help | --version\n"
    "\n"
    "64-bit IDs for game servers: unique across servers, ordered by time, safe across\n"
    "restarts and wall-clock rollback.\n"
    "\n"
    "Commands:\n"
    "  layout   print the figures of an ID layout (bits, lifetime, servers, IDs per second)\n"
    "  gen      issue IDs for one server id, one per line\n"
    "  decode   split IDs into time, server id and sequence\n"
    "  merge-check  check two shards (SQLite files or SQL dumps) for colliding keys\n"
    "  merge-plan   plan the rewrite of shard B that lets it merge into shard A\n"
    "  merge        merge shard B into shard A as planned, and verify it\n"
    "  registry list  the server ids held or reserved on etcd (fleets)\n"
    "  resume-point   the ID a server resumes after without its state folder (restore, merge)\n"
    "\n"
    "Run 'steadyflake <command> --help' for the options of a command.\n"
    "Exit status: 0 success; 2 usage or input error (one line on stderr);\n"
    "141 standard output closed before all output was written (e.g. '| head');\n"
    "merge-check: 1 a key overlaps, 3 a server id issued IDs in both shards;\n"
    "merge-plan: 4 plan written, but items remain unresolved;\n"
    "merge: 1 verification failed (nothing written).\n";

}  // namespace

int Run(const std::vector<std::string>& args) {
  if (args.empty()) {
    throw CliError("missing command",
                   "run 'steadyflake --help' for the commands (layout, gen, decode, merge-check, "
                   "merge-plan, merge)");
  }
  const std::string& command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "layout") return RunLayout(rest);
  if (command == "gen") return RunGen(rest);
  if (command == "decode") return RunDecode(rest);
  if (command == "merge-check") return RunMergeCheck(rest);
  if (command == "merge-plan") return RunMergePlan(rest);
  if (command == "merge") return RunMerge(rest);
  if (command == "registry") return RunRegistry(rest);
  if (command == "resume-point") return RunResumePoint(rest);
  if (command.empty() || command[0] != '-') {
    throw CliError("unknown command " + Quote(command),
                   "run 'steadyflake --help' for the commands (layout, gen, decode, merge-check, "
                   "merge-plan, merge)");
  }

  // Top-level options only.
  po::options_description options("Options");
  options.add_options()("help,h", "print this help")("version", "print the version");
  po::variables_map vm;
  ParseArgs("steadyflake", "", args, options, nullptr, vm);
  Output out(stdout, 4096);
  if (vm.count("help") != 0) {
    out.Append(kUsage);
  } else {
    out.Append("steadyflake " STEADYFLAKE_VERSION "\n");
  }
  out.Flush();
  return kExitOk;
}

}  // namespace steadyflake::cli

namespace {

// Prints "steadyflake: <problem>; <fix>" as one line and returns the error status.
int Fail(std::string line) {
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::fprintf(stderr, "steadyflake: %s\n", line.c_str());
  return steadyflake::cli::kExitError;
}

}  // namespace

int main(int argc, char** argv) {
  // A closed standard output shows up as EPIPE from fwrite, which ends the run quietly with
  // status 141, instead of a SIGPIPE that would kill the process mid-write.
  std::signal(SIGPIPE, SIG_IGN);
  namespace cli = steadyflake::cli;
  try {
    return cli::Run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const cli::OutputClosed&) {
    return cli::kExitOutputClosed;
  } catch (const cli::CliError& e) {
    return Fail(e.what());
  } catch (const steadyflake::Error& e) {
    return Fail(std::string(e.what()) + "; run 'steadyflake --help' for the usage");
  } catch (const boost::program_options::error& e) {
    return Fail(std::string(e.what()) + "; run 'steadyflake --help' for the usage");
  } catch (const std::exception& e) {
    return Fail(std::string(e.what()) + "; please report this as a bug");
  }
}
