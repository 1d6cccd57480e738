// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal to steadyflake-server; may change between releases.
//
// The status line and header fields of a response, as text. A connection writes them and the
// body with one gathered write, instead of through Beast's serializer, whose generic buffer
// sequences cost about a quarter of the server's instructions per GET /ids. The bytes are the
// ones Beast writes for the same http::response<string_body> after prepare_payload()
// (tests/server/response_head_test.cpp compares them), so clients see no difference.

#ifndef STEADYFLAKE_SAMPLE_SERVER_RESPONSE_HEAD_H_
#define STEADYFLAKE_SAMPLE_SERVER_RESPONSE_HEAD_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace steadyflake::server {

struct ResponseHead {
  unsigned version = 11;  // of the request: 10 for HTTP/1.0, 11 for HTTP/1.1
  int status = 200;
  std::string_view content_type;
  std::string_view allow;  // the Allow field of a 405; empty: none
  std::size_t content_length = 0;
  bool keep_alive = true;
};

// Appends `head` to `out`: the status line, Server, Content-Type, Allow (if any), Connection
// where the version needs it (HTTP/1.1 says `close`, HTTP/1.0 says `keep-alive`), Content-Length
// and the empty line.
void AppendResponseHead(std::string& out, const ResponseHead& head);

// "HTTP/1.x 100 Continue" and the empty line, for a request that asked `Expect: 100-continue`.
std::string_view ContinueHead(unsigned version);

}  // namespace steadyflake::server

#endif  // STEADYFLAKE_SAMPLE_SERVER_RESPONSE_HEAD_H_
