// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "dump/dump_error.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "dump/byte_stream.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck::dump {

void FailAt(const std::string& path, uint64_t line, std::string_view problem,
            std::string_view fix) {
  std::string message = path;
  message += ':';
  message += std::to_string(line);
  message += ": ";
  // The problem may quote the dump (a table's or a column's name): escaped, so the message
  // stays one line of printable text.
  AppendEscaped(message, problem, Escape::kNonAscii);
  message += "; ";
  message += fix;
  throw Error(Error::Code::kInvalidArgument, message);
}

size_t CountLines(std::string_view text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

uint64_t LineOfOffset(const std::string& path, bool gzip, uint64_t offset) {
  std::unique_ptr<ByteStream> in = OpenByteStream(path, gzip);
  std::vector<char> chunk(1 << 20);
  uint64_t line = 1, seen = 0;
  while (seen < offset) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(chunk.size(), offset - seen));
    const size_t got = in->Read(chunk.data(), want);
    if (got == 0) break;
    line += CountLines(std::string_view(chunk.data(), got));
    seen += got;
  }
  return line;
}

}  // namespace steadyflake::mergecheck::dump
