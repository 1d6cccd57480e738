// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal to the steadyflake binaries (the `steadyflake` CLI and `steadyflake-server`); may
// change between releases.
//
// What both command lines share, so a mistake reads the same in either: the one-line error a
// user can fix, and option parsing over Boost.Program_options.

#ifndef STEADYFLAKE_TOOLS_COMMAND_LINE_H_
#define STEADYFLAKE_TOOLS_COMMAND_LINE_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

namespace steadyflake::cli {

// A problem the user can fix. what() is "<problem>; <fix>" on one line (newlines in either part
// are replaced by spaces); just "<problem>" when `fix` is empty because `problem` already ends
// with one. Each binary's main() prints it and exits 2.
class CliError : public std::runtime_error {
 public:
  CliError(const std::string& problem, const std::string& fix);
};

// Parses `args` (without the program name, or the subcommand's name) into `vm` and notifies it.
// Throws CliError for anything Boost.Program_options rejects (unknown option, missing value,
// repeated option), pointing at `<program> [<command>] --help`; `command` may be empty.
// `positional` may be null: then any positional argument is an error. If `negative_option` is
// given, a token that looks like a negative number ("-12") is a value of that (composing)
// option rather than an unknown option, so the caller can say what is wrong with it.
void ParseArgs(std::string_view program, std::string_view command,
               const std::vector<std::string>& args,
               const boost::program_options::options_description& options,
               const boost::program_options::positional_options_description* positional,
               boost::program_options::variables_map& vm, const char* negative_option = nullptr);

// `text` in single quotes for an error message: printable ASCII as it is, any other byte as
// \xNN (a command line may hold anything), cut after 40 bytes with "...".
std::string QuoteArgument(std::string_view text);

// Parses a whole decimal integer in [min, max] for option `option` (e.g. "--count"); throws
// CliError naming the option, the text and the range otherwise.
uint64_t ParseUnsignedOption(std::string_view option, std::string_view text, uint64_t min,
                             uint64_t max);

}  // namespace steadyflake::cli

#endif  // STEADYFLAKE_TOOLS_COMMAND_LINE_H_
