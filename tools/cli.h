// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal to the `steadyflake` command-line tool; may change between releases.
//
// The tool is a thin main() (steadyflake_main.cpp) over one function per subcommand. Every
// subcommand reports a problem the user can fix by throwing CliError, whose text is one line
// "<problem>; <fix>"; main() prints it as "steadyflake: <problem>; <fix>" and exits 2.
// Standard output goes through Output, a big buffer written with fwrite; when the reader of
// standard output has gone (EPIPE, e.g. `steadyflake gen ... | head`), Output throws
// OutputClosed and main() exits 141 without a message.

#ifndef STEADYFLAKE_TOOLS_CLI_H_
#define STEADYFLAKE_TOOLS_CLI_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "command_line.h"
#include "steadyflake/generator.h"
#include "steadyflake/layout.h"
#include "steadyflake/mergecheck/mergecheck.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::cli {

// Exit statuses, documented in docs/cli.md.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 2;  // usage, input, layout, state-file or lock problem
// merge-check's verdicts beside kExitOk (safe) and kExitError (could not check).
inline constexpr int kExitConflict = 1;  // a key overlaps
inline constexpr int kExitRisk = 3;      // no overlap, but a server id issues IDs in both inputs
// merge-plan: the plan was written, but some conflicts remain unresolved (listed).
inline constexpr int kExitUnresolved = 4;
// Standard output was closed by its reader: what a shell reports for a process killed by
// SIGPIPE (128 + 13), so `set -o pipefail` scripts see the same status as for `yes | head`.
inline constexpr int kExitOutputClosed = 141;

// A CliError for an Error thrown by the engine: "<context><engine message>", plus `fix` unless
// the engine's message already says what to do (it has a "; <fix>" part of its own).
CliError FromEngine(std::string_view context, const std::exception& error, const std::string& fix);

// Thrown by Output when the reader of standard output has gone (EPIPE).
class OutputClosed : public std::exception {
 public:
  const char* what() const noexcept override { return "standard output closed"; }
};

// Buffered writer over a stdio stream, for output of millions of lines: callers format straight
// into the buffer (Reserve/Commit) and the buffer goes out with one fwrite when full.
// Not thread-safe. The destructor does not flush: call Flush() and let it throw.
class Output {
 public:
  static constexpr std::size_t kDefaultCapacity = std::size_t{1} << 20;

  explicit Output(std::FILE* stream, std::size_t capacity = kDefaultCapacity);
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  // Returns room for at least `n` chars (REQUIRES: n <= capacity), writing the buffer out
  // first if needed. Write at most `n` chars and pass the end to Commit().
  char* Reserve(std::size_t n) {
    if (capacity_ - size_ < n) Drain();
    return buffer_.get() + size_;
  }
  void Commit(char* end) { size_ = static_cast<std::size_t>(end - buffer_.get()); }

  void Append(std::string_view text);

  // Writes out everything buffered and flushes the stream. Throws OutputClosed on EPIPE and
  // CliError on any other write error (e.g. a full disk).
  void Flush();

 private:
  void Drain();  // writes the buffer out (no fflush); throws like Flush()

  std::FILE* stream_;
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_;
  std::size_t size_ = 0;
};

// `text` quoted for an error message: in single quotes, at most 40 chars (then "..."), bytes
// that are not printable ASCII as \xNN, so a message stays on one line.
std::string Quote(std::string_view text);

using mergecheck::GroupThousands;

// The fault tests' seam (docs/testing.md): when STEADYFLAKE_TEST_STOP_AT names `stage` and
// STEADYFLAKE_TEST_STOP_FIFO a FIFO, writes the stage's name to the FIFO and stops the process
// (SIGSTOP) for the test to kill -9 it there. Nothing otherwise.
void StopHereForTest(const std::string& stage);

// The layout the user chose with options --layout (a string, with a default) and --epoch
// (optional): Layout::Parse, then WithEpoch(ParseTime(epoch)) if an epoch is given. Throws
// CliError naming --layout or --epoch, with the engine's reason.
Layout ResolveLayout(const boost::program_options::variables_map& vm);

// The per-user state folder of a generator without --state-dir (documented in docs/cli.md):
// $STEADYFLAKE_STATE_DIR, else $XDG_STATE_HOME/steadyflake (if absolute, as the XDG spec
// requires), else $HOME/.local/state/steadyflake. Throws CliError when none is set.
std::string DefaultStateDir();

// A generator for `options`; the engine's Error becomes a CliError with the fix in the CLI's
// terms.
std::unique_ptr<Generator> MakeGenerator(const Generator::Options& options);

// merge-check's and merge-plan's shared options: "TABLE:COL[,COL]" (--key) and "TABLE:COL"
// (--id-column, --not-id-column); and a --refs file, lines `item.owner_id -> player.id`, `#`
// comments, blank lines. Throw CliError naming the text (the file and line).
mergecheck::Options::ExtraKey ParseKeyOption(const std::string& text);
mergecheck::Options::Column ParseColumnOption(const std::string& option, const std::string& text);
std::vector<mergecheck::Options::Reference> ReadRefsFile(const std::string& path);
// Declares those options, and --layout and --epoch (ResolveLayout reads them), in `options`.
void AddCheckOptions(boost::program_options::options_description& options);
// Fills `options` from those options in `vm` (--key, --id-column, --not-id-column, --refs,
// --table), each parsed as above.
void ReadCheckOptions(const boost::program_options::variables_map& vm,
                      mergecheck::Options& options);

// Writes a subcommand's help ("Usage: ...", what it does, its options) to standard output.
void PrintHelp(std::string_view usage, std::string_view about,
               const boost::program_options::options_description& options);

// Parses `args` of a command that takes two inputs, A and B, as positional arguments beside
// `visible` into `vm`. With --help, prints `usage`, `about` and the options and returns empty;
// else returns A and B. Throws CliError unless there are exactly two (`run` says how to run
// the command).
std::vector<std::string> ParseWithTwoInputs(
    std::string_view command, const std::vector<std::string>& args,
    const boost::program_options::options_description& visible, std::string_view usage,
    std::string_view about, std::string_view run, boost::program_options::variables_map& vm);

// The subcommands. `args` are the arguments after the subcommand's name. Each returns the exit
// status, prints its output on stdout and throws CliError, OutputClosed, or (for what it does
// not anticipate) steadyflake::Error or std::exception.
int RunLayout(const std::vector<std::string>& args);
int RunGen(const std::vector<std::string>& args);
int RunDecode(const std::vector<std::string>& args);
// Returns the merge checker's own statuses: 0 safe, 1 a key overlaps, 3 a shared server id.
int RunMergeCheck(const std::vector<std::string>& args);
// Returns 0 plan written (or nothing to do), 4 written with unresolved items (kExitUnresolved).
int RunMergePlan(const std::vector<std::string>& args);
// Returns 0 merged and verified, 1 verification failed (kExitConflict: nothing written).
int RunMerge(const std::vector<std::string>& args);
// `steadyflake registry list` (cli_registry.cpp).
int RunRegistry(const std::vector<std::string>& args);
// `steadyflake resume-point DB --server-id N` (cli_resume_point.cpp).
int RunResumePoint(const std::vector<std::string>& args);

// kExitOk, kExitConflict or kExitRisk for a merge-check verdict.
int ExitStatusOf(mergecheck::Report::Verdict verdict);

// Dispatches `args` (argv without the program name) to a subcommand, or handles --help and
// --version. Returns the exit status; throws like the subcommands.
int Run(const std::vector<std::string>& args);

}  // namespace steadyflake::cli

#endif  // STEADYFLAKE_TOOLS_CLI_H_
