-- Copyright 2026 The steadyflake Authors.
-- SPDX-License-Identifier: Apache-2.0
--
-- Tests of the LuaJIT binding, run by CTest (bindings/CMakeLists.txt):
--
--   STEADYFLAKE_C_LIBRARY=build/capi/libsteadyflake_c.so LUA_PATH='bindings/lua/?.lua' \
--     luajit bindings/lua/steadyflake_test.lua data/id_vectors.json WORK_DIR [VERSION] [TEST]
--
-- WORK_DIR is a folder the tests may write state folders under; VERSION, when given, is the
-- version the library must report; TEST runs one test only. Exits 1 if any test fails.
local ffi = require("ffi")
local steadyflake = require("steadyflake")

local vectors_path, work_dir, expected_version, only = arg[1], arg[2], arg[3], arg[4]
if vectors_path == nil or work_dir == nil then
  io.stderr:write("usage: luajit steadyflake_test.lua ID_VECTORS_JSON WORK_DIR [VERSION] [TEST]\n")
  os.exit(2)
end
if expected_version == "" then
  expected_version = nil
end

local harness = require("test_harness")
local h = harness.new(work_dir)
local test, check, contains, fresh_folder = h.test, harness.check, harness.contains, h.fresh_folder
local function read_vectors()
  return harness.read_vectors(vectors_path)
end

test("version", function()
  local version = steadyflake.version()
  check(version:match("^%d+%.%d+%.%d+"), "version %q is not N.N.N", version)
  if expected_version ~= nil then
    check(version == expected_version, "version %q, expected %q", version, expected_version)
  end
end)

test("vectors", function()
  local vectors = read_vectors()
  check(#vectors >= 20, "only %d vectors read from %s", #vectors, vectors_path)
  for _, v in ipairs(vectors) do
    local id = assert(steadyflake.parse(v.id))
    check(steadyflake.tostring(id) == v.id, "%s: tostring gives %s", v.id, steadyflake.tostring(id))
    -- From the cdata and from the string: both forms a caller may hold.
    for _, form in ipairs({id, v.id}) do
      local parts, err = steadyflake.decode(form, v.layout)
      check(parts ~= nil, "%s %s: %s", v.layout, v.id, tostring(err))
      check(parts.unix_ms == v.unix_ms and parts.server_id == v.server_id
        and parts.sequence == v.sequence, "%s %s decodes to %d/%d/%d, expected %d/%d/%d",
        v.layout, v.id, parts.unix_ms, parts.server_id, parts.sequence, v.unix_ms, v.server_id,
        v.sequence)
    end
    local composed = assert(steadyflake.compose(v.layout, v.unix_ms, v.server_id, v.sequence))
    check(composed == id, "%s: compose gives %s, expected %s", v.layout,
      steadyflake.tostring(composed), v.id)
  end
end)

test("decode_arguments", function()
  -- The layout defaults to "game"; a Lua number is accepted only while it is exact.
  local parts = assert(steadyflake.decode(67108864))
  check(parts.unix_ms == 1704067200010 and parts.server_id == 0 and parts.sequence == 0,
    "decode(67108864) under game: %d/%d/%d", parts.unix_ms, parts.server_id, parts.sequence)
  local none, err = steadyflake.decode(2 ^ 60)
  check(none == nil and contains(err, "2^53"), "decode(2^60): %s", tostring(err))
  none, err = steadyflake.decode(1.5)
  check(none == nil and contains(err, "1.5"), "decode(1.5): %s", tostring(err))
  none, err = steadyflake.decode("12x")
  check(none == nil and err ~= nil, "decode('12x') succeeded")
  none, err = steadyflake.decode(1, "70/0/0@1ms")
  check(none == nil and contains(err, "70/0/0@1ms"), "bad layout: %s", tostring(err))
  none, err = steadyflake.decode(ffi.new("int64_t", -5))
  check(none == nil and contains(err, "-5"), "negative id: %s", tostring(err))
  check(not pcall(steadyflake.decode, {}), "decode of a table did not raise")
end)

test("compose_errors", function()
  local none, err = steadyflake.compose("game", 1704067200000, 65536, 0)
  check(none == nil and contains(err, "65536"), "server 65536 under game: %s", tostring(err))
  none, err = steadyflake.compose("snowflake", 1000, 1, 0)
  check(none == nil and err ~= nil, "a time before the epoch composed")
  check(not pcall(steadyflake.compose, "game", 1704067200000, -1, 0), "server -1 did not raise")
end)

test("parse_and_tostring", function()
  check(steadyflake.parse("0009") == 9, "leading zeros")
  check(steadyflake.parse("9223372036854775807") == ffi.new("int64_t", 9223372036854775807LL),
    "largest ID")
  for _, bad in ipairs({"", "-1", "+1", " 1", "12a", "9223372036854775808"}) do
    local none, err = steadyflake.parse(bad)
    check(none == nil and type(err) == "string", "parse(%q) accepted", bad)
  end
  check(steadyflake.tostring(ffi.new("int64_t", -1)) == "-1", "tostring(-1)")
  check(steadyflake.tostring("465962119506959363") == "465962119506959363", "tostring(string)")
  check(steadyflake.tostring(ffi.new("uint64_t", 42)) == "42", "tostring(uint64_t)")
end)

test("new_errors", function()
  local gen, err = steadyflake.new({layout = "game"})
  check(gen == nil and contains(err, "server_id is required"), "no server id: %s", tostring(err))
  gen, err = steadyflake.new({server_id = 65536})
  check(gen == nil and contains(err, "65536"), "server 65536 under game: %s", tostring(err))
  gen, err = steadyflake.new({server_id = 1, layout = "nope"})
  check(gen == nil and contains(err, "nope"), "bad layout: %s", tostring(err))
  gen, err = steadyflake.new({server_id = 1, max_lead_ms = 86400001})
  check(gen == nil and contains(err, "86400001"), "max_lead out of range: %s", tostring(err))
  check(not pcall(steadyflake.new, {server_id = 1.5}), "server_id 1.5 did not raise")
  check(not pcall(steadyflake.new, 7), "new(7) did not raise")
end)

test("next_increases", function()
  local gen = assert(steadyflake.new({server_id = 7, layout = "snowflake"}))
  local previous = gen:next()
  check(ffi.istype("int64_t", previous), "next returned a %s", type(previous))
  for _ = 1, 200000 do
    local id = gen:next()
    check(id > previous, "%s after %s", steadyflake.tostring(id), steadyflake.tostring(previous))
    previous = id
  end
  local parts = assert(steadyflake.decode(previous, "snowflake"))
  check(parts.server_id == 7, "server id %d", parts.server_id)
  local now_ms = os.time() * 1000
  check(math.abs(parts.unix_ms - now_ms) < 5000, "ID time %d, clock %d", parts.unix_ms, now_ms)
  gen:close()
end)

test("next_string_and_try_next", function()
  local gen = assert(steadyflake.new({server_id = 3}))
  local first = gen:next()
  local text = gen:next_string()
  check(text:match("^%d+$"), "next_string gave %q", text)
  local second = assert(steadyflake.parse(text))
  check(second > first, "next_string %s not above %s", text, steadyflake.tostring(first))
  local third = gen:try_next()
  check(third ~= nil and third > second, "try_next on a fresh generator: %s", tostring(third))
  gen:close()
end)

test("next_batch", function()
  local gen = assert(steadyflake.new({server_id = 9}))
  local before = gen:next()
  local ids = assert(gen:next_batch(1000))
  local previous, count = before, 0
  for i, id in ipairs(ids) do
    count = count + 1
    check(ffi.istype("int64_t", id), "ids[%d] is a %s", i, type(id))
    check(id > previous, "ids[%d] = %s after %s", i, steadyflake.tostring(id),
      steadyflake.tostring(previous))
    previous = id
  end
  check(count == 1000 and #ids == 1000, "%d IDs in sequence, length %d", count, #ids)
  check(gen:next() > previous, "next after the batch is not above it")
  local empty = gen:next_batch(0)
  check(type(empty) == "table" and #empty == 0, "next_batch(0)")
  -- 205,824 IDs fit the default max_lead of "game"; one more comes in a second reservation.
  local big = assert(gen:next_batch(205825))
  check(#big == 205825, "oversized batch: %d IDs", #big)
  for i = 2, #big do
    if big[i] <= big[i - 1] then
      check(false, "oversized batch: ID %d not above the one before", i)
    end
  end
  check(not pcall(gen.next_batch, gen, -1), "next_batch(-1) did not raise")
  gen:close()
end)

test("state_dir", function()
  local dir = fresh_folder("state")
  local first = assert(steadyflake.new({server_id = 11, state_dir = dir}))
  local last = first:next()
  -- One holder per server id and folder: the second is refused, naming the first.
  local second, err = steadyflake.new({server_id = 11, state_dir = dir})
  check(second == nil and contains(err, "in use on this host by pid"), "second holder: %s", tostring(err))
  first:close()
  local again = assert(steadyflake.new({server_id = 11, state_dir = dir}))
  local id = again:next()
  check(id > last, "after a restart %s is not above %s", steadyflake.tostring(id),
    steadyflake.tostring(last))
  again:close()
end)

test("close", function()
  local gen = assert(steadyflake.new({server_id = 5}))
  gen:next()
  gen:close()
  gen:close() -- again: nothing
  local ok, err = pcall(gen.next, gen)
  check(not ok and contains(err, "closed"), "next after close: %s", tostring(err))
  check(not pcall(gen.try_next, gen), "try_next after close did not raise")
  check(not pcall(gen.next_string, gen), "next_string after close did not raise")
  check(not pcall(gen.next_batch, gen, 2), "next_batch after close did not raise")
  check(not pcall(gen.next_batch, gen, 0), "next_batch(0) after close did not raise")
end)

test("collected_generator_releases_its_lock", function()
  local dir = fresh_folder("gc")
  local gen = assert(steadyflake.new({server_id = 12, state_dir = dir}))
  local last = gen:next()
  gen = nil -- luacheck: ignore (dropped on purpose)
  collectgarbage()
  collectgarbage()
  local again, err = steadyflake.new({server_id = 12, state_dir = dir})
  check(again ~= nil, "the collector did not close the generator: %s", tostring(err))
  check(again:next() > last, "IDs repeat after the collector closed the generator")
  again:close()
end)

h.run(only, "Lua tests")
