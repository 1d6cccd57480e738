/* Copyright 2026 The steadyflake Authors.
   SPDX-License-Identifier: Apache-2.0

   steadyflake for standard Lua 5.1, 5.3 and 5.4 (skynet, and any host that loads Lua C
   modules): `require "steadyflake"` loads this file built as steadyflake.so, a thin layer over
   the C ABI (capi/include/steadyflake/c.h) in libsteadyflake_c.so. docs/bindings.md
   describes it.

     local sf = require "steadyflake"
     local gen = sf.new{server_id = 7, state_dir = "/var/lib/game/ids"}
     local id = gen:next()               -- 465962119506959363 (a string on Lua 5.1)
     local ids = gen:next_batch(100)     -- array of 100 increasing IDs
     local parts = gen:decode(id)        -- {unix_ms = ..., server_id = 7, sequence = ...}
     gen:close()                         -- or leave it to the collector

   IDs: Lua integers on 5.3 and later; decimal strings on 5.1, whose numbers are doubles that
   lose digits above 2^53. An ID argument may be either form (and a number while it is exact).

   Errors: every failure raises a Lua error; a failure of the C ABI raises its message (naming
   the field, the value and the allowed range). try_next returns nil when next would wait.

   Threads: a generator (a userdata) belongs to the Lua state that made it, like every Lua
   value. Every steadyflake.new of one server id and layout in a process, from any state on any
   thread, shares one C handle (shared_generators.h), which is thread-safe; the last close
   closes it. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "lua_compat.h"
#include "shared_generators.h"
#include "steadyflake/c.h"

#if defined(__GNUC__)
#define SF_LUA_EXPORT __attribute__((visibility("default")))
#else
#define SF_LUA_EXPORT
#endif

#define SF_METATABLE "steadyflake.generator"

static const char kClosed[] = "steadyflake: the generator is closed";
static const char kForked[] =
    "steadyflake: this generator was opened before fork(): a child must open its own (with "
    "its own server id), or it would issue its parent's IDs";

/* The userdata. handle and shared are NULL once closed. */
typedef struct {
  steadyflake_generator* handle; /* sf_shared_handle(shared), kept for next()'s one load */
  sf_shared* shared;
} lua_generator;

/* ---- Errors. ---- */

/* Raises `message` with the caller's position in front, as luaL_error does. */
static int raise_message(lua_State* L, const char* message) {
  luaL_where(L, 1);
  lua_pushstring(L, message);
  lua_concat(L, 2);
  return lua_error(L);
}

/* Raises a message of the C ABI's, freeing it first (lua_error does not return). */
static int raise_c_error(lua_State* L, char* message) {
  luaL_where(L, 1);
  lua_pushstring(L, message);
  steadyflake_free(message);
  lua_concat(L, 2);
  return lua_error(L);
}

/* ---- Numbers and IDs. ---- */

/* A whole number (a Lua integer, or a float without a fraction) as int64_t; raises naming
   `what` otherwise. */
static int64_t check_whole(lua_State* L, int idx, const char* what) {
  if (lua_type(L, idx) == LUA_TNUMBER) {
#if SF_INTEGER_IDS
    if (lua_isinteger(L, idx)) return (int64_t)lua_tointeger(L, idx);
#endif
    const lua_Number value = lua_tonumber(L, idx);
    /* The range check first: converting a double outside int64_t is undefined. */
    if (value >= -9223372036854775808.0 && value < 9223372036854775808.0 &&
        (lua_Number)(int64_t)value == value) {
      return (int64_t)value;
    }
    lua_pushfstring(L, "steadyflake: %s must be a whole number, not %f", what, value);
  } else {
    lua_pushfstring(L, "steadyflake: %s must be a whole number, not a %s", what,
                    luaL_typename(L, idx));
  }
  return raise_message(L, lua_tostring(L, -1));
}

static uint64_t check_count(lua_State* L, int idx, const char* what) {
  const int64_t value = check_whole(L, idx, what);
  if (value < 0) {
    char text[STEADYFLAKE_FORMAT_BUFFER_SIZE];
    steadyflake_format(value, text, sizeof text);
    lua_pushfstring(L, "steadyflake: %s must be >= 0, not %s", what, text);
    raise_message(L, lua_tostring(L, -1));
  }
  return (uint64_t)value;
}

/* An ID argument: a Lua integer, a decimal string (read by steadyflake_parse: digits only), or
   a float that holds a whole number exactly (at most 2^53: a larger double may already have
   lost digits). */
static int64_t check_id(lua_State* L, int idx) {
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER: {
#if SF_INTEGER_IDS
      if (lua_isinteger(L, idx)) return (int64_t)lua_tointeger(L, idx);
#endif
      const lua_Number value = lua_tonumber(L, idx);
      if (value >= 0 && value <= 9007199254740992.0 && (lua_Number)(int64_t)value == value) {
        return (int64_t)value;
      }
      lua_pushfstring(L,
                      "steadyflake: ID %f is not a number that holds an ID exactly (a whole "
                      "number in [0, 2^53]); pass the integer or the decimal string",
                      value);
      return raise_message(L, lua_tostring(L, -1));
    }
    case LUA_TSTRING: {
      char* error = NULL;
      const int64_t id = steadyflake_parse(lua_tostring(L, idx), &error);
      if (error != NULL) raise_c_error(L, error);
      return id;
    }
    default:
      lua_pushfstring(L, "steadyflake: an ID must be an integer or a decimal string, not a %s",
                      luaL_typename(L, idx));
      return raise_message(L, lua_tostring(L, -1));
  }
}

/* Pushes a whole number that is not an ID (milliseconds, counts): exact in a double too. */
static void push_whole(lua_State* L, int64_t value) {
#if SF_INTEGER_IDS
  lua_pushinteger(L, (lua_Integer)value);
#else
  lua_pushnumber(L, (lua_Number)value);
#endif
}

/* Pushes an ID: an integer, or on Lua 5.1 its decimal string. */
static void push_id(lua_State* L, int64_t id) {
#if SF_INTEGER_IDS
  lua_pushinteger(L, (lua_Integer)id);
#else
  char text[STEADYFLAKE_FORMAT_BUFFER_SIZE];
  const size_t length = steadyflake_format(id, text, sizeof text);
  lua_pushlstring(L, text, length);
#endif
}

static void set_whole(lua_State* L, const char* name, int64_t value) {
  push_whole(L, value);
  lua_setfield(L, -2, name);
}

/* {unix_ms, time_ms (the same), server_id, sequence}. */
static void push_parts(lua_State* L, const steadyflake_parts* parts) {
  lua_createtable(L, 0, 4);
  set_whole(L, "unix_ms", parts->unix_ms);
  set_whole(L, "time_ms", parts->unix_ms);
  set_whole(L, "server_id", (int64_t)parts->server_id);
  set_whole(L, "sequence", (int64_t)parts->sequence);
}

static int push_decoded(lua_State* L, const char* layout, int64_t id) {
  steadyflake_parts parts;
  char* error = NULL;
  steadyflake_decode(layout, id, &parts, &error);
  if (error != NULL) return raise_c_error(L, error);
  push_parts(L, &parts);
  return 1;
}

/* ---- The generator's methods. Each has the metatable as upvalue 1. ---- */

/* Argument 1 as a generator: compared with the upvalue rather than looked up by name
   (luaL_checkudata), which costs next() a registry look-up. */
static lua_generator* check_generator(lua_State* L) {
  lua_generator* gen = (lua_generator*)lua_touserdata(L, 1);
  if (gen == NULL || !lua_getmetatable(L, 1)) {
    luaL_argerror(L, 1, "steadyflake generator expected (call it as gen:method())");
  }
  if (!lua_rawequal(L, -1, lua_upvalueindex(1))) {
    luaL_argerror(L, 1, "steadyflake generator expected (call it as gen:method())");
  }
  lua_pop(L, 1);
  return gen;
}

static lua_generator* check_open(lua_State* L) {
  lua_generator* gen = check_generator(L);
  if (gen->handle == NULL) raise_message(L, kClosed);
  return gen;
}

/* gen:next(): one ID, larger than every ID the generator issued before. */
static int generator_next(lua_State* L) {
  const int64_t id = steadyflake_next(check_open(L)->handle);
  if (id < 0) return raise_message(L, kForked);
  push_id(L, id);
  return 1;
}

/* gen:try_next(): like next, or nil when next would wait. */
static int generator_try_next(lua_State* L) {
  int64_t id = 0;
  const int issued = steadyflake_try_next(check_open(L)->handle, &id);
  if (issued < 0) return raise_message(L, kForked);
  if (issued == 0) {
    lua_pushnil(L);
  } else {
    push_id(L, id);
  }
  return 1;
}

/* gen:next_batch(n): an array of n increasing IDs ({} for 0). */
static int generator_next_batch(lua_State* L) {
  steadyflake_generator* handle = check_open(L)->handle;
  const uint64_t n = check_count(L, 2, "n");
  if (n > INT_MAX) {
    lua_pushfstring(L, "steadyflake: next_batch(%f): at most %d IDs per call", (lua_Number)n,
                    INT_MAX);
    return raise_message(L, lua_tostring(L, -1));
  }
  /* A userdata, not malloc: the collector frees it even when a later step raises. */
  int64_t* ids = (int64_t*)lua_newuserdata(L, n > 0 ? (size_t)n * sizeof(int64_t) : 1);
  char* error = NULL;
  steadyflake_next_batch(handle, ids, (size_t)n, &error);
  if (error != NULL) return raise_c_error(L, error);
  lua_createtable(L, (int)n, 0);
  for (int i = 0; i < (int)n; ++i) {
    push_id(L, ids[i]);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* gen:decode(id): the ID's fields under this generator's layout. */
static int generator_decode(lua_State* L) {
  const lua_generator* gen = check_open(L);
  return push_decoded(L, sf_shared_layout(gen->shared), check_id(L, 2));
}

/* gen:stats(): the engine's counters (c.h, steadyflake_stats) and what the generator was
   opened with; `shared` counts the Lua generators in the process that use its handle. */
static int generator_stats(lua_State* L) {
  const lua_generator* gen = check_open(L);
  steadyflake_stats stats;
  char* error = NULL;
  steadyflake_generator_stats(gen->handle, &stats, &error);
  if (error != NULL) return raise_c_error(L, error);
  lua_createtable(L, 0, 16);
  set_whole(L, "issued", (int64_t)stats.issued);
  set_whole(L, "waits", (int64_t)stats.waits);
  set_whole(L, "would_wait", (int64_t)stats.would_wait);
  set_whole(L, "lead_ns", stats.lead_ns);
  set_whole(L, "max_lead_seen_ns", stats.max_lead_seen_ns);
  set_whole(L, "skew_ns", stats.skew_ns);
  set_whole(L, "reservation_headroom_ns", stats.reservation_headroom_ns);
  set_whole(L, "state_errors", (int64_t)stats.state_errors);
  lua_pushboolean(L, stats.lost != 0);
  lua_setfield(L, -2, "lost");
  char* state_error = steadyflake_generator_state_error(gen->handle);
  if (state_error != NULL) {
    lua_pushstring(L, state_error);
    steadyflake_free(state_error);
    lua_setfield(L, -2, "state_error");
  }
  set_whole(L, "server_id", (int64_t)sf_shared_server_id(gen->shared));
  lua_pushstring(L, sf_shared_layout(gen->shared));
  lua_setfield(L, -2, "layout");
  if (sf_shared_state_dir(gen->shared)[0] != '\0') {
    lua_pushstring(L, sf_shared_state_dir(gen->shared));
    lua_setfield(L, -2, "state_dir");
  }
  set_whole(L, "max_lead_ms", sf_shared_max_lead_ms(gen->shared));
  set_whole(L, "shared", (int64_t)sf_shared_refs(gen->shared));
  return 1;
}

/* gen:close(), __gc and __close: drops this generator's reference to the shared handle; the
   last one closes it (its state file written, its lock released). Again does nothing. */
static int generator_close(lua_State* L) {
  lua_generator* gen = check_generator(L);
  sf_shared* shared = gen->shared;
  gen->handle = NULL;
  gen->shared = NULL;
  sf_shared_release(shared);
  return 0;
}

static int generator_tostring(lua_State* L) {
  const lua_generator* gen = check_generator(L);
  if (gen->shared == NULL) {
    lua_pushstring(L, "steadyflake.generator (closed)");
  } else {
    char server_id[STEADYFLAKE_FORMAT_BUFFER_SIZE];
    steadyflake_format((int64_t)sf_shared_server_id(gen->shared), server_id, sizeof server_id);
    lua_pushfstring(L, "steadyflake.generator (server_id %s, layout %s)", server_id,
                    sf_shared_layout(gen->shared));
  }
  return 1;
}

/* ---- Module functions. ---- */

/* steadyflake.new's options: a misspelt one ("state_directory") would otherwise be dropped
   silently, and IDs would repeat after a restart. */
static void check_option_names(lua_State* L) {
  static const char* const kNames[] = {"server_id", "layout", "state_dir", "max_lead_ms", NULL};
  lua_pushnil(L);
  while (lua_next(L, 1) != 0) {
    lua_pop(L, 1);
    int known = 0;
    if (lua_type(L, -1) == LUA_TSTRING) {
      for (int i = 0; kNames[i] != NULL && !known; ++i) {
        lua_pushstring(L, kNames[i]);
        known = lua_rawequal(L, -1, -2);
        lua_pop(L, 1);
      }
    }
    if (!known) {
      const int is_name = lua_type(L, -1) == LUA_TSTRING;
      lua_pushfstring(L,
                      "steadyflake.new: unknown option %s%s (the options are server_id, layout, "
                      "state_dir and max_lead_ms)",
                      is_name ? "" : "key of type ",
                      is_name ? lua_tostring(L, -1) : luaL_typename(L, -1));
      raise_message(L, lua_tostring(L, -1));
    }
  }
}

/* Field `name` of the options table (pushed), a string or nil. */
static const char* option_string(lua_State* L, const char* name) {
  lua_getfield(L, 1, name);
  if (lua_isnil(L, -1)) return NULL;
  if (lua_type(L, -1) != LUA_TSTRING) {
    lua_pushfstring(L, "steadyflake.new: %s must be a string, not a %s", name,
                    luaL_typename(L, -1));
    raise_message(L, lua_tostring(L, -1));
  }
  return lua_tostring(L, -1);
}

/* steadyflake.new{server_id, layout, state_dir, max_lead_ms}: a generator. */
static int module_new(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  check_option_names(L);
  sf_shared_options options;
  lua_getfield(L, 1, "server_id");
  if (lua_isnil(L, -1)) {
    return raise_message(L,
                         "steadyflake.new: server_id is required (each server that may ever be "
                         "merged needs its own; two servers left at a default would issue the "
                         "same IDs)");
  }
  options.server_id = check_count(L, -1, "server_id");
  options.layout = option_string(L, "layout");
  options.state_dir = option_string(L, "state_dir");
  lua_getfield(L, 1, "max_lead_ms");
  options.max_lead_ms =
      lua_isnil(L, -1) ? SF_DEFAULT_MAX_LEAD_MS : check_whole(L, -1, "max_lead_ms");
  /* The userdata before the handle: once acquired, nothing may raise before it is owned. */
  lua_generator* gen = (lua_generator*)lua_newuserdata(L, sizeof *gen);
  gen->handle = NULL;
  gen->shared = NULL;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_setmetatable(L, -2);
  char* error = NULL;
  sf_shared* shared = sf_shared_acquire(&options, &error);
  if (shared == NULL) {
    luaL_where(L, 1);
    lua_pushstring(L, error);
    free(error);
    lua_concat(L, 2);
    return lua_error(L);
  }
  gen->shared = shared;
  gen->handle = sf_shared_handle(shared);
  return 1;
}

/* steadyflake.decode(id [, layout]): the fields of an ID under layout (default "game"). */
static int module_decode(lua_State* L) {
  const int64_t id = check_id(L, 1);
  return push_decoded(L, luaL_optstring(L, 2, NULL), id);
}

/* steadyflake.compose(layout, unix_ms, server_id, sequence): the ID of those fields. */
static int module_compose(lua_State* L) {
  const char* layout = luaL_optstring(L, 1, NULL);
  const int64_t unix_ms = check_whole(L, 2, "unix_ms");
  const uint64_t server_id = check_count(L, 3, "server_id");
  const uint64_t sequence = check_count(L, 4, "sequence");
  char* error = NULL;
  const int64_t id = steadyflake_compose(layout, unix_ms, server_id, sequence, &error);
  if (error != NULL) return raise_c_error(L, error);
  push_id(L, id);
  return 1;
}

/* steadyflake.format(id): the ID in decimal, for JSON and for Lua 5.1 peers. */
static int module_format(lua_State* L) {
  char text[STEADYFLAKE_FORMAT_BUFFER_SIZE];
  const size_t length = steadyflake_format(check_id(L, 1), text, sizeof text);
  lua_pushlstring(L, text, length);
  return 1;
}

/* steadyflake.parse(text): an ID written in decimal (digits only), as an ID value. */
static int module_parse(lua_State* L) {
  if (lua_type(L, 1) != LUA_TSTRING) {
    lua_pushfstring(L, "steadyflake.parse: expects a string, not a %s", luaL_typename(L, 1));
    return raise_message(L, lua_tostring(L, -1));
  }
  push_id(L, check_id(L, 1));
  return 1;
}

static int module_version(lua_State* L) {
  lua_pushstring(L, steadyflake_version());
  return 1;
}

static const luaL_Reg kMethods[] = {
    {"next", generator_next},
    {"try_next", generator_try_next},
    {"next_batch", generator_next_batch},
    {"decode", generator_decode},
    {"stats", generator_stats},
    {"close", generator_close},
    {NULL, NULL},
};

static const luaL_Reg kMetamethods[] = {
    {"__gc", generator_close},
#if LUA_VERSION_NUM >= 504
    {"__close", generator_close}, /* local gen <close> = sf.new{...} */
#endif
    {"__tostring", generator_tostring},
    {NULL, NULL},
};

static const luaL_Reg kFunctions[] = {
    {"new", module_new},
    {"decode", module_decode},
    {"compose", module_compose},
    {"format", module_format},
    {"parse", module_parse},
    {"version", module_version},
    {NULL, NULL},
};

SF_LUA_EXPORT int luaopen_steadyflake(lua_State* L) {
  luaL_newmetatable(L, SF_METATABLE); /* mt */
  lua_newtable(L);                    /* mt, methods */
  lua_pushvalue(L, -2);
  luaL_setfuncs(L, kMethods, 1);
  lua_setfield(L, -2, "__index"); /* mt */
  lua_pushvalue(L, -1);
  luaL_setfuncs(L, kMetamethods, 1);
  lua_pushliteral(L, SF_METATABLE);
  lua_setfield(L, -2, "__name");
  lua_newtable(L); /* mt, module */
  lua_pushvalue(L, -2);
  luaL_setfuncs(L, kFunctions, 1);
  /* true where IDs are Lua integers (5.3 and later), false where they are strings (5.1). */
  lua_pushboolean(L, SF_INTEGER_IDS);
  lua_setfield(L, -2, "integer_ids");
  return 1;
}
