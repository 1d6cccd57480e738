// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// `steadyflake resume-point DB --server-id N [--layout L] [--epoch TIME] [--json]`: the ID a
// server resumes after when it starts without its state folder (a restore, a new host, a merged
// database): the largest ID in DB carrying its server id, never plain max(id)
// (steadyflake/mergecheck/resume_point.h, docs/merging.md section 5).

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli.h"
#include "steadyflake/error.h"
#include "steadyflake/id_format.h"
#include "steadyflake/mergecheck/resume_point.h"
#include "steadyflake/time_format.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

namespace {

constexpr char kUsage[] =
    "steadyflake resume-point DB --server-id N [--layout L] [--epoch TIME] [--json]";

}  // namespace

int RunResumePoint(const std::vector<std::string>& args) {
  po::options_description visible("Options");
  visible.add_options()("server-id", po::value<std::string>(),
                        "required: the server id that will resume on this database")(
      "layout", po::value<std::string>()->default_value("game"),
      "the IDs' layout: game, snowflake or T/S/Q@<n>ms")("epoch", po::value<std::string>(),
                                                         "the layout's epoch, if not its own")(
      "json", "print one JSON object: id (a string), time, table, column, columns_read")(
      "help,h", "print this help");
  po::options_description all;
  all.add(visible).add_options()("input", po::value<std::vector<std::string>>()->composing(),
                                 "database");
  po::positional_options_description positional;
  positional.add("input", -1);
  po::variables_map vm;
  ParseArgs("steadyflake", "resume-point", args, all, &positional, vm);
  if (vm.count("help") != 0) {
    PrintHelp(kUsage,
              "Prints the ID a server resumes after when it starts without its state folder\n"
              "(a restored backup, a new host, a merged database): the largest ID in DB that\n"
              "carries server id N, over every table's integer primary key. Not max(id): after a\n"
              "merge the same tables hold other servers' IDs. Pass it as resume_after\n"
              "(gen --resume-after, Generator::Options::resume_after). 0: DB holds no ID of N.\n"
              "DB is a SQLite file, opened read-only. Exit status: 0 printed; 2 error.",
              visible);
    return kExitOk;
  }
  const std::vector<std::string> inputs = vm.count("input") != 0
                                              ? vm["input"].as<std::vector<std::string>>()
                                              : std::vector<std::string>();
  if (inputs.size() != 1) {
    throw CliError("resume-point needs one database, got " + std::to_string(inputs.size()),
                   std::string("run '") + kUsage + "'");
  }
  if (vm.count("server-id") == 0) {
    throw CliError("missing --server-id",
                   "pass the server id that will resume on this database, e.g. --server-id 101");
  }
  const Layout layout = ResolveLayout(vm);
  const uint64_t server_id = ParseUnsignedOption("--server-id", vm["server-id"].as<std::string>(),
                                                 0, layout.max_server_id());
  mergecheck::ResumePoint point;
  try {
    point = mergecheck::FindResumePoint(inputs[0], layout, server_id);
  } catch (const Error& error) {
    throw FromEngine("", error, "check that DB is the server's SQLite database");
  }
  Output out(stdout, 4096);
  if (vm.count("json") != 0) {
    // The ID as a string: JSON readers in JavaScript and Lua lose digits above 2^53.
    nlohmann::ordered_json json = {{"id", ToString(point.id)}, {"server_id", server_id}};
    if (point.id > 0) {
      json["time"] = FormatIso8601(layout.Decode(point.id).unix_ms);
      json["table"] = point.table;
      json["column"] = point.column;
    }
    json["columns_read"] = point.columns_read;
    out.Append(json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } else {
    out.Append(ToString(point.id) + "\n");
  }
  out.Flush();
  return kExitOk;
}

}  // namespace steadyflake::cli
