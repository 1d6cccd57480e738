// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "command_line.h"

#include <charconv>
#include <cstdio>

namespace steadyflake::cli {
namespace po = boost::program_options;

namespace {

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

CliError::CliError(const std::string& problem, const std::string& fix)
    : std::runtime_error(OneLine(fix.empty() ? problem : problem + "; " + fix)) {}

void ParseArgs(std::string_view program, std::string_view command,
               const std::vector<std::string>& args, const po::options_description& options,
               const po::positional_options_description* positional, po::variables_map& vm,
               const char* negative_option) {
  try {
    po::command_line_parser parser(args);
    parser.options(options);
    if (negative_option != nullptr) {
      parser.extra_parser([negative_option](const std::string& token) {
        if (token.size() >= 2 && token[0] == '-' && token[1] >= '0' && token[1] <= '9') {
          return std::make_pair(std::string(negative_option), token);
        }
        return std::make_pair(std::string(), std::string());
      });
    }
    if (positional != nullptr) {
      parser.positional(*positional);
    } else {
      // No positional arguments: any is an error (po reports "too many positional options").
      static const po::positional_options_description kNone;
      parser.positional(kNone);
    }
    po::store(parser.run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::string help(program);
    if (!command.empty()) help += " " + std::string(command);
    throw CliError(command.empty() ? e.what() : std::string(command) + ": " + e.what(),
                   "run '" + help + " --help' for the options");
  }
}

std::string QuoteArgument(std::string_view text) {
  constexpr std::size_t kMaxShown = 40;
  std::string out = "'";
  for (const char c : text.substr(0, kMaxShown)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof(escaped), "\\x%02X", byte);
      out += escaped;
    }
  }
  if (text.size() > kMaxShown) out += "...";
  out += "'";
  return out;
}

uint64_t ParseUnsignedOption(std::string_view option, std::string_view text, uint64_t min,
                             uint64_t max) {
  uint64_t value = 0;
  const char* const end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, a known false positive, GCC bug
  // 105329) on "literal" + std::to_string(...) here.
  std::string range = "[";
  range.append(std::to_string(min)).append(", ").append(std::to_string(max)).append("]");
  if (ec == std::errc() && ptr == end && min <= value && value <= max) return value;
  std::string why = "not a decimal integer";
  if (!text.empty() && text[0] == '-') {
    why = "negative";
  } else if (ec == std::errc::result_out_of_range || (ec == std::errc() && ptr == end)) {
    why = "out of range " + range;
  }
  throw CliError("bad " + std::string(option) + " " + QuoteArgument(text) + ": " + why,
                 "pass an integer in " + range);
}

}  // namespace steadyflake::cli
