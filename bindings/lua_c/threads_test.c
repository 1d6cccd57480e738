/* Copyright 2026 The steadyflake Authors.
   SPDX-License-Identifier: Apache-2.0

   The skynet case for the Lua C module: several Lua states in one process, each on a thread of
   its own, each calling steadyflake.new with the same server id and state folder. Run by CTest
   (bindings/lua_c/CMakeLists.txt):

     lua_c_threads_test MODULE_DIR WORK_DIR

   MODULE_DIR holds steadyflake.so for the Lua version this program is linked with (5.3 or
   later: it reads IDs as integers). Checks that:
   - every state gets the one shared generator (a second C generator of the server id would be
     refused by the state folder's lock, and stats().shared counts the states);
   - one state closing its generator (and its whole state) while the others issue IDs leaves
     theirs working: the handle is closed by the last release only;
   - the IDs of all states are distinct, each state's increasing (next in some states,
     next_batch in others);
   - after every state closed, a new one opens the server id again (the folder was released)
     and issues above every ID seen (the last close wrote the state file).
   Exits 0 on success, 1 on a failure (printed). */
#define _POSIX_C_SOURCE 200809L

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if LUA_VERSION_NUM < 503
#error "lua_c_threads_test reads IDs as Lua integers: build it against Lua 5.3 or later"
#endif

enum { kThreads = 4, kIdsPerThread = 100000 };

static const char* module_dir;
static char state_dir[4096];
static pthread_barrier_t opened, counted;

/* Opens the generator; leaves it at stack index 1. */
static const char kOpen[] =
    "local sf = require 'steadyflake'\n"
    "return sf.new{server_id = 21, layout = 'snowflake', state_dir = ...}\n";
static const char kShared[] = "local gen = ...; return gen:stats().shared\n";
/* n IDs through next (batch false) or next_batch(1000), each state's checked increasing. */
static const char kIssue[] =
    "local gen, n, batch = ...\n"
    "local ids = {}\n"
    "if batch then\n"
    "  while #ids < n do\n"
    "    for _, id in ipairs(gen:next_batch(1000)) do ids[#ids + 1] = id end\n"
    "  end\n"
    "else\n"
    "  for i = 1, n do ids[i] = gen:next() end\n"
    "end\n"
    "for i = 2, #ids do\n"
    "  if ids[i] <= ids[i - 1] then error(('ID %d not above the one before'):format(i)) end\n"
    "end\n"
    "return ids\n";

typedef struct {
  int index;
  int64_t ids[kIdsPerThread];
  int count;
  int64_t shared_seen;
  char error[512];
} thread_result;

static thread_result results[kThreads];

/* A Lua state whose package.cpath is MODULE_DIR/?.so only. */
static lua_State* new_state(void) {
  lua_State* L = luaL_newstate();
  if (L == NULL) return NULL;
  luaL_openlibs(L);
  lua_getglobal(L, "package");
  lua_pushfstring(L, "%s/?.so", module_dir);
  lua_setfield(L, -2, "cpath");
  lua_pop(L, 1);
  return L;
}

/* Runs `code` with the `nargs` values on the stack's top; 0 and the message in `error` on a
   Lua error. */
static int run(lua_State* L, const char* code, int nargs, int nresults, char* error, size_t size) {
  if (luaL_loadstring(L, code) != 0) {
    snprintf(error, size, "%s", lua_tostring(L, -1));
    return 0;
  }
  lua_insert(L, -(nargs + 1));
  if (lua_pcall(L, nargs, nresults, 0) != 0) {
    snprintf(error, size, "%s", lua_tostring(L, -1));
    return 0;
  }
  return 1;
}

static int read_ids(lua_State* L, thread_result* result) {
  const lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
  for (lua_Integer i = 1; i <= n && result->count < kIdsPerThread; ++i) {
    lua_rawgeti(L, -1, i);
    int is_integer = 0;
    result->ids[result->count++] = (int64_t)lua_tointegerx(L, -1, &is_integer);
    lua_pop(L, 1);
    if (!is_integer) {
      snprintf(result->error, sizeof result->error, "ID %d is not an integer", (int)i);
      return 0;
    }
  }
  return 1;
}

static void* run_thread(void* arg) {
  thread_result* result = (thread_result*)arg;
  lua_State* L = new_state();
  int ok = L != NULL;
  if (ok) {
    lua_pushstring(L, state_dir);
    ok = run(L, kOpen, 1, 1, result->error, sizeof result->error);
  }
  pthread_barrier_wait(&opened); /* every state has opened (or failed to) */
  if (ok) {
    lua_pushvalue(L, 1);
    ok = run(L, kShared, 1, 1, result->error, sizeof result->error);
    if (ok) result->shared_seen = (int64_t)lua_tointeger(L, -1);
    if (ok) lua_pop(L, 1);
  }
  pthread_barrier_wait(&counted); /* no state closes before all have counted */
  if (ok && result->index == 0) {
    /* Closes its generator, then its whole state, while the others issue. */
    lua_close(L);
    return NULL;
  }
  if (ok) {
    lua_pushvalue(L, 1);
    lua_pushinteger(L, kIdsPerThread);
    lua_pushboolean(L, result->index % 2 == 0);
    ok = run(L, kIssue, 3, 1, result->error, sizeof result->error);
    if (ok) read_ids(L, result);
  }
  if (L != NULL) lua_close(L); /* the collector closes the generator */
  return NULL;
}

static int compare(const void* a, const void* b) {
  const int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x > y) - (x < y);
}

/* All IDs sorted: distinct, and the largest in *largest. 0 on a duplicate. */
static int check_distinct(int64_t* largest) {
  static int64_t all[kThreads * kIdsPerThread];
  size_t n = 0;
  for (int t = 0; t < kThreads; ++t) {
    memcpy(all + n, results[t].ids, (size_t)results[t].count * sizeof(int64_t));
    n += (size_t)results[t].count;
  }
  qsort(all, n, sizeof all[0], compare);
  for (size_t i = 1; i < n; ++i) {
    if (all[i] == all[i - 1]) {
      printf("FAIL: ID %lld issued twice\n", (long long)all[i]);
      return 0;
    }
  }
  *largest = n > 0 ? all[n - 1] : 0;
  printf("%zu IDs from %d states, all distinct\n", n, kThreads - 1);
  return n == (size_t)(kThreads - 1) * kIdsPerThread;
}

/* After every state closed: a new state opens the server id again, above every ID seen. */
static int check_reopen(int64_t largest) {
  static const char kReopen[] =
      "local largest = ...\n"
      "local sf = require 'steadyflake'\n"
      "local gen = sf.new{server_id = 21, layout = 'snowflake', state_dir = select(2, ...)}\n"
      "assert(gen:stats().shared == 1, 'shared ' .. gen:stats().shared)\n"
      "local id = gen:next()\n"
      "assert(id > largest, ('after a reopen %d is not above %d'):format(id, largest))\n"
      "gen:close()\n";
  char error[512] = "";
  lua_State* L = new_state();
  if (L == NULL) return 0;
  lua_pushinteger(L, (lua_Integer)largest);
  lua_pushstring(L, state_dir);
  const int ok = run(L, kReopen, 2, 0, error, sizeof error);
  lua_close(L);
  if (!ok) printf("FAIL: reopen: %s\n", error);
  return ok;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: lua_c_threads_test MODULE_DIR WORK_DIR\n");
    return 2;
  }
  module_dir = argv[1];
  snprintf(state_dir, sizeof state_dir, "%s/state", argv[2]);
  char command[4200];
  snprintf(command, sizeof command, "rm -rf '%s'", state_dir);
  if (system(command) != 0) return 2;
  pthread_barrier_init(&opened, NULL, kThreads);
  pthread_barrier_init(&counted, NULL, kThreads);
  pthread_t threads[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    results[t].index = t;
    pthread_create(&threads[t], NULL, run_thread, &results[t]);
  }
  for (int t = 0; t < kThreads; ++t) pthread_join(threads[t], NULL);
  int ok = 1;
  for (int t = 0; t < kThreads; ++t) {
    if (results[t].error[0] != '\0') {
      printf("FAIL: state %d: %s\n", t, results[t].error);
      ok = 0;
    }
    if (results[t].shared_seen != kThreads) {
      printf("FAIL: state %d: stats().shared = %lld, expected %d\n", t,
             (long long)results[t].shared_seen, kThreads);
      ok = 0;
    }
  }
  int64_t largest = 0;
  ok = check_distinct(&largest) && ok;
  ok = ok && check_reopen(largest);
  printf("%s\n", ok ? "PASS lua_c_threads_test" : "FAIL lua_c_threads_test");
  return ok ? 0 : 1;
}
