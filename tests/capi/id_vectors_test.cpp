// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// data/id_vectors.json against the C++ engine: every binding and port decodes the same file
// (docs/bindings.md), so the engine itself must agree with it, field by field. The C test
// (c_api_test.c) checks the same vectors through the C ABI.

#include <cstdint>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "steadyflake/layout.h"

namespace steadyflake {
namespace {

nlohmann::json LoadVectors() {
  std::ifstream in(STEADYFLAKE_ID_VECTORS);
  EXPECT_TRUE(in) << "cannot open " << STEADYFLAKE_ID_VECTORS;
  return nlohmann::json::parse(in);
}

// The bit counts, tick and epoch the file gives ports are those of the engine's layouts.
TEST(IdVectorsTest, LayoutsAreTheEngines) {
  const nlohmann::json file = LoadVectors();
  ASSERT_TRUE(file.contains("layouts"));
  std::set<std::string> names;
  for (const auto& [name, fields] : file["layouts"].items()) {
    SCOPED_TRACE(name);
    names.insert(name);
    const Layout layout = Layout::Parse(name);
    EXPECT_EQ(fields.at("time_bits").get<int>(), layout.time_bits());
    EXPECT_EQ(fields.at("server_bits").get<int>(), layout.server_bits());
    EXPECT_EQ(fields.at("sequence_bits").get<int>(), layout.sequence_bits());
    EXPECT_EQ(fields.at("tick_ms").get<int64_t>(), layout.tick_ms());
    EXPECT_EQ(fields.at("epoch_ms").get<int64_t>(), layout.epoch_ms());
  }
  EXPECT_TRUE(names.count("game") && names.count("snowflake")) << "both named layouts";
  EXPECT_GE(names.size(), 3u) << "and a custom one";
}

// Each vector decodes to its fields, and its fields compose back to it.
TEST(IdVectorsTest, EveryVectorDecodesAndComposes) {
  const nlohmann::json file = LoadVectors();
  const nlohmann::json& vectors = file.at("vectors");
  ASSERT_GE(vectors.size(), 20u);
  for (const nlohmann::json& v : vectors) {
    const std::string name = v.at("layout").get<std::string>();
    // The ID is a string: JavaScript and Lua 5.1 lose digits above 2^53.
    ASSERT_TRUE(v.at("id").is_string());
    const std::string id_text = v.at("id").get<std::string>();
    SCOPED_TRACE(name + " " + id_text);
    ASSERT_TRUE(file.at("layouts").contains(name)) << "a vector of an undescribed layout";
    const Layout layout = Layout::Parse(name);
    const Id id = std::stoll(id_text);
    ASSERT_EQ(std::to_string(id), id_text);
    ASSERT_GE(id, 0);
    ASSERT_LE(id, layout.max_id());
    const DecodedId decoded = layout.Decode(id);
    EXPECT_EQ(decoded.unix_ms, v.at("unix_ms").get<int64_t>());
    EXPECT_EQ(decoded.server_id, v.at("server_id").get<uint64_t>());
    EXPECT_EQ(decoded.sequence, v.at("sequence").get<uint64_t>());
    EXPECT_EQ(layout.Compose(layout.TickAt(v.at("unix_ms").get<int64_t>()),
                             v.at("server_id").get<uint64_t>(), v.at("sequence").get<uint64_t>()),
              id);
  }
}

}  // namespace
}  // namespace steadyflake
