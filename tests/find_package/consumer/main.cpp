// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Links the installed libraries and checks the basics: two IDs increase and decode to their
// server id; the merge checker finds the key two dumps share. Exit status 0 when all is well, 1
// otherwise. With STEADYFLAKE_CONSUMER_CAPI, also that steadyflake::c's library is the same
// version.

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "steadyflake/mergecheck/mergecheck.h"
#include "steadyflake/steadyflake.h"

#ifdef STEADYFLAKE_CONSUMER_CAPI
#include <cstring>

#include "steadyflake/c.h"
#endif

namespace {

// Writes a sqlite3 .dump of one table `item` holding `id`, and returns its path.
std::string WriteDump(const std::filesystem::path& dir, const char* name, long long id) {
  const std::filesystem::path path = dir / name;
  std::ofstream(path) << "PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n"
                         "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);\n"
                         "INSERT INTO item VALUES("
                      << id << ",'x');\nCOMMIT;\n";
  return path.string();
}

}  // namespace

int main() {
  try {
    steadyflake::Generator gen(steadyflake::Generator::Options{
        .server_id = 7, .ticker = steadyflake::Generator::Ticker::kManual});
    const steadyflake::Id first = gen.next();
    const steadyflake::Id second = gen.next();
    if (second <= first) {
      std::fprintf(stderr, "consumer: IDs do not increase: %lld then %lld\n",
                   static_cast<long long>(first), static_cast<long long>(second));
      return 1;
    }
    const steadyflake::DecodedId decoded = gen.layout().Decode(second);
    if (decoded.server_id != 7) {
      std::fprintf(stderr, "consumer: ID %lld decodes to server id %llu, not 7\n",
                   static_cast<long long>(second),
                   static_cast<unsigned long long>(decoded.server_id));
      return 1;
    }
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("steadyflake-consumer-" + std::to_string(second));
    std::filesystem::create_directories(dir);
    const steadyflake::mergecheck::Report report =
        steadyflake::mergecheck::Check(WriteDump(dir, "a.sql", 5), WriteDump(dir, "b.sql", 5), {});
    std::filesystem::remove_all(dir);
    if (report.verdict != steadyflake::mergecheck::Report::Verdict::kConflict) {
      std::fprintf(stderr, "consumer: merge check of two dumps sharing key 5 did not conflict\n");
      return 1;
    }
#ifdef STEADYFLAKE_CONSUMER_CAPI
    if (std::strcmp(steadyflake_version(), STEADYFLAKE_VERSION) != 0) {
      std::fprintf(stderr, "consumer: libsteadyflake_c is version %s, the headers %s\n",
                   steadyflake_version(), STEADYFLAKE_VERSION);
      return 1;
    }
#endif
    std::printf("consumer: steadyflake %s: %lld < %lld, server id %llu\n", STEADYFLAKE_VERSION,
                static_cast<long long>(first), static_cast<long long>(second),
                static_cast<unsigned long long>(decoded.server_id));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
