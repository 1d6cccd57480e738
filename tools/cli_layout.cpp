// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// `steadyflake layout [--layout L] [--epoch TIME] [--json]`: the figures of a layout.

#include <cstdio>
#include <optional>
#include <string>

#include "cli.h"
#include "steadyflake/time_format.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

namespace {

constexpr double kMsPerYear = 365.25 * 24 * 3600 * 1000;  // a Julian year

// ISO-8601 UTC; with milliseconds only when the time is not a whole second (the `snowflake`
// epoch is 1288834974657 ms), so `game` prints "2024-01-01T00:00:00Z" and nothing is lost.
std::string FormatTime(int64_t unix_ms) { return FormatIso8601(unix_ms, unix_ms % 1000 != 0); }

std::string Json(const Layout& layout) {
  std::string out = "{";
  out += "\"time_bits\":" + std::to_string(layout.time_bits());
  out += ",\"server_bits\":" + std::to_string(layout.server_bits());
  out += ",\"sequence_bits\":" + std::to_string(layout.sequence_bits());
  out += ",\"tick_ms\":" + std::to_string(layout.tick_ms());
  out += ",\"epoch\":\"" + FormatTime(layout.epoch_ms()) + "\"";
  out += ",\"end\":\"" + FormatTime(layout.end_ms()) + "\"";
  out += ",\"max_server_id\":" + std::to_string(layout.max_server_id());
  out += ",\"ids_per_second\":" + std::to_string(layout.ids_per_second());
  out += "}\n";
  return out;
}

std::string Table(const Layout& layout) {
  const int bits = layout.time_bits() + layout.server_bits() + layout.sequence_bits();
  char years[32];
  std::snprintf(years, sizeof years, "%.2f",
                static_cast<double>(layout.end_ms() - layout.epoch_ms()) / kMsPerYear);
  std::string out;
  auto row = [&out](const char* name, const std::string& value) {
    out += name;
    out.append(16 - std::string_view(name).size(), ' ');
    out += value;
    out += '\n';
  };
  row("layout", layout.ToString());
  row("bits", "time " + std::to_string(layout.time_bits()) + " + server " +
                  std::to_string(layout.server_bits()) + " + sequence " +
                  std::to_string(layout.sequence_bits()) + " = " + std::to_string(bits) + " of " +
                  std::to_string(Layout::kIdBits));
  row("tick", std::to_string(layout.tick_ms()) + " ms");
  row("epoch",
      FormatTime(layout.epoch_ms()) + " (" + std::to_string(layout.epoch_ms()) + " Unix ms)");
  row("end", FormatTime(layout.end_ms()) + " (" + std::to_string(layout.end_ms()) + " Unix ms)");
  row("lifetime", std::string(years) + " years");
  row("max server id", GroupThousands(layout.max_server_id()) + " (" +
                           GroupThousands(layout.max_server_id() + 1) + " servers)");
  row("ids per second", GroupThousands(layout.ids_per_second()) + " per server, sustained (" +
                            GroupThousands(layout.max_sequence() + 1) + " per tick)");
  return out;
}

}  // namespace

int RunLayout(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()(
      "layout", po::value<std::string>()->default_value("game"),
      "game, snowflake or T/S/Q@<n>ms (time/server/sequence bits, tick), e.g. 37/16/10@10ms")(
      "epoch", po::value<std::string>(),
      "start of time for the layout: YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS[.fff]Z or Unix ms "
      "(default: the layout's own; custom layouts use game's, 2024-01-01)")(
      "json", "print one JSON object instead of a table")("help,h", "print this help");
  po::variables_map vm;
  ParseArgs("steadyflake", "layout", args, options, nullptr, vm);
  if (vm.count("help") != 0) {
    PrintHelp("steadyflake layout [--layout L] [--epoch TIME] [--json]",
              "Prints the figures of an ID layout: bits, tick, epoch, end of its lifetime,\n"
              "largest server id and sustained IDs per second per server.\n"
              "JSON fields: time_bits, server_bits, sequence_bits, tick_ms, epoch, end,\n"
              "max_server_id, ids_per_second.",
              options);
    return kExitOk;
  }
  const Layout layout = ResolveLayout(vm);

  Output out(stdout, 4096);
  out.Append(vm.count("json") != 0 ? Json(layout) : Table(layout));
  out.Flush();
  return kExitOk;
}

}  // namespace steadyflake::cli
