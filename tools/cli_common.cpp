// Copyright 2026 The steadyflake Authors.
//
// What the subcommands share: errors, buffered output, option parsing, layout resolution.

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>
#include <system_error>

#include "cli.h"
#include "steadyflake/error.h"
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
  throw CliError("bad " + std::string(option) + " " + Quote(text) + ": " + why,
                 "pass an integer in " + range);
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

}  // namespace steadyflake::cli
