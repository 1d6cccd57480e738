// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// What the subcommands share: errors, buffered output, option parsing, layout resolution.

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "cli.h"
#include "steadyflake/error.h"
#include "steadyflake/generator.h"
#include "steadyflake/time_format.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

CliError FromEngine(std::string_view context, const std::exception& error, const std::string& fix) {
  const std::string message = error.what();
  const bool has_fix = message.find("; ") != std::string::npos;
  return CliError(std::string(context) + message, has_fix ? std::string() : fix);
}

Output::Output(std::FILE* stream, std::size_t capacity)
    : stream_(stream), buffer_(new char[capacity]), capacity_(capacity) {}

void Output::Append(std::string_view text) {
  while (!text.empty()) {
    if (size_ == capacity_) Drain();
    const std::size_t n = std::min(text.size(), capacity_ - size_);
    std::memcpy(buffer_.get() + size_, text.data(), n);
    size_ += n;
    text.remove_prefix(n);
  }
}

void Output::Drain() {
  if (size_ == 0) return;
  errno = 0;
  const std::size_t written = std::fwrite(buffer_.get(), 1, size_, stream_);
  if (written != size_) {
    const int error = errno;
    size_ = 0;
    if (error == EPIPE) throw OutputClosed();
    throw CliError(std::string("cannot write standard output: ") + std::strerror(error),
                   "check the disk or the program reading the output");
  }
  size_ = 0;
}

void Output::Flush() {
  Drain();
  errno = 0;
  if (std::fflush(stream_) != 0) {
    const int error = errno;
    if (error == EPIPE) throw OutputClosed();
    throw CliError(std::string("cannot write standard output: ") + std::strerror(error),
                   "check the disk or the program reading the output");
  }
}

std::string Quote(std::string_view text) {
  constexpr std::size_t kMaxShown = 40;
  std::string out = "'";
  mergecheck::AppendEscaped(out, text.substr(0, kMaxShown), mergecheck::Escape::kNonAscii);
  if (text.size() > kMaxShown) out += "...";
  out += "'";
  return out;
}

void StopHereForTest(const std::string& stage) {
  const char* stop_at = std::getenv("STEADYFLAKE_TEST_STOP_AT");
  const char* stop_fifo = std::getenv("STEADYFLAKE_TEST_STOP_FIFO");
  if (stop_at == nullptr || stop_fifo == nullptr || stage != stop_at) return;
  if (std::FILE* f = std::fopen(stop_fifo, "w")) {
    std::fprintf(f, "%s\n", stage.c_str());
    std::fclose(f);
  }
  ::raise(SIGSTOP);
}

Layout ResolveLayout(const po::variables_map& vm) {
  const std::string& spec = vm["layout"].as<std::string>();
  std::optional<std::string> epoch;
  if (vm.count("epoch") != 0) epoch = vm["epoch"].as<std::string>();
  std::optional<Layout> layout;
  try {
    layout = Layout::Parse(spec);
  } catch (const Error& e) {
    throw FromEngine("bad --layout: ", e,
                     "use game, snowflake or T/S/Q@<n>ms with T + S + Q <= 63, e.g. 37/16/10@10ms");
  }
  if (!epoch) return *layout;
  int64_t epoch_ms = 0;
  try {
    epoch_ms = ParseTime(*epoch);
  } catch (const Error& e) {
    throw FromEngine("bad --epoch: ", e,
                     "use YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS[.fff]Z or Unix milliseconds");
  }
  try {
    return layout->WithEpoch(epoch_ms);
  } catch (const Error& e) {
    throw FromEngine("bad --epoch " + Quote(*epoch) + ": ", e,
                     "choose an epoch from 1970 on whose lifetime ends before year 10000");
  }
}

void PrintHelp(std::string_view usage, std::string_view about,
               const po::options_description& options) {
  std::ostringstream text;
  text << "Usage: " << usage << "\n\n" << about << "\n\n" << options;
  Output out(stdout, 4096);
  out.Append(text.str());
  out.Flush();
}

// The per-user state folder used without --state-dir (documented in docs/cli.md):
// $STEADYFLAKE_STATE_DIR, else $XDG_STATE_HOME/steadyflake (if absolute, as the XDG spec
// requires), else $HOME/.local/state/steadyflake.
std::string DefaultStateDir() {
  if (const char* dir = std::getenv("STEADYFLAKE_STATE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg != nullptr && *xdg == '/') {
    return std::string(xdg) + "/steadyflake";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.local/state/steadyflake";
  }
  throw CliError("no state folder: none of STEADYFLAKE_STATE_DIR, XDG_STATE_HOME and HOME is set",
                 "pass --state-dir D, or --no-state to accept IDs that may repeat across runs");
}

std::unique_ptr<Generator> MakeGenerator(const Generator::Options& options) {
  try {
    return std::make_unique<Generator>(options);
  } catch (const Error& e) {
    // The engine decides what is valid (server id range, max_lead ceiling) and says so; this
    // adds only the fix in the CLI's terms where its message has none.
    std::string fix;
    switch (e.code()) {
      case Error::Code::kInvalidArgument:
        fix = "run 'steadyflake gen --help' for the options";
        break;
      case Error::Code::kLocked:
        fix =
            "wait for that process to finish; never run two generators with the same "
            "--server-id at once";
        break;
      case Error::Code::kState:
        fix =
            "the state file is never replaced automatically: fix its permissions, or use the "
            "--layout, --epoch and --server-id it was written with";
        break;
      case Error::Code::kClock:
        fix = "check the system clock, --layout and --epoch";
        break;
      case Error::Code::kLost:
        fix = "another process owns this --server-id now; start again with a free one";
        break;
    }
    throw FromEngine("", e, fix);
  }
}

// "TABLE:COL[,COL]" -> the extra key; throws CliError naming the text otherwise.
mergecheck::Options::ExtraKey ParseKeyOption(const std::string& text) {
  const std::size_t colon = text.find(':');
  mergecheck::Options::ExtraKey key;
  if (colon != std::string::npos && colon > 0) {
    key.table = text.substr(0, colon);
    std::size_t start = colon + 1;
    for (;;) {
      const std::size_t comma = text.find(',', start);
      key.columns.push_back(text.substr(start, comma - start));
      if (key.columns.back().empty()) break;
      if (comma == std::string::npos) return key;
      start = comma + 1;
    }
  }
  throw CliError("bad --key " + Quote(text) + ": not TABLE:COL[,COL]",
                 "name a table and its columns, e.g. --key item:owner,slot");
}

// "TABLE:COL" of `option` -> the column; throws CliError naming the text otherwise.
mergecheck::Options::Column ParseColumnOption(const std::string& option, const std::string& text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size() ||
      text.find_first_of(":,", colon + 1) != std::string::npos) {
    throw CliError("bad " + option + " " + Quote(text) + ": not TABLE:COL",
                   "name a table and one column, e.g. " + option + " player:id");
  }
  return {text.substr(0, colon), text.substr(colon + 1)};
}

std::vector<std::string> ParseWithTwoInputs(std::string_view command,
                                            const std::vector<std::string>& args,
                                            const po::options_description& visible,
                                            std::string_view usage, std::string_view about,
                                            std::string_view run, po::variables_map& vm) {
  po::options_description all;
  all.add(visible).add_options()("input", po::value<std::vector<std::string>>()->composing(),
                                 "inputs");
  po::positional_options_description positional;
  positional.add("input", -1);
  ParseArgs("steadyflake", command, args, all, &positional, vm);
  if (vm.count("help") != 0) {
    PrintHelp(usage, about, visible);
    return {};
  }
  std::vector<std::string> inputs;
  if (vm.count("input") != 0) inputs = vm["input"].as<std::vector<std::string>>();
  if (inputs.size() != 2) {
    throw CliError(std::string(command) + " needs two inputs, got " + std::to_string(inputs.size()),
                   "run '" + std::string(run) + "'");
  }
  return inputs;
}

void AddCheckOptions(po::options_description& options) {
  options.add_options()("layout", po::value<std::string>()->default_value("game"),
                        "the layout the IDs were made with: game, snowflake or T/S/Q@<n>ms")(
      "epoch", po::value<std::string>(),
      "the layout's start of time if not its own: YYYY-MM-DD, "
      "YYYY-MM-DDTHH:MM:SS[.fff]Z or Unix ms")(
      "key", po::value<std::vector<std::string>>()->composing(),
      "TABLE:COL[,COL]: also check these columns as a key (repeatable)")(
      "id-column", po::value<std::vector<std::string>>()->composing(),
      "TABLE:COL: take server ids from this integer key too, even one judged legacy "
      "(repeatable)")("not-id-column", po::value<std::vector<std::string>>()->composing(),
                      "TABLE:COL: take no server ids from this integer key (repeatable)")(
      "refs", po::value<std::string>(),
      "FILE of references the schema does not declare, lines 'item.owner_id -> player.id'")(
      "table", po::value<std::vector<std::string>>()->composing(),
      "only this table (repeatable; names are case-sensitive)");
}

void ReadCheckOptions(const po::variables_map& vm, mergecheck::Options& options) {
  if (vm.count("key") != 0) {
    for (const std::string& key : vm["key"].as<std::vector<std::string>>()) {
      options.extra_keys.push_back(ParseKeyOption(key));
    }
  }
  for (const char* option : {"id-column", "not-id-column"}) {
    if (vm.count(option) == 0) continue;
    auto& list = std::string(option) == "id-column" ? options.id_columns : options.not_id_columns;
    for (const std::string& text : vm[option].as<std::vector<std::string>>()) {
      list.push_back(ParseColumnOption(std::string("--") + option, text));
    }
  }
  if (vm.count("refs") != 0) options.references = ReadRefsFile(vm["refs"].as<std::string>());
  if (vm.count("table") != 0) options.tables = vm["table"].as<std::vector<std::string>>();
}

std::vector<mergecheck::Options::Reference> ReadRefsFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw CliError("cannot read --refs file " + Quote(path) + ": " + std::strerror(errno),
                   "pass a readable file of lines 'item.owner_id -> player.id'");
  }
  std::vector<mergecheck::Options::Reference> refs;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::string text;
    for (const char c : line) {
      if (c != ' ' && c != '\t' && c != '\r') text += c;
    }
    if (text.empty()) continue;
    const std::size_t arrow = text.find("->");
    auto split = [](const std::string& s, std::string& table, std::string& column) {
      const std::size_t dot = s.rfind('.');
      if (dot == std::string::npos || dot == 0 || dot + 1 == s.size()) return false;
      table = s.substr(0, dot);
      column = s.substr(dot + 1);
      return true;
    };
    mergecheck::Options::Reference r;
    if (arrow == std::string::npos || !split(text.substr(0, arrow), r.table, r.column) ||
        !split(text.substr(arrow + 2), r.ref_table, r.ref_column)) {
      throw CliError(path + ":" + std::to_string(number) + ": " + Quote(line) +
                         " is not TABLE.COLUMN -> TABLE.COLUMN",
                     "write one reference per line, e.g. 'item.owner_id -> player.id' "
                     "('#' starts a comment)");
    }
    refs.push_back(std::move(r));
  }
  return refs;
}

}  // namespace steadyflake::cli
