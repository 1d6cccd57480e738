-- Copyright 2026 The steadyflake Authors.
-- SPDX-License-Identifier: Apache-2.0
--
-- What the Lua tests share (bindings/lua/steadyflake_test.lua under LuaJIT, and
-- bindings/lua_c/steadyflake_c_test.lua under Lua 5.1, 5.3 and 5.4): tests by name, checks,
-- fresh state folders, the ID vectors, and the run that prints one line per test. Plain Lua
-- 5.1, so every interpreter loads it (LUA_PATH names this folder).
local M = {}

-- A harness for `work_dir` (a folder the tests may write state folders under).
function M.new(work_dir)
  local h = { names = {}, tests = {}, folder_count = 0 }

  function h.test(name, fn)
    h.tests[name] = fn
    h.names[#h.names + 1] = name
  end

  -- A fresh folder under work_dir (the C library creates a missing state folder itself).
  function h.fresh_folder(name)
    h.folder_count = h.folder_count + 1
    local path = string.format("%s/%s-%d-%d", work_dir, name, h.folder_count, os.time())
    local status = os.execute("rm -rf '" .. path .. "'")
    assert(status == true or status == 0, "rm -rf " .. path) -- 5.2+: true; 5.1, LuaJIT: 0
    return path
  end

  -- Runs the tests (only `only` when given), one line each, then the count with `label`;
  -- exits 0 when all passed, 1 when one failed, 2 when no test has the name `only`.
  function h.run(only, label)
    local failed, ran = 0, 0
    for _, name in ipairs(h.names) do
      if only == nil or only == name then
        ran = ran + 1
        local ok, err = pcall(h.tests[name])
        if ok then
          print("ok   " .. name)
        else
          failed = failed + 1
          print("FAIL " .. name .. ": " .. tostring(err))
        end
      end
    end
    if ran == 0 then
      print("no test named " .. tostring(only))
      os.exit(2)
    end
    print(string.format("%d of %d %s passed", ran - failed, ran, label))
    -- true: close the state first (5.2+), so every generator is collected (valgrind sees no
    -- leak); 5.1 and LuaJIT ignore it.
    os.exit(failed == 0 and 0 or 1, true)
  end

  return h
end

function M.check(condition, message, ...)
  if not condition then
    error(string.format(message, ...), 2)
  end
end

function M.contains(text, needle)
  return type(text) == "string" and text:find(needle, 1, true) ~= nil
end

-- data/id_vectors.json holds one vector per line, so a pattern per field reads it without a
-- JSON library (LuaJIT and Lua ship none).
function M.read_vectors(path)
  local vectors = {}
  for line in io.lines(path) do
    local layout = line:match('"layout":%s*"([^"]+)"')
    if layout ~= nil then
      vectors[#vectors + 1] = {
        layout = layout,
        id = assert(line:match('"id":%s*"(%d+)"'), line),
        unix_ms = tonumber((assert(line:match('"unix_ms":%s*(%d+)'), line))),
        server_id = tonumber((assert(line:match('"server_id":%s*(%d+)'), line))),
        sequence = tonumber((assert(line:match('"sequence":%s*(%d+)'), line))),
      }
    end
  end
  return vectors
end

return M
