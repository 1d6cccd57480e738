// Copyright 2026 The steadyflake Authors.

#include "command_line.h"

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

}  // namespace steadyflake::cli
