-- Copyright 2026 The steadyflake Authors.
-- SPDX-License-Identifier: Apache-2.0
--
-- wrk script: POST /players with a name no other request of the run uses
-- (thread number, per-thread counter, and a per-run random tag).
local threads = 0

function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

function init(args)
  math.randomseed(os.time() + tid)
  tag = math.random(0, 2147483647)
  counter = 0
end

function request()
  counter = counter + 1
  local body = string.format('{"name":"load-%d-%d-%d"}', tag, tid, counter)
  return wrk.format("POST", "/players", { ["Content-Type"] = "application/json" }, body)
end
