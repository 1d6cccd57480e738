// Copyright 2026 The steadyflake Authors.
//
// Internal to the steadyflake tools (the CLI and the merge checker's text report); may change
// between releases.

#ifndef STEADYFLAKE_TOOLS_COMMON_GROUP_THOUSANDS_H_
#define STEADYFLAKE_TOOLS_COMMON_GROUP_THOUSANDS_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace steadyflake::tools {

// "65,536": thousands separated by commas, for reports people read.
inline std::string GroupThousands(uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace steadyflake::tools

#endif  // STEADYFLAKE_TOOLS_COMMON_GROUP_THOUSANDS_H_
