// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// `steadyflake decode [--layout L] [--epoch TIME] [--json] [ID...]`: one line per ID,
//   <id> <time, ISO-8601 UTC with ms> server=<n> seq=<n>
// or with --json
//   {"id":"<id>","time":"<ISO-8601 ms>","server_id":<n>,"sequence":<n>}
// IDs come from the arguments, or else from standard input, separated by whitespace.

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cli.h"
#include "steadyflake/id_format.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

namespace {

// Bytes read from standard input at a time.
constexpr std::size_t kReadChunk = std::size_t{1} << 20;

bool IsSpace(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Decodes IDs into an Output. Not thread-safe.
class Decoder {
 public:
  Decoder(const Layout& layout, bool json, Output& out)
      : layout_(layout), out_(out), format_(json ? DecodedFormat::kJson : DecodedFormat::kLine) {}

  // Decodes one token and appends its line. On a token that is not an ID of the layout, writes
  // out the lines so far and throws CliError naming the token and its position.
  void Decode(std::string_view token) {
    ++position_;
    Id id = 0;
    const char* const end = token.data() + token.size();
    const auto [ptr, ec] = std::from_chars(token.data(), end, id);
    if (ec != std::errc() || ptr != end || id < 0 || id > layout_.max_id()) [[unlikely]] {
      Reject(token, ec, ptr == end);
    }
    char* p = FormatDecoded(id, layout_.Decode(id), format_, out_.Reserve(kDecodedMaxLength + 1));
    *p++ = '\n';
    out_.Commit(p);
  }

 private:
  [[noreturn]] void Reject(std::string_view token, std::errc ec, bool whole) {
    out_.Flush();
    std::string why;
    if (!token.empty() && token[0] == '-') {
      why = "negative";
    } else if (ec == std::errc::result_out_of_range) {
      why = "larger than the largest ID, 9223372036854775807";
    } else if (ec != std::errc() || !whole) {
      why = "not a decimal integer";
    } else {
      why = "larger than layout " + layout_.ToString() + " holds (" +
            std::to_string(layout_.time_bits() + layout_.server_bits() + layout_.sequence_bits()) +
            " bits)";
    }
    throw CliError("bad ID #" + std::to_string(position_) + " " + Quote(token) + ": " + why,
                   "IDs are decimal integers in [0, " + std::to_string(layout_.max_id()) +
                       "] (check the input and --layout)");
  }

  const Layout& layout_;
  Output& out_;
  const DecodedFormat format_;
  uint64_t position_ = 0;  // 1-based number of the token being decoded
};

// Splits standard input at whitespace and decodes every token, reading kReadChunk bytes at a
// time; a token cut by a chunk boundary is carried over to the next read.
void DecodeStdin(Decoder& decoder) {
  const std::unique_ptr<char[]> buffer(new char[kReadChunk]);
  std::size_t carried = 0;  // bytes of an unfinished token at the start of buffer
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer.get() + carried, kReadChunk - carried);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw CliError(std::string("cannot read standard input: ") + std::strerror(errno),
                     "pass the IDs as arguments or fix the input");
    }
    const bool eof = n == 0;
    const char* p = buffer.get();
    const char* const end = buffer.get() + carried + static_cast<std::size_t>(n);
    carried = 0;
    while (p < end) {
      while (p < end && IsSpace(*p)) ++p;
      const char* const start = p;
      while (p < end && !IsSpace(*p)) ++p;
      if (start == p) break;
      if (p == end && !eof) {
        const auto length = static_cast<std::size_t>(p - start);
        if (length == kReadChunk) {
          // A token that fills the whole buffer is no ID: let the decoder name it.
          decoder.Decode(std::string_view(start, length));
        } else {
          std::memmove(buffer.get(), start, length);
          carried = length;
        }
        break;
      }
      decoder.Decode(std::string_view(start, static_cast<std::size_t>(p - start)));
    }
    if (eof) return;
  }
}

}  // namespace

int RunDecode(const std::vector<std::string>& args) {
  po::options_description visible("Options");
  visible.add_options()("layout", po::value<std::string>()->default_value("game"),
                        "the layout the IDs were made with: game, snowflake or T/S/Q@<n>ms")(
      "epoch", po::value<std::string>(),
      "the layout's start of time if not its own: YYYY-MM-DD, "
      "YYYY-MM-DDTHH:MM:SS[.fff]Z or Unix ms")(
      "json", "one JSON object per line; the id is a string (JavaScript loses digits)")(
      "help,h", "print this help");
  po::options_description all;
  all.add(visible).add_options()("id", po::value<std::vector<std::string>>()->composing(), "IDs");
  po::positional_options_description positional;
  positional.add("id", -1);
  po::variables_map vm;
  ParseArgs("steadyflake", "decode", args, all, &positional, vm, "id");
  if (vm.count("help") != 0) {
    PrintHelp("steadyflake decode [--layout L] [--epoch TIME] [--json] [ID...]",
              "Splits IDs into the start of their tick, server id and sequence. Without ID\n"
              "arguments it reads IDs separated by whitespace from standard input. Output,\n"
              "one line per ID:\n"
              "  <id> <YYYY-MM-DDTHH:MM:SS.mmmZ> server=<n> seq=<n>\n"
              "  {\"id\":\"<id>\",\"time\":\"<...>\",\"server_id\":<n>,\"sequence\":<n>}  "
              "(--json)\n"
              "Stops at the first token that is not an ID of the layout (exit 2).",
              visible);
    return kExitOk;
  }
  const Layout layout = ResolveLayout(vm);

  Output out(stdout);
  Decoder decoder(layout, vm.count("json") != 0, out);
  if (vm.count("id") != 0) {
    for (const std::string& token : vm["id"].as<std::vector<std::string>>()) {
      decoder.Decode(token);
    }
  } else {
    DecodeStdin(decoder);
  }
  out.Flush();
  return kExitOk;
}

}  // namespace steadyflake::cli
