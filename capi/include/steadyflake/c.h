/* Copyright 2026 The steadyflake Authors.
   SPDX-License-Identifier: Apache-2.0

   The C ABI of steadyflake, for game code in C and in any language with a C FFI (LuaJIT, Go,
   C#, Python). It is a thin layer over the C++ engine (steadyflake/generator.h,
   steadyflake/layout.h); docs/bindings.md describes the ID format for ports.

   Conventions:
   - Only fixed-width types cross it: IDs are int64_t (never negative when valid), server ids
     and sequences uint64_t, counts size_t. Nothing is passed or returned by value except
     scalars, so no struct layout has to agree between compilers.
   - Handles (steadyflake_options, steadyflake_generator) are opaque. Each is safe for
     concurrent use from any number of threads without external synchronization, except that
     its _destroy / _close must not run while another call on the same handle is in progress
     (as with free()). Passing NULL to _destroy / _close does nothing.
   - errptr: a function that can fail for a reason worth a message takes `char** errptr`.
     *errptr is written on every call: NULL on success, else a malloc'd, NUL-terminated message
     (the text of the C++ steadyflake::Error, naming the field, the value and the allowed
     range) that the caller frees with steadyflake_free. Its value on entry is never read, so a
     message from an earlier call must be freed first or it leaks. errptr itself may be NULL
     when the caller only needs the return value.
   - No C++ exception crosses this ABI; running out of memory is reported as an error
     ("out of memory") where there is an errptr.
   - layout strings are those of the CLI's --layout: "game", "snowflake" or
     "TIME/SERVER/SEQUENCE@TICKms" such as "37/16/10@10ms" (a custom layout takes the `game`
     epoch, 2024-01-01T00:00:00Z). NULL means "game".

   Fork: a generator opened before fork() is unusable in the child. The child would issue the
   IDs the parent issues, and it shares the parent's state-file descriptor and its lock. In the
   child, steadyflake_next and steadyflake_try_next return -1, steadyflake_next_batch sets
   *errptr; the child opens its own generator (with its own server id) instead. Detected with a
   pthread_atfork() child handler, so a process created without running the fork handlers
   (a raw clone() system call) is not detected. steadyflake_generator_close in the child frees
   only the handle, not the engine's state: the parent's ticker thread does not exist there, and
   writing the parent's state file from the child would lower the parent's reservation. */

#ifndef STEADYFLAKE_C_H_
#define STEADYFLAKE_C_H_

#include <stddef.h>
#include <stdint.h>

/* STEADYFLAKE_C_EXPORT marks the ABI's functions: the library is built with hidden
   visibility, so nothing else (the engine's C++ symbols included) is exported. */
#if defined(_WIN32)
#if defined(STEADYFLAKE_C_BUILDING)
#define STEADYFLAKE_C_EXPORT __declspec(dllexport)
#else
#define STEADYFLAKE_C_EXPORT __declspec(dllimport)
#endif
#elif defined(__GNUC__) && !defined(__clang__) && !defined(STEADYFLAKE_C_BUILDING) && \
    (defined(__x86_64__) || defined(__i386__))
/* GCC on x86: a caller reaches the functions through the GOT directly, not through a PLT stub,
   which costs more than the rest of steadyflake_next's call (bench: BM_CApi_Next). */
#define STEADYFLAKE_C_EXPORT __attribute__((visibility("default"), noplt))
#elif defined(__GNUC__)
#define STEADYFLAKE_C_EXPORT __attribute__((visibility("default")))
#else
#define STEADYFLAKE_C_EXPORT
#endif

/* Size of a buffer that holds any int64_t in decimal, with its sign and the NUL:
   "-9223372036854775808" is 20 chars. */
#define STEADYFLAKE_FORMAT_BUFFER_SIZE 21

#ifdef __cplusplus
extern "C" {
#endif

typedef struct steadyflake_options steadyflake_options;
typedef struct steadyflake_generator steadyflake_generator;

/* The three fields of an ID and the time its tick starts at. */
typedef struct {
  int64_t unix_ms;    /* start of the ID's tick, milliseconds since 1970-01-01T00:00:00Z */
  uint64_t server_id; /* the server (shard) that issued it */
  uint64_t sequence;  /* position within the tick */
} steadyflake_parts;

/* ---- Options: what steadyflake_generator_open needs. ---- */

/* A new set of options: layout "game", no server id (open fails until one is set: two servers
   left at a default would issue the same IDs), no state folder, max_lead 2000 ms. Returns NULL
   only when out of memory. Free with steadyflake_options_destroy. */
STEADYFLAKE_C_EXPORT steadyflake_options* steadyflake_options_create(void);
STEADYFLAKE_C_EXPORT void steadyflake_options_destroy(steadyflake_options* options);

/* Sets the bit layout (see "layout strings" above; NULL = "game"). On a layout that cannot be
   read or does not fit in 63 bits, sets *errptr and leaves the options' layout unchanged.
   REQUIRES: options != NULL. */
STEADYFLAKE_C_EXPORT void steadyflake_options_set_layout(steadyflake_options* options,
                                                         const char* layout, char** errptr);

/* The server (shard) id, unique among all servers that may ever be merged. Checked against the
   layout by steadyflake_generator_open (at most 65535 for "game", 1023 for "snowflake"), so the
   order of the setters does not matter. REQUIRES: options != NULL. */
STEADYFLAKE_C_EXPORT void steadyflake_options_set_server_id(steadyflake_options* options,
                                                            uint64_t server_id);

/* Folder for the state file `server-<id>.state`, created if missing; it makes IDs never repeat
   across restarts (recommended in production). The folder is locked while a generator uses it:
   a second process with the same server id and folder fails to open. NULL or "": no state
   file. REQUIRES: options != NULL. */
STEADYFLAKE_C_EXPORT void steadyflake_options_set_state_dir(steadyflake_options* options,
                                                            const char* dir);

/* How far ahead of the clock an ID's time may run when demand exceeds the layout's sequence
   space (borrowing future ticks); past it, steadyflake_next waits. Default 2000 ms; in
   [0, 86400000], checked by steadyflake_generator_open. Larger absorbs longer spikes; an ID's
   time is then less exact. REQUIRES: options != NULL. */
STEADYFLAKE_C_EXPORT void steadyflake_options_set_max_lead_ms(steadyflake_options* options,
                                                              int64_t ms);

/* ---- Generator. ---- */

/* Opens a generator with a copy of `options` (which the caller may then destroy). It runs a
   ticker thread of its own and, with a state folder, holds its lock until closed. On failure
   returns NULL and sets *errptr: options NULL, no server id, a server id the layout cannot
   hold, max_lead out of range, the wall clock outside the layout's lifetime, a corrupt or
   mismatched state file, or a state file locked by another generator (naming its pid). */
STEADYFLAKE_C_EXPORT steadyflake_generator* steadyflake_generator_open(
    const steadyflake_options* options, char** errptr);

/* Stops the ticker thread, records the last tick used in the state file and releases it. In a
   child after fork() it frees only the handle (see "Fork" above). NULL does nothing. */
STEADYFLAKE_C_EXPORT void steadyflake_generator_close(steadyflake_generator* generator);

/* One ID, larger than every ID this generator issued before, across threads. Lock-free; waits
   only in a spike beyond max_lead or while the state file cannot be extended. Returns -1 (no
   ID is negative) when generator is NULL or was opened before a fork() in this child. */
STEADYFLAKE_C_EXPORT int64_t steadyflake_next(steadyflake_generator* generator);

/* Like steadyflake_next, but never waits. Returns 1 and stores the ID in *id when one was
   issued; 0 when steadyflake_next would wait (*id unchanged); -1 when generator or id is NULL
   or the handle is unusable after fork() (*id unchanged). */
STEADYFLAKE_C_EXPORT int steadyflake_try_next(steadyflake_generator* generator, int64_t* id);

/* Fills ids[0..n) with n increasing IDs (one mail per player in an event), waiting like
   steadyflake_next. Returns n on success, for any n: up to the generator's largest batch (the
   IDs of the max_lead window, (max_lead / tick + 1) * 2^sequence_bits: 205,824 for "game",
   8,196,096 for "snowflake" at the default max_lead) they are one atomic reservation; a larger
   n is filled in reservations of that size, each waiting until its IDs may be issued. n == 0
   returns 0 and is no error. Returns 0 and sets *errptr, leaving ids unspecified, when:
   generator is NULL or unusable after fork(); ids is NULL. */
STEADYFLAKE_C_EXPORT size_t steadyflake_next_batch(steadyflake_generator* generator, int64_t* ids,
                                                   size_t n, char** errptr);

/* What a game server exports as metrics (steadyflake::Generator::Stats), read at the call.
   Durations are in nanoseconds. */
typedef struct {
  /* IDs handed out since open (next, try_next, next_batch). */
  uint64_t issued;
  /* next / next_batch calls that had to wait (for the clock, or the state file). */
  uint64_t waits;
  /* try_next calls that returned 0. */
  uint64_t would_wait;
  /* How far the next ID's time runs ahead of the generator's clock (0 when idle), and the
     largest such lead seen at a tick. */
  int64_t lead_ns;
  int64_t max_lead_seen_ns;
  /* The generator's clock minus the wall clock (moved ahead by a state file from the future). */
  int64_t skew_ns;
  /* The reservation's end minus now; negative once the clock passed it (IDs then wait). */
  int64_t reservation_headroom_ns;
  /* Failed attempts to extend the reservation since open. */
  uint64_t state_errors;
  /* 1 once the server id was lost to another holder (it never issues again), else 0. */
  int64_t lost;
} steadyflake_stats;

/* Fills *out with the generator's counters. On NULL arguments, or a handle unusable after
   fork(), sets *errptr and leaves *out unchanged. */
STEADYFLAKE_C_EXPORT void steadyflake_generator_stats(steadyflake_generator* generator,
                                                      steadyflake_stats* out, char** errptr);

/* Why the latest attempt to extend the reservation failed, or why the server id was lost: a
   malloc'd message to free with steadyflake_free ("out of memory" when it could not be
   copied), or NULL when all is well, generator is NULL or unusable after fork(). */
STEADYFLAKE_C_EXPORT char* steadyflake_generator_state_error(steadyflake_generator* generator);

/* ---- IDs without a generator. ---- */

/* Splits `id` under `layout` into *out. On a bad layout, an id outside [0, the layout's
   largest ID], or out == NULL, sets *errptr and leaves *out unchanged. */
STEADYFLAKE_C_EXPORT void steadyflake_decode(const char* layout, int64_t id, steadyflake_parts* out,
                                             char** errptr);

/* The ID of the given fields under `layout`, the inverse of steadyflake_decode. unix_ms is
   rounded down to the start of its tick (decode returns that start). Returns -1 and sets
   *errptr on a bad layout, unix_ms before the layout's epoch or at or after its end, or a
   server id or sequence the layout cannot hold. */
STEADYFLAKE_C_EXPORT int64_t steadyflake_compose(const char* layout, int64_t unix_ms,
                                                 uint64_t server_id, uint64_t sequence,
                                                 char** errptr);

/* Writes `id` in decimal ("-" first if negative, no leading zeros) with a terminating NUL to
   buf, for languages whose numbers lose digits above 2^53 (JavaScript, Lua 5.1). Returns the
   number of digits (and sign) it needs, without the NUL. When that is >= len (buf too small,
   or buf NULL), nothing but an empty string is written (buf[0] = '\0' when buf != NULL and
   len > 0): a cut-off number would be another valid ID. A buffer of
   STEADYFLAKE_FORMAT_BUFFER_SIZE bytes always suffices. */
STEADYFLAKE_C_EXPORT size_t steadyflake_format(int64_t id, char* buf, size_t len);

/* Reads an ID written in decimal: one or more ASCII digits and nothing else (no sign, space or
   other character; leading zeros are accepted), at most 9223372036854775807. Returns -1 and
   sets *errptr on NULL, empty text, any other character, a negative number or overflow. */
STEADYFLAKE_C_EXPORT int64_t steadyflake_parse(const char* text, char** errptr);

/* Frees a message returned through errptr. NULL does nothing. */
STEADYFLAKE_C_EXPORT void steadyflake_free(void* ptr);

/* The library's version, STEADYFLAKE_VERSION of steadyflake/version.h, e.g. "0.1.0": static
   storage, never freed. */
STEADYFLAKE_C_EXPORT const char* steadyflake_version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STEADYFLAKE_C_H_ */
