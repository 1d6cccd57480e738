/* Copyright 2026 The steadyflake Authors.
   SPDX-License-Identifier: Apache-2.0

   Internal to the Lua C module (bindings/lua_c): the process-wide table of open generators,
   so that every Lua state of a process (skynet's services, each on whichever worker thread
   runs it) that opens the same server id and layout shares one C handle.

   Why: the engine allows one generator per layout, epoch and server id on a host (its host
   guard refuses a second one, naming the holder's pid, which here would be this process), and
   two generators with one server id would issue the same IDs. A C handle is safe for any
   number of threads (c.h), so one handle, counted, serves every Lua state: it is opened by the
   first acquire and closed by the last release.

   Thread safety: every function may be called from any thread. The table and each entry's
   reference count are guarded by one mutex; the handle and the strings of an entry never
   change while it is acquired, so a holder reads them without locking. */
#ifndef STEADYFLAKE_LUA_C_SHARED_GENERATORS_H_
#define STEADYFLAKE_LUA_C_SHARED_GENERATORS_H_

#include <stddef.h>
#include <stdint.h>

#include "steadyflake/c.h"

/* max_lead_ms when none is given: c.h's default. */
#define SF_DEFAULT_MAX_LEAD_MS 2000

typedef struct sf_shared sf_shared;

/* What steadyflake.new was given. layout NULL means "game"; state_dir NULL or "" means none. */
typedef struct {
  uint64_t server_id;
  const char* layout;
  const char* state_dir;
  int64_t max_lead_ms;
} sf_shared_options;

/* The open generator for (server_id, layout), with one more reference; opened if there is
   none. Spellings of one layout ("game", "37/16/10@10ms") are one layout. On failure returns
   NULL and sets *error to a malloc'd message (free it with free()): the C ABI's message (bad
   layout, id out of range, state folder locked, ...), or a mismatch with the options the open
   generator was given (state_dir, max_lead_ms), which a second opener must repeat. */
sf_shared* sf_shared_acquire(const sf_shared_options* options, char** error);

/* Drops one reference; the last closes the C handle (writing its state file). NULL does
   nothing. */
void sf_shared_release(sf_shared* shared);

/* The C handle: valid until the caller's reference is released. */
steadyflake_generator* sf_shared_handle(const sf_shared* shared);

/* The server id, and the layout as the first opener spelled it ("game" when it gave none). */
uint64_t sf_shared_server_id(const sf_shared* shared);
const char* sf_shared_layout(const sf_shared* shared);

/* The state folder ("" for none) and max_lead_ms the generator was opened with. */
const char* sf_shared_state_dir(const sf_shared* shared);
int64_t sf_shared_max_lead_ms(const sf_shared* shared);

/* How many references the generator has now (Lua generators of every state in the process). */
size_t sf_shared_refs(const sf_shared* shared);

#endif /* STEADYFLAKE_LUA_C_SHARED_GENERATORS_H_ */
