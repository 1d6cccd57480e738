-- Copyright 2026 The steadyflake Authors.
-- SPDX-License-Identifier: Apache-2.0
--
-- Tests of the Lua C module (bindings/lua_c), run by CTest once per Lua version built
-- (bindings/lua_c/run_tests.sh):
--
--   LUA_CPATH='build/bindings/lua_c/5.4/?.so' lua5.4 bindings/lua_c/steadyflake_c_test.lua \
--     data/id_vectors.json WORK_DIR [VERSION] [TEST]
--
-- WORK_DIR is a folder the tests may write state folders under; VERSION, when given, is the
-- version the library must report; TEST runs one test only. Exits 1 if any test fails. The same
-- file runs under Lua 5.1 (IDs are decimal strings there) and 5.3 / 5.4 (Lua integers).
local sf = require("steadyflake")

local vectors_path, work_dir, expected_version, only = arg[1], arg[2], arg[3], arg[4]
if vectors_path == nil or work_dir == nil then
  io.stderr:write("usage: lua steadyflake_c_test.lua ID_VECTORS_JSON WORK_DIR [VERSION] [TEST]\n")
  os.exit(2)
end
if expected_version == "" then
  expected_version = nil
end
local integer_ids = math.type ~= nil -- Lua 5.3 and later
-- The interpreter running this file, for the tests that start a second process.
local interpreter = arg[-1]

-- The shared harness, beside the LuaJIT binding (not on LUA_PATH, which would find that
-- binding's steadyflake.lua before this module).
local harness = dofile((arg[0]:match("^(.*)/[^/]*$") or ".") .. "/../lua/test_harness.lua")
local h = harness.new(work_dir)
local test, check, contains, fresh_folder = h.test, harness.check, harness.contains, h.fresh_folder

-- The message fn(...) raises; fails the test if it raises nothing.
local function raises(fn, ...)
  local ok, err = pcall(fn, ...)
  check(not ok, "no error raised (returned %s)", tostring(err))
  return tostring(err)
end

-- a < b for IDs of either form: integers, or decimal strings without leading zeros.
local function below(a, b)
  if type(a) == "string" then
    return #a < #b or (#a == #b and a < b)
  end
  return a < b
end

local function is_id(value)
  if integer_ids then
    return math.type(value) == "integer"
  end
  return type(value) == "string" and value:match("^%d+$") ~= nil
end

-- What another process gets from steadyflake.new{server_id, state_dir}: "opened", or the
-- message. The host guard and the state folder's lock are per process, so this is how a test
-- sees whether this process still holds a server id.
local function other_process_opens(server_id, dir)
  local script = work_dir .. "/open_once.lua"
  local f = assert(io.open(script, "w"))
  f:write([[
local sf = require("steadyflake")
local ok, err = pcall(sf.new, {server_id = tonumber(arg[1]), state_dir = arg[2]})
if ok then err:close() end
io.write(ok and "opened" or tostring(err))
]])
  f:close()
  local p = assert(io.popen(string.format("%s %s %d '%s' 2>&1", interpreter, script, server_id,
    dir)))
  local out = p:read("*a")
  p:close()
  return out
end

local function read_vectors()
  return harness.read_vectors(vectors_path)
end

test("version", function()
  local version = sf.version()
  check(version:match("^%d+%.%d+%.%d+"), "version %q is not N.N.N", version)
  if expected_version ~= nil then
    check(version == expected_version, "version %q, expected %q", version, expected_version)
  end
  check(sf.integer_ids == integer_ids, "integer_ids is %s under %s", tostring(sf.integer_ids),
    _VERSION)
end)

test("vectors", function()
  local vectors = read_vectors()
  check(#vectors >= 20, "only %d vectors read from %s", #vectors, vectors_path)
  for _, v in ipairs(vectors) do
    local id = sf.parse(v.id)
    check(is_id(id), "parse(%s) gave a %s", v.id, type(id))
    check(sf.format(id) == v.id, "%s: format gives %s", v.id, sf.format(id))
    -- From the ID value and from the string: both forms a caller may hold.
    for _, form in ipairs({id, v.id}) do
      local parts = sf.decode(form, v.layout)
      check(parts.unix_ms == v.unix_ms and parts.server_id == v.server_id
        and parts.sequence == v.sequence and parts.time_ms == v.unix_ms,
        "%s %s decodes to %s/%s/%s, expected %s/%s/%s", v.layout, v.id, tostring(parts.unix_ms),
        tostring(parts.server_id), tostring(parts.sequence), v.unix_ms, v.server_id, v.sequence)
    end
    local composed = sf.compose(v.layout, v.unix_ms, v.server_id, v.sequence)
    check(composed == id, "%s: compose gives %s, expected %s", v.layout, sf.format(composed), v.id)
  end
end)

test("id_form", function()
  local gen = sf.new({server_id = 2})
  local id = gen:next()
  check(is_id(id), "next gave a %s under %s", type(id), _VERSION)
  check(integer_ids or not pcall(sf.decode, tonumber(id)),
    "Lua 5.1: an ID above 2^53 as a number was accepted")
  check(sf.parse(sf.format(id)) == id, "format/parse round trip of %s", sf.format(id))
  gen:close()
end)

test("decode_arguments", function()
  -- The layout defaults to "game"; a float is accepted only while it is exact.
  local parts = sf.decode(67108864)
  check(parts.unix_ms == 1704067200010 and parts.server_id == 0 and parts.sequence == 0,
    "decode(67108864) under game: %d/%d/%d", parts.unix_ms, parts.server_id, parts.sequence)
  check(sf.decode(1024.0).server_id == 1, "decode(1024.0)")
  check(contains(raises(sf.decode, 2 ^ 60), "2^53"), "decode(2^60)")
  check(contains(raises(sf.decode, 1.5), "1.5"), "decode(1.5)")
  check(contains(raises(sf.decode, "12x"), "12x"), "decode('12x')")
  check(contains(raises(sf.decode, 1, "70/0/0@1ms"), "70/0/0@1ms"), "bad layout")
  check(contains(raises(sf.decode, -5), "-5"), "negative id")
  check(contains(raises(sf.decode, {}), "table"), "decode of a table")
end)

test("compose_errors", function()
  check(contains(raises(sf.compose, "game", 1704067200000, 65536, 0), "65536"), "server 65536")
  check(contains(raises(sf.compose, "snowflake", 1000, 1, 0), "1000"), "time before the epoch")
  check(contains(raises(sf.compose, "game", 1704067200000, -1, 0), ">= 0"), "server -1")
end)

test("parse_and_format", function()
  check(sf.parse("0009") == (integer_ids and 9 or "9"), "leading zeros")
  check(sf.format(sf.parse("9223372036854775807")) == "9223372036854775807", "largest ID")
  for _, bad in ipairs({"", "-1", "+1", " 1", "12a", "9223372036854775808"}) do
    check(raises(sf.parse, bad) ~= "", "parse(%q) accepted", bad)
  end
  check(contains(raises(sf.parse, 12), "string"), "parse of a number")
  check(sf.format("465962119506959363") == "465962119506959363", "format(string)")
  if integer_ids then
    check(sf.format(-1) == "-1", "format(-1)")
  end
end)

test("new_errors", function()
  check(contains(raises(sf.new, {layout = "game"}), "server_id is required"), "no server id")
  -- The C ABI's message, naming the value and the layout.
  local err = raises(sf.new, {server_id = 65536})
  check(contains(err, "65536") and contains(err, "37/16/10@10ms"), "server 65536: %s", err)
  check(contains(raises(sf.new, {server_id = 1, layout = "nope"}), "nope"), "bad layout")
  check(contains(raises(sf.new, {server_id = 1, max_lead_ms = 86400001}), "86400001"), "lead")
  check(contains(raises(sf.new, {server_id = 1.5}), "whole number"), "server_id 1.5")
  check(contains(raises(sf.new, {server_id = -1}), ">= 0"), "server_id -1")
  check(contains(raises(sf.new, {server_id = 1, layout = 5}), "string"), "layout 5")
  check(contains(raises(sf.new, {server_id = 1, state_directory = "/x"}), "state_directory"),
    "a misspelt option")
  check(raises(sf.new, 7) ~= "", "new(7)")
end)

test("next_increases", function()
  local gen = sf.new({server_id = 7, layout = "snowflake"})
  local previous = gen:next()
  for _ = 1, 200000 do
    local id = gen:next()
    if not below(previous, id) then
      check(false, "%s after %s", sf.format(id), sf.format(previous))
    end
    previous = id
  end
  local parts = gen:decode(previous)
  check(parts.server_id == 7, "server id %d", parts.server_id)
  local now_ms = os.time() * 1000
  check(math.abs(parts.unix_ms - now_ms) < 5000, "ID time %d, clock %d", parts.unix_ms, now_ms)
  gen:close()
end)

test("try_next", function()
  local gen = sf.new({server_id = 3})
  local first = gen:next()
  local second = gen:try_next()
  check(second ~= nil and below(first, second), "try_next on a fresh generator")
  gen:close()
  -- 2 IDs per 1 s tick, no borrowing: among 10 calls within a tick boundary at most, some
  -- would wait, and stats() counts them.
  local tiny = sf.new({server_id = 3, layout = "30/10/1@1000ms", max_lead_ms = 0})
  local issued, waited = 0, 0
  for _ = 1, 10 do
    if tiny:try_next() == nil then waited = waited + 1 else issued = issued + 1 end
  end
  check(issued >= 2 and issued <= 4 and waited >= 6, "%d issued, %d would wait", issued, waited)
  local stats = tiny:stats()
  check(stats.would_wait == waited and stats.issued == issued, "stats %d/%d, counted %d/%d",
    stats.would_wait, stats.issued, waited, issued)
  tiny:close()
end)

test("next_batch", function()
  local gen = sf.new({server_id = 9})
  local before = gen:next()
  local ids = gen:next_batch(1000)
  local previous = before
  for i, id in ipairs(ids) do
    check(is_id(id), "ids[%d] is a %s", i, type(id))
    check(below(previous, id), "ids[%d] = %s after %s", i, sf.format(id), sf.format(previous))
    previous = id
  end
  check(#ids == 1000, "%d IDs", #ids)
  check(below(previous, gen:next()), "next after the batch is not above it")
  local empty = gen:next_batch(0)
  check(type(empty) == "table" and #empty == 0, "next_batch(0)")
  -- 205,824 IDs fit the default max_lead of "game"; one more comes in a second reservation.
  local big = gen:next_batch(205825)
  check(#big == 205825, "oversized batch: %d IDs", #big)
  for i = 2, #big do
    if not below(big[i - 1], big[i]) then
      check(false, "oversized batch: ID %d not above the one before", i)
    end
  end
  check(contains(raises(gen.next_batch, gen, -1), ">= 0"), "next_batch(-1)")
  check(contains(raises(gen.next_batch, gen, 1.5), "whole number"), "next_batch(1.5)")
  gen:close()
end)

test("decode_and_stats", function()
  local dir = fresh_folder("stats")
  local gen = sf.new({server_id = 44, layout = "snowflake", state_dir = dir, max_lead_ms = 500})
  local id = gen:next()
  gen:next_batch(10)
  local parts = gen:decode(id)
  check(parts.server_id == 44 and parts.time_ms == parts.unix_ms, "decode under the layout")
  check(sf.decode(id, "snowflake").unix_ms == parts.unix_ms, "gen:decode uses the layout")
  local stats = gen:stats()
  check(stats.issued == 11, "issued %s", tostring(stats.issued))
  check(stats.server_id == 44 and stats.layout == "snowflake" and stats.state_dir == dir
    and stats.max_lead_ms == 500 and stats.shared == 1 and stats.lost == false
    and stats.state_errors == 0 and stats.state_error == nil, "stats fields")
  check(stats.reservation_headroom_ns > 0, "headroom %s", tostring(stats.reservation_headroom_ns))
  check(tostring(gen) == "steadyflake.generator (server_id 44, layout snowflake)", "%s",
    tostring(gen))
  gen:close()
end)

test("one_server_id_one_generator", function()
  local dir = fresh_folder("shared")
  local first = sf.new({server_id = 11, state_dir = dir})
  -- A second new of the server id in this process shares the handle (the host guard refuses a
  -- second one); another process is refused, naming this one.
  local second = sf.new({server_id = 11, state_dir = dir})
  check(first:stats().shared == 2, "shared %d", first:stats().shared)
  local a, b, c = first:next(), second:next(), first:next()
  check(below(a, b) and below(b, c), "IDs of the two do not increase together")
  check(contains(other_process_opens(11, dir), "in use on this host by pid"), "other process")
  -- Options must agree, or the second new is refused.
  check(contains(raises(sf.new, {server_id = 11}), "already open"), "no state_dir")
  check(contains(raises(sf.new, {server_id = 11, state_dir = dir, max_lead_ms = 10}),
    "max_lead_ms"), "another max_lead")
  -- Spellings of one layout are one layout; another layout is another generator.
  local spelt = sf.new({server_id = 11, state_dir = dir, layout = "37/16/10@10ms"})
  check(spelt:stats().shared == 3, "37/16/10@10ms is not game's generator")
  spelt:close()
  local other = sf.new({server_id = 11, layout = "snowflake"})
  check(other:stats().shared == 1, "snowflake shares game's generator")
  other:close()
  first:close()
  check(below(c, second:next()), "the second stopped working when the first closed")
  check(second:stats().shared == 1, "shared after a close: %d", second:stats().shared)
  local last = second:next()
  second:close()
  local again = sf.new({server_id = 11, state_dir = dir})
  check(again:stats().shared == 1 and below(last, again:next()), "after a restart")
  again:close()
end)

test("close", function()
  local gen = sf.new({server_id = 5})
  gen:next()
  gen:close()
  gen:close() -- again: nothing
  check(contains(raises(gen.next, gen), "closed"), "next after close")
  check(contains(raises(gen.try_next, gen), "closed"), "try_next after close")
  check(contains(raises(gen.next_batch, gen, 2), "closed"), "next_batch after close")
  check(contains(raises(gen.next_batch, gen, 0), "closed"), "next_batch(0) after close")
  check(contains(raises(gen.decode, gen, 1), "closed"), "decode after close")
  check(contains(raises(gen.stats, gen), "closed"), "stats after close")
  check(tostring(gen) == "steadyflake.generator (closed)", "%s", tostring(gen))
  check(contains(raises(gen.next, {}), "generator expected"), "next on a table")
end)

test("closed_then_collected_releases_once", function()
  -- close() then the collector's __gc must drop one reference, not two: the other holder keeps
  -- a working generator.
  local first = sf.new({server_id = 30})
  local second = sf.new({server_id = 30})
  first:close()
  first = nil -- luacheck: ignore (dropped on purpose)
  collectgarbage()
  collectgarbage()
  check(second:stats().shared == 1, "shared %d", second:stats().shared)
  second:next()
  second:close()
end)

test("collected_generator_releases_its_lock", function()
  local dir = fresh_folder("gc")
  local gen = sf.new({server_id = 12, state_dir = dir})
  local last = gen:next()
  check(contains(other_process_opens(12, dir), "in use"), "held while open")
  gen = nil -- luacheck: ignore (dropped on purpose)
  collectgarbage()
  collectgarbage()
  local out = other_process_opens(12, dir)
  check(out == "opened", "the collector did not close the generator: %s", out)
  local again = sf.new({server_id = 12, state_dir = dir})
  check(below(last, again:next()), "IDs repeat after the collector closed the generator")
  again:close()
end)

test("docs_example", function()
  -- docs/bindings.md's example, as written, with its state folder moved under WORK_DIR. The
  -- repository's root is two folders above data/id_vectors.json.
  local root = vectors_path:match("^(.*)/data/[^/]+$") or "."
  local page = assert(io.open(root .. "/docs/bindings.md")):read("*a")
  local code = page:match("<!%-%- lua_c example:[^\n]*\n```lua\n(.-)\n```")
  check(code ~= nil, "no lua_c example in %s/docs/bindings.md", root)
  local dir = fresh_folder("docs")
  local replaced
  code, replaced = code:gsub("/var/lib/game/ids", dir)
  check(replaced == 1, "the example's state folder appears %d times", replaced)
  local chunk = assert((loadstring or load)(code, "=docs/bindings.md"))
  local real_print, printed = print, {}
  print = function(...) printed[#printed + 1] = table.concat({...}, " ") end
  local ok, err = pcall(chunk)
  print = real_print
  check(ok, "the example failed: %s", tostring(err))
  check(printed[1] == "101", "the example printed %s", tostring(printed[1]))
end)

if _VERSION == "Lua 5.4" then
  test("to_be_closed", function()
    local keep = sf.new({server_id = 31})
    -- Compiled at run time: `<close>` is a syntax error before Lua 5.4.
    assert(load([[
      local sf, keep = ...
      do
        local gen <close> = sf.new({server_id = 31})
        assert(keep:stats().shared == 2)
      end
      assert(keep:stats().shared == 1, "shared " .. keep:stats().shared)
    ]]))(sf, keep)
    keep:close()
  end)
end

h.run(only, "tests (" .. _VERSION .. ")")
