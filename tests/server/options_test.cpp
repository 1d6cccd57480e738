// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// steadyflake-server's command line: required options, the listen address and its loopback
// rule, the state folder's default, and one-line errors.

#include "options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace steadyflake::server {
namespace {

ServerOptions Parse(std::vector<std::string> args) { return ParseServerOptions(args); }

// The UsageError message for `args`, or "" if they parse.
std::string ErrorOf(std::vector<std::string> args) {
  try {
    ParseServerOptions(args);
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
    return e.what();
  }
  return "";
}

TEST(OptionsTest, Minimal) {
  const ServerOptions o =
      Parse({"--server-id", "101", "--db", "/var/game/a.db", "--listen", "127.0.0.1:0"});
  EXPECT_EQ(o.server_id, 101u);
  EXPECT_EQ(o.db, "/var/game/a.db");
  EXPECT_EQ(o.host, "127.0.0.1");
  EXPECT_EQ(o.port, 0);
  EXPECT_EQ(o.state_dir, "/var/game");  // beside the database
  EXPECT_EQ(o.layout, Layout::Game());
  EXPECT_GE(o.threads, 1u);
  EXPECT_FALSE(o.allow_remote);
}

TEST(OptionsTest, Everything) {
  const ServerOptions o = Parse({"--server-id=3", "--db=g.db", "--listen=[::1]:8080", "--state-dir",
                                 "/s", "--layout", "snowflake", "--threads", "4"});
  EXPECT_EQ(o.host, "::1");
  EXPECT_EQ(o.port, 8080);
  EXPECT_EQ(o.state_dir, "/s");
  EXPECT_EQ(o.layout, Layout::Snowflake());
  EXPECT_EQ(o.threads, 4u);
}

TEST(OptionsTest, DatabaseInCurrentFolderKeepsStateThere) {
  EXPECT_EQ(Parse({"--server-id", "1", "--db", "g.db", "--listen", "localhost:1"}).state_dir, ".");
}

TEST(OptionsTest, Help) { EXPECT_TRUE(Parse({"--help"}).help); }

TEST(OptionsTest, Missing) {
  EXPECT_NE(ErrorOf({"--db", "a", "--listen", "127.0.0.1:0"}).find("missing --server-id"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"--server-id", "1", "--listen", "127.0.0.1:0"}).find("missing --db"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"--server-id", "1", "--db", "a"}).find("missing --listen"), std::string::npos);
}

TEST(OptionsTest, BadValues) {
  const std::vector<std::string> base = {"--db", "a", "--listen", "127.0.0.1:0"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = base;
    args.insert(args.end(), more.begin(), more.end());
    return ErrorOf(args);
  };
  EXPECT_NE(with({"--server-id", "65536"}).find("[0, 65535]"), std::string::npos);
  EXPECT_NE(with({"--server-id", "-1"}).find("--server-id"), std::string::npos);
  EXPECT_NE(with({"--server-id", "1", "--layout", "37/20/16@1ms"}).find("73 bits"),
            std::string::npos);
  EXPECT_NE(with({"--server-id", "1", "--threads", "0"}).find("--threads"), std::string::npos);
  EXPECT_NE(with({"--server-id", "1", "--bogus"}).find("--help"), std::string::npos);
}

TEST(OptionsTest, BadListen) {
  for (const char* listen :
       {"127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:x", "example.com:80", ":80"}) {
    EXPECT_NE(ErrorOf({"--server-id", "1", "--db", "a", "--listen", listen}).find("--listen"),
              std::string::npos)
        << listen;
  }
}

TEST(OptionsTest, RemoteNeedsAllowRemote) {
  const std::string error = ErrorOf({"--server-id", "1", "--db", "a", "--listen", "0.0.0.0:80"});
  EXPECT_NE(error.find("not a loopback address"), std::string::npos) << error;
  EXPECT_NE(error.find("--allow-remote"), std::string::npos) << error;
  EXPECT_NE(ErrorOf({"--server-id", "1", "--db", "a", "--listen", "10.1.2.3:80"}), "");
  const ServerOptions o =
      Parse({"--server-id", "1", "--db", "a", "--listen", "0.0.0.0:80", "--allow-remote"});
  EXPECT_TRUE(o.allow_remote);
  EXPECT_EQ(o.host, "0.0.0.0");
  EXPECT_EQ(Parse({"--server-id", "1", "--db", "a", "--listen", "127.5.5.5:1"}).host, "127.5.5.5");
}

}  // namespace
}  // namespace steadyflake::server
