// Copyright 2026 The steadyflake Authors.
//
// Text helpers of the merge checker's reports, public so that the `steadyflake` CLI prints
// numbers and bytes exactly as the reports do.

#ifndef STEADYFLAKE_MERGECHECK_TEXT_H_
#define STEADYFLAKE_MERGECHECK_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace steadyflake::mergecheck {

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

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_TEXT_H_
