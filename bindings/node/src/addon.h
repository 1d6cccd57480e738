/* Copyright 2026 The steadyflake Authors.
   SPDX-License-Identifier: Apache-2.0

   Internal to the Node addon (bindings/node/): what its two translation units share. addon.c
   holds the module's functions (format, parse, decode, compose, version) and these helpers;
   generator.c holds the Generator class. Nothing here is an API of its own.

   Error channels (docs/bindings.md, "Node"): a value of the wrong JavaScript type throws a
   TypeError, a value of the right type outside its domain a RangeError, each naming the
   function and the argument; a refusal of the C ABI throws an Error whose message is the C
   ABI's (naming the field, the value and the allowed range). Every helper that can fail
   returns false (or NULL) with the exception already pending, so a caller only returns. */

#ifndef STEADYFLAKE_NODE_ADDON_H_
#define STEADYFLAKE_NODE_ADDON_H_

/* N-API 6 (Node 10.20, 12.17, 14 and later; Debian 12's Node 18): bigints, instance data and
   napi_get_all_property_names are the newest things used. Set before node_api.h, which
   otherwise declares the newest version it knows. */
#define NAPI_VERSION 6

#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>

/* Number.MAX_SAFE_INTEGER, 2^53 - 1: the largest integer a JavaScript number holds exactly. */
#define SF_MAX_SAFE_INTEGER 9007199254740991.0

/* Runs an N-API call; when it fails, throws its error (unless one is pending) and returns
   `failed` from the calling function. */
#define SF_NAPI(env, call, failed) \
  do {                             \
    if ((call) != napi_ok) {       \
      sf_throw_napi_error(env);    \
      return failed;               \
    }                              \
  } while (0)

/* Throws an Error with the message of the N-API call that just failed, unless a JavaScript
   exception is already pending (then that one stands). */
void sf_throw_napi_error(napi_env env);

/* Throws an Error whose message is `message`, a message from the C ABI's errptr, and frees it
   with steadyflake_free. */
void sf_throw_c_error(napi_env env, char* message);

/* Throw a TypeError / RangeError with a printf-formatted message. */
void sf_throw_type_error(napi_env env, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
void sf_throw_range_error(napi_env env, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

/* Argument readers. `what` names the argument in messages ("new Generator: serverId").
   - sf_get_id: an ID, a bigint in [-2^63, 2^63) or a decimal string (steadyflake_parse's
     rules); a number is refused (it may already have lost digits above 2^53).
   - sf_get_uint: a whole number in [0, 2^53 - 1] or a bigint in [0, 2^64).
   - sf_get_int: a whole number in [-(2^53 - 1), 2^53 - 1] or a bigint in [-2^63, 2^63).
   - sf_get_string: a string without NUL characters, copied into a malloc'd buffer the caller
     frees; NULL on failure. */
bool sf_get_id(napi_env env, napi_value value, const char* what, int64_t* out);
bool sf_get_uint(napi_env env, napi_value value, const char* what, uint64_t* out);
bool sf_get_int(napi_env env, napi_value value, const char* what, int64_t* out);
char* sf_get_string(napi_env env, napi_value value, const char* what);

/* True when `value` is undefined or null: an option or argument left out. */
bool sf_is_absent(napi_env env, napi_value value);

/* A JavaScript number when the value fits one exactly (|value| <= 2^53 - 1), else a bigint. */
napi_value sf_make_uint(napi_env env, uint64_t value);
napi_value sf_make_int(napi_env env, int64_t value);

/* {timeMs, serverId, sequence} of `id` under `layout` (NULL = "game"); NULL with an exception
   pending when the C ABI refuses (a bad layout, an ID outside it). */
napi_value sf_decode(napi_env env, const char* layout, napi_value id, const char* what);

/* What the addon keeps per napi_env (the main thread and each worker), set at module load. */
typedef struct {
  napi_ref bigint64_array; /* the global BigInt64Array constructor, as the module found it */
} sf_instance_data;
sf_instance_data* sf_instance(napi_env env);

/* Adds the Generator class (generator.c) to the module's exports. */
bool sf_define_generator(napi_env env, napi_value exports);

#endif /* STEADYFLAKE_NODE_ADDON_H_ */
