/* Copyright 2026 The steadyflake Authors.
   SPDX-License-Identifier: Apache-2.0

   Internal to the Lua C module (bindings/lua_c): the few calls that differ between the Lua
   versions it is built for (5.1, 5.3, 5.4; 5.2 would take the 5.1 path for IDs). */
#ifndef STEADYFLAKE_LUA_C_LUA_COMPAT_H_
#define STEADYFLAKE_LUA_C_LUA_COMPAT_H_

#include <lauxlib.h>
#include <lua.h>

/* Lua 5.3 and later have 64-bit integers: IDs are Lua integers there. Before, a number is a
   double, which loses digits above 2^53, so IDs are decimal strings. */
#if LUA_VERSION_NUM >= 503
#define SF_INTEGER_IDS 1
#else
#define SF_INTEGER_IDS 0
#endif

#if LUA_VERSION_NUM < 502
/* luaL_setfuncs of 5.2: registers `l` into the table below the `nup` upvalues on the top of the
   stack, each function a closure over them, and pops them. */
static void luaL_setfuncs(lua_State* L, const luaL_Reg* l, int nup) {
  luaL_checkstack(L, nup, "too many upvalues");
  for (; l->name != NULL; l++) {
    for (int i = 0; i < nup; i++) lua_pushvalue(L, -nup);
    lua_pushcclosure(L, l->func, nup);
    lua_setfield(L, -(nup + 2), l->name);
  }
  lua_pop(L, nup);
}
#endif

#endif /* STEADYFLAKE_LUA_C_LUA_COMPAT_H_ */
