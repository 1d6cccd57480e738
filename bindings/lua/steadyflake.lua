-- Copyright 2026 The steadyflake Authors.
-- SPDX-License-Identifier: Apache-2.0
--
-- steadyflake for LuaJIT (skynet, OpenResty): a thin FFI wrapper over the C ABI,
-- capi/include/steadyflake/c.h, in libsteadyflake_c.so. docs/bindings.md describes it.
--
--   local steadyflake = require("steadyflake")
--   local gen = assert(steadyflake.new{server_id = 7, state_dir = "/var/lib/game/ids"})
--   local id = gen:next()              -- int64_t cdata, e.g. 465962119506959363LL
--   local text = gen:next_string()     -- "465962119506959364", for JSON and Lua 5.1 peers
--   local ids = gen:next_batch(100)    -- Lua array of 100 increasing int64_t cdata
--   local parts = steadyflake.decode(id)  -- {unix_ms = ..., server_id = 7, sequence = ...}
--   gen:close()                        -- or leave it to the garbage collector
--
-- Errors: a call that can fail for a reason of the environment or the input (new, next_batch,
-- decode, compose, parse) returns nil and the C library's message, OpenResty's convention.
-- Misuse that is a bug in the caller (a wrong argument type, next on a closed generator)
-- raises a Lua error.
--
-- The library is loaded by ffi.load from the environment variable STEADYFLAKE_C_LIBRARY (a
-- path) when set, else as "steadyflake_c" from the dynamic linker's search path (an install
-- prefix in /etc/ld.so.conf, or LD_LIBRARY_PATH).
local ffi = require("ffi")

-- c.h's declarations, without its comments and export macros. Guarded so that loading this
-- module next to another copy of it (or another wrapper) does not redefine the types.
if not pcall(ffi.typeof, "steadyflake_parts") then
  ffi.cdef([[
typedef struct steadyflake_options steadyflake_options;
typedef struct steadyflake_generator steadyflake_generator;
typedef struct { int64_t unix_ms; uint64_t server_id; uint64_t sequence; } steadyflake_parts;
steadyflake_options* steadyflake_options_create(void);
void steadyflake_options_destroy(steadyflake_options*);
void steadyflake_options_set_layout(steadyflake_options*, const char* layout, char** errptr);
void steadyflake_options_set_server_id(steadyflake_options*, uint64_t server_id);
void steadyflake_options_set_state_dir(steadyflake_options*, const char* dir);
void steadyflake_options_set_max_lead_ms(steadyflake_options*, int64_t ms);
steadyflake_generator* steadyflake_generator_open(const steadyflake_options*, char** errptr);
void steadyflake_generator_close(steadyflake_generator*);
int64_t steadyflake_next(steadyflake_generator*);
int steadyflake_try_next(steadyflake_generator*, int64_t* id);
size_t steadyflake_next_batch(steadyflake_generator*, int64_t* ids, size_t n, char** errptr);
void steadyflake_decode(const char* layout, int64_t id, steadyflake_parts* out, char** errptr);
int64_t steadyflake_compose(const char* layout, int64_t unix_ms, uint64_t server_id,
                            uint64_t sequence, char** errptr);
size_t steadyflake_format(int64_t id, char* buf, size_t len);
int64_t steadyflake_parse(const char* text, char** errptr);
void steadyflake_free(void* ptr);
const char* steadyflake_version(void);
]])
end

local C = ffi.load(os.getenv("STEADYFLAKE_C_LIBRARY") or "steadyflake_c")

local M = {}

local int64_t = ffi.typeof("int64_t")
local int64_array = ffi.typeof("int64_t[?]")
-- STEADYFLAKE_FORMAT_BUFFER_SIZE: any int64_t in decimal, with its sign and the NUL.
local kFormatBufferSize = 21
local format_buffer = ffi.new("char[?]", kFormatBufferSize)
local errptr = ffi.new("char*[1]")
local id_box = ffi.new("int64_t[1]")
local parts_box = ffi.new("steadyflake_parts")

-- The message the last call left in errptr (freed here), or nil. The module's buffers are
-- shared: LuaJIT runs one Lua state per OS thread and a call never yields midway.
local function take_error()
  local message = errptr[0]
  if message == nil then
    return nil
  end
  local text = ffi.string(message)
  C.steadyflake_free(message)
  errptr[0] = nil
  return text
end

-- An ID argument as int64_t: int64_t or uint64_t cdata, a decimal string, or a Lua number that
-- holds an integer exactly (below 2^53: a double above it may already have lost digits).
local function to_id(value, what)
  local kind = type(value)
  if kind == "cdata" then
    return ffi.cast(int64_t, value)
  elseif kind == "string" then
    local id = C.steadyflake_parse(value, errptr)
    local err = take_error()
    if err ~= nil then
      return nil, err
    end
    return id
  elseif kind == "number" then
    if value ~= math.floor(value) or value < 0 or value > 2 ^ 53 then
      return nil, string.format(
        "%s %s is not an ID a Lua number holds exactly (a whole number in [0, 2^53]); pass "
          .. "the int64_t cdata or the decimal string instead", what, tostring(value))
    end
    return ffi.cast(int64_t, value)
  end
  error(string.format("steadyflake: %s must be an int64_t cdata, a decimal string or a number, "
    .. "not a %s", what, kind), 3)
end

-- A non-negative whole Lua number (server id, sequence, milliseconds) or cdata.
local function check_count(value, what)
  if type(value) == "cdata" then
    return value
  end
  if type(value) ~= "number" or value ~= math.floor(value) or value < 0 or value >= 2 ^ 63 then
    error(string.format("steadyflake: %s must be a whole number >= 0, not %s", what,
      tostring(value)), 3)
  end
  return value
end

local Generator = {}
Generator.__index = Generator

-- Opens a generator. opts: server_id (required: 0 is a valid id, so none is assumed), layout
-- ("game", "snowflake" or "T/S/Q@Nms"; default "game"), state_dir (a folder for the state file
-- that keeps IDs from repeating across restarts; recommended in production), max_lead_ms
-- (default 2000). Returns the generator, or nil and the reason.
function M.new(opts)
  if type(opts) ~= "table" then
    error("steadyflake.new: expects a table, e.g. steadyflake.new{server_id = 7}", 2)
  end
  if opts.server_id == nil then
    return nil, "steadyflake.new: server_id is required (each server that may ever be merged "
      .. "needs its own; two servers left at a default would issue the same IDs)"
  end
  local server_id = check_count(opts.server_id, "server_id")
  local options = ffi.gc(C.steadyflake_options_create(), C.steadyflake_options_destroy)
  if options == nil then
    return nil, "steadyflake.new: out of memory"
  end
  if opts.layout ~= nil then
    C.steadyflake_options_set_layout(options, tostring(opts.layout), errptr)
    local err = take_error()
    if err ~= nil then
      return nil, err
    end
  end
  C.steadyflake_options_set_server_id(options, server_id)
  if opts.state_dir ~= nil then
    C.steadyflake_options_set_state_dir(options, tostring(opts.state_dir))
  end
  if opts.max_lead_ms ~= nil then
    C.steadyflake_options_set_max_lead_ms(options, check_count(opts.max_lead_ms, "max_lead_ms"))
  end
  local handle = C.steadyflake_generator_open(options, errptr)
  local err = take_error()
  -- Options are copied by open: free them now rather than at the next collection.
  C.steadyflake_options_destroy(ffi.gc(options, nil))
  if handle == nil then
    return nil, err or "steadyflake.new: the generator could not be opened"
  end
  -- A generator the program drops is closed by the collector (which writes its state file and
  -- releases its lock); close() does it at a time of the caller's choosing.
  return setmetatable({handle = ffi.gc(handle, C.steadyflake_generator_close)}, Generator)
end

local function unusable()
  error("steadyflake: the generator is closed, or was opened before fork() in this process's "
    .. "parent; open a new one (with its own server id in a forked child)", 3)
end

-- One ID (int64_t cdata), larger than every ID this generator issued before. Waits only in a
-- spike beyond max_lead or while the state file cannot be extended.
function Generator:next()
  local id = C.steadyflake_next(self.handle)
  if id < 0 then
    unusable()
  end
  return id
end

-- Like next, but never waits: the ID, or nil when next would wait.
function Generator:try_next()
  local issued = C.steadyflake_try_next(self.handle, id_box)
  if issued == 1 then
    return id_box[0]
  elseif issued == 0 then
    return nil
  end
  unusable()
end

-- The next ID as a decimal string.
function Generator:next_string()
  local id = C.steadyflake_next(self.handle)
  if id < 0 then
    unusable()
  end
  C.steadyflake_format(id, format_buffer, kFormatBufferSize)
  return ffi.string(format_buffer)
end

-- n increasing IDs, as a Lua array of int64_t cdata (an empty one for n = 0): one atomic
-- reservation up to the generator's largest batch (205,824 for "game" at the default
-- max_lead), several beyond it, each waiting until its IDs may be issued.
function Generator:next_batch(n)
  n = check_count(n, "n")
  local ids = int64_array(n)
  local got = C.steadyflake_next_batch(self.handle, ids, n, errptr)
  local err = take_error()
  if err ~= nil then
    if self.handle == nil then
      unusable()
    end
    return nil, err
  end
  local out = {}
  for i = 0, tonumber(got) - 1 do
    out[i + 1] = ids[i]
  end
  return out
end

-- Stops the generator's thread, records its last tick in the state file and releases the
-- file's lock. Calling it again does nothing; next() afterwards raises an error.
function Generator:close()
  local handle = self.handle
  if handle ~= nil then
    self.handle = nil
    C.steadyflake_generator_close(ffi.gc(handle, nil))
  end
end

-- Splits an ID (int64_t cdata, decimal string or exact Lua number) under layout (default
-- "game") into {unix_ms, server_id, sequence}, Lua numbers; unix_ms is the start of the ID's
-- tick. nil and the reason on a bad layout or an ID outside the layout.
function M.decode(id, layout)
  local value, err = to_id(id, "id")
  if value == nil then
    return nil, err
  end
  C.steadyflake_decode(layout, value, parts_box, errptr)
  err = take_error()
  if err ~= nil then
    return nil, err
  end
  return {
    unix_ms = tonumber(parts_box.unix_ms),
    server_id = tonumber(parts_box.server_id),
    sequence = tonumber(parts_box.sequence),
  }
end

-- The ID (int64_t cdata) of the given fields under layout (nil = "game"); unix_ms is rounded
-- down to its tick. nil and the reason when a field does not fit the layout.
function M.compose(layout, unix_ms, server_id, sequence)
  local id = C.steadyflake_compose(layout, check_count(unix_ms, "unix_ms"),
    check_count(server_id, "server_id"), check_count(sequence, "sequence"), errptr)
  local err = take_error()
  if err ~= nil then
    return nil, err
  end
  return id
end

-- An ID in decimal, without LuaJIT's "LL" suffix.
function M.tostring(id)
  local value, err = to_id(id, "id")
  if value == nil then
    error("steadyflake.tostring: " .. err, 2)
  end
  C.steadyflake_format(value, format_buffer, kFormatBufferSize)
  return ffi.string(format_buffer)
end

-- An ID written in decimal (digits only, at most 9223372036854775807) as int64_t cdata; nil
-- and the reason otherwise.
function M.parse(text)
  if type(text) ~= "string" then
    error("steadyflake.parse: expects a string, not a " .. type(text), 2)
  end
  local id = C.steadyflake_parse(text, errptr)
  local err = take_error()
  if err ~= nil then
    return nil, err
  end
  return id
end

-- The C library's version, e.g. "0.1.0".
function M.version()
  return ffi.string(C.steadyflake_version())
end

return M
