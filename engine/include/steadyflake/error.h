// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The one exception type of steadyflake. Configuration and input errors throw Error with a
// message that names the field, the value and what would be accepted; the hot path
// (Generator::next) never throws.

#ifndef STEADYFLAKE_ERROR_H_
#define STEADYFLAKE_ERROR_H_

#include <stdexcept>
#include <string>

namespace steadyflake {

class Error : public std::runtime_error {
 public:
  // What kind of problem it is, for callers that react differently (the CLI maps all of them to
  // exit status 2; a game server may retry kLocked after the old process has gone).
  enum class Code {
    kInvalidArgument,  // an option, layout, ID or time that is out of range or malformed
    kClock,            // the wall clock is outside the layout's lifetime
    kState,            // the state file is corrupt, mismatched, or cannot be read or written
    kLocked,           // another generator holds the server id (state file, host, etcd)
    kLost,             // the generator lost its server id (lease expired, another owner)
  };

  Error(Code code, const std::string& message) : std::runtime_error(message), code_(code) {}

  Code code() const noexcept { return code_; }

 private:
  Code code_;
};

}  // namespace steadyflake

#endif  // STEADYFLAKE_ERROR_H_
