-- Copyright 2026 The steadyflake Authors.
-- SPDX-License-Identifier: Apache-2.0
--
-- IDs per second through the LuaJIT binding, run by bench/run:
--
--   STEADYFLAKE_C_LIBRARY=build-release/capi/libsteadyflake_c.so LUA_PATH='bindings/lua/?.lua' \
--     luajit bindings/lua/bench.lua [SECONDS]
--
-- Prints one JSON object per case on its own line: {"name", "luajit", "ids", "seconds",
-- "ids_per_second"}.
-- The baseline is the bare FFI call of steadyflake_next, measured in the same run, so the
-- binding's own cost is the ratio of the two. Each case runs for about SECONDS (default 0.5)
-- of wall time, on the layout the C++ benchmarks use (38/3/22@1ms: 2^22 IDs per millisecond,
-- so the layout's capacity never binds and the figures are the code's, not the clock's).
local ffi = require("ffi")
local steadyflake = require("steadyflake")

ffi.cdef([[
typedef struct { long tv_sec; long tv_nsec; } steadyflake_bench_timespec;
int clock_gettime(int clock_id, steadyflake_bench_timespec* tp);
]])
local kClockMonotonic = 1
local timespec = ffi.new("steadyflake_bench_timespec")
local function now()
  ffi.C.clock_gettime(kClockMonotonic, timespec)
  return tonumber(timespec.tv_sec) + tonumber(timespec.tv_nsec) * 1e-9
end

local seconds = tonumber(arg[1] or "0.5")
local kLayout = "38/3/22@1ms"
local C = ffi.load(os.getenv("STEADYFLAKE_C_LIBRARY") or "steadyflake_c")

-- Runs body(n) with n doubling until one run takes `seconds`; reports the last run.
local function measure(name, ids_per_call, body)
  local n = 1024
  while true do
    local t0 = now()
    local sink = body(n)
    local elapsed = now() - t0
    if sink == nil then
      error(name .. ": the body returned nothing")
    end
    if elapsed >= seconds or n >= 2 ^ 31 then
      local ids = n * ids_per_call
      print(string.format(
        '{"name": "%s", "luajit": "%s", "ids": %d, "seconds": %.6f, "ids_per_second": %.1f}',
        name, jit.version, ids, elapsed, ids / elapsed))
      return
    end
    n = n * 2
  end
end

local gen = assert(steadyflake.new({server_id = 1, layout = kLayout}))
local handle = gen.handle

-- The IDs are added up rather than kept: LuaJIT then keeps each one in a register. An ID the
-- program keeps as a Lua value is a boxed int64_t cdata, a heap allocation the collector later
-- frees; "lua_next_kept" measures that case.
measure("ffi_steadyflake_next", 1, function(n)
  local sum = 0LL
  for _ = 1, n do
    sum = sum + C.steadyflake_next(handle)
  end
  return sum
end)

measure("lua_next", 1, function(n)
  local sum = 0LL
  for _ = 1, n do
    sum = sum + gen:next()
  end
  return sum
end)

measure("lua_next_kept", 1, function(n)
  local id
  for _ = 1, n do
    id = gen:next()
  end
  return id
end)

measure("lua_try_next", 1, function(n)
  local sum = 0LL
  for _ = 1, n do
    sum = sum + gen:try_next()
  end
  return sum
end)

measure("lua_next_string", 1, function(n)
  local text
  for _ = 1, n do
    text = gen:next_string()
  end
  return text
end)

measure("lua_next_batch_1000", 1000, function(n)
  local ids
  for _ = 1, n do
    ids = gen:next_batch(1000)
  end
  return ids
end)

gen:close()
