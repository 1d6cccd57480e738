-- Copyright 2026 The steadyflake Authors.
-- SPDX-License-Identifier: Apache-2.0
--
-- IDs per second through the Lua C module, run by bench/run beside the LuaJIT binding's
-- bindings/lua/bench.lua:
--
--   LUA_CPATH='build-release/bindings/lua_c/5.4/?.so' lua5.4 bindings/lua_c/bench.lua [SECONDS]
--
-- Prints one JSON object per case on its own line: {"binding": "lua_c", "name", "lua", "ids",
-- "seconds", "ids_per_second"}. The baseline, "lua_function_constant", is a call of a Lua
-- function that returns a constant, measured in the same run: the cost of any call in this
-- interpreter, so next()'s ratio to it is the module's own cost (issue 32's target: at most 3x).
-- Each case runs for about SECONDS (default 0.5) of processor time (os.clock: standard Lua has
-- no finer wall clock; each case is one busy thread, and the generator's ticker thread sleeps
-- between ticks), on the layout the C++ benchmarks use (38/3/22@1ms: 2^22 IDs per millisecond,
-- so the layout's capacity never binds and the figures are the code's, not the clock's).
local sf = require("steadyflake")

local seconds = tonumber(arg[1] or "0.5")

-- Runs body(n) with n doubling until one run takes `seconds`; reports the last run.
local function measure(name, ids_per_call, body)
  local n = 1024
  while true do
    local t0 = os.clock()
    local sink = body(n)
    local elapsed = os.clock() - t0
    if sink == nil then
      error(name .. ": the body returned nothing")
    end
    if elapsed >= seconds or n >= 2 ^ 31 then
      local ids = n * ids_per_call
      print(string.format('{"binding": "lua_c", "name": "%s", "lua": "%s", "ids": %d, '
        .. '"seconds": %.6f, "ids_per_second": %.1f}', name, _VERSION, ids, elapsed,
        ids / elapsed))
      return
    end
    n = n * 2
  end
end

local gen = sf.new({server_id = 1, layout = "38/3/22@1ms"})

-- The IDs are added up, as bindings/lua/bench.lua does, so each case does the same work around
-- its call as the baseline. On Lua 5.1 IDs are strings, and the cases keep the last one.
local function constant()
  return 1
end

measure("lua_function_constant", 1, function(n)
  local sum = 0
  for _ = 1, n do
    sum = sum + constant()
  end
  return sum
end)

if sf.integer_ids then
  measure("lua_c_next", 1, function(n)
    local sum = 0
    for _ = 1, n do
      sum = sum + gen:next()
    end
    return sum
  end)
  measure("lua_c_try_next", 1, function(n)
    local sum = 0
    for _ = 1, n do
      sum = sum + gen:try_next()
    end
    return sum
  end)
else
  measure("lua_c_next", 1, function(n)
    local id
    for _ = 1, n do
      id = gen:next()
    end
    return id
  end)
end

measure("lua_c_next_batch_1000", 1000, function(n)
  local ids
  for _ = 1, n do
    ids = gen:next_batch(1000)
  end
  return ids
end)

gen:close()
