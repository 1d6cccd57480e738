/* Copyright 2026 The steadyflake Authors.
   SPDX-License-Identifier: Apache-2.0

   The Node addon's module: format, parse, decode, compose and version over the C ABI
   (steadyflake/c.h), the argument readers and error helpers of addon.h, and the module's entry
   point. The Generator class is in generator.c. docs/bindings.md ("Node") is the user's page. */

#include "addon.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steadyflake/c.h"

/* ---- Errors. ---- */

void sf_throw_napi_error(napi_env env) {
  /* The error info first: the next N-API call overwrites it. Its message is static text. */
  const napi_extended_error_info* info = NULL;
  const char* message = "an N-API call failed";
  if (napi_get_last_error_info(env, &info) == napi_ok && info != NULL &&
      info->error_message != NULL) {
    message = info->error_message;
  }
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending) return;
  napi_throw_error(env, NULL, message);
}

void sf_throw_c_error(napi_env env, char* message) {
  napi_throw_error(env, NULL, message != NULL ? message : "steadyflake: unknown error");
  steadyflake_free(message);
}

void sf_throw_type_error(napi_env env, const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  napi_throw_type_error(env, NULL, message);
}

void sf_throw_range_error(napi_env env, const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  napi_throw_range_error(env, NULL, message);
}

static const char* type_name(napi_valuetype type) {
  switch (type) {
    case napi_undefined:
      return "undefined";
    case napi_null:
      return "null";
    case napi_boolean:
      return "a boolean";
    case napi_number:
      return "a number";
    case napi_string:
      return "a string";
    case napi_symbol:
      return "a symbol";
    case napi_object:
      return "an object";
    case napi_function:
      return "a function";
    case napi_external:
      return "an external";
    case napi_bigint:
      return "a bigint";
  }
  return "an unknown type";
}

/* `value` (a number or bigint) as JavaScript writes it, for messages; "?" if that fails. */
static void describe(napi_env env, napi_value value, char* buf, size_t len) {
  napi_value text;
  size_t copied = 0;
  if (napi_coerce_to_string(env, value, &text) != napi_ok ||
      napi_get_value_string_utf8(env, text, buf, len, &copied) != napi_ok) {
    snprintf(buf, len, "?");
  }
}

/* ---- Arguments. ---- */

bool sf_is_absent(napi_env env, napi_value value) {
  napi_valuetype type = napi_undefined;
  napi_typeof(env, value, &type);
  return type == napi_undefined || type == napi_null;
}

/* A number that is a whole number in [low, 2^53 - 1], in *out; else a RangeError. */
static bool get_whole_number(napi_env env, napi_value value, const char* what, double low,
                             const char* range, double* out) {
  double d = 0;
  SF_NAPI(env, napi_get_value_double(env, value, &d), false);
  /* NaN fails the first test; the cast is defined because d is in range by then. */
  if (!(d >= low && d <= SF_MAX_SAFE_INTEGER) || d != (double)(int64_t)d) {
    char text[64];
    describe(env, value, text, sizeof text);
    sf_throw_range_error(env, "%s is %s; it must be a whole number in %s (or a bigint)", what, text,
                         range);
    return false;
  }
  *out = d;
  return true;
}

bool sf_get_uint(napi_env env, napi_value value, const char* what, uint64_t* out) {
  napi_valuetype type = napi_undefined;
  SF_NAPI(env, napi_typeof(env, value, &type), false);
  if (type == napi_number) {
    double d = 0;
    if (!get_whole_number(env, value, what, 0, "[0, 2^53 - 1]", &d)) return false;
    *out = (uint64_t)d;
    return true;
  }
  if (type == napi_bigint) {
    bool lossless = false;
    SF_NAPI(env, napi_get_value_bigint_uint64(env, value, out, &lossless), false);
    if (!lossless) {
      char text[64];
      describe(env, value, text, sizeof text);
      sf_throw_range_error(env, "%s is %sn; it must be in [0, 2^64 - 1]", what, text);
      return false;
    }
    return true;
  }
  sf_throw_type_error(env, "%s must be a number or a bigint, not %s", what, type_name(type));
  return false;
}

bool sf_get_int(napi_env env, napi_value value, const char* what, int64_t* out) {
  napi_valuetype type = napi_undefined;
  SF_NAPI(env, napi_typeof(env, value, &type), false);
  if (type == napi_number) {
    double d = 0;
    if (!get_whole_number(env, value, what, -SF_MAX_SAFE_INTEGER, "[-(2^53 - 1), 2^53 - 1]", &d)) {
      return false;
    }
    *out = (int64_t)d;
    return true;
  }
  if (type == napi_bigint) {
    bool lossless = false;
    SF_NAPI(env, napi_get_value_bigint_int64(env, value, out, &lossless), false);
    if (!lossless) {
      char text[64];
      describe(env, value, text, sizeof text);
      sf_throw_range_error(env, "%s is %sn; it must be in [-2^63, 2^63 - 1]", what, text);
      return false;
    }
    return true;
  }
  sf_throw_type_error(env, "%s must be a number or a bigint, not %s", what, type_name(type));
  return false;
}

char* sf_get_string(napi_env env, napi_value value, const char* what) {
  napi_valuetype type = napi_undefined;
  SF_NAPI(env, napi_typeof(env, value, &type), NULL);
  if (type != napi_string) {
    sf_throw_type_error(env, "%s must be a string, not %s", what, type_name(type));
    return NULL;
  }
  size_t length = 0;
  SF_NAPI(env, napi_get_value_string_utf8(env, value, NULL, 0, &length), NULL);
  char* text = malloc(length + 1);
  if (text == NULL) {
    napi_throw_error(env, NULL, "steadyflake: out of memory");
    return NULL;
  }
  size_t copied = 0;
  if (napi_get_value_string_utf8(env, value, text, length + 1, &copied) != napi_ok) {
    free(text);
    sf_throw_napi_error(env);
    return NULL;
  }
  /* C reads up to the first NUL: "dir\0x" would silently become "dir". */
  if (strlen(text) != copied) {
    free(text);
    sf_throw_type_error(env, "%s contains a NUL character", what);
    return NULL;
  }
  return text;
}

bool sf_get_id(napi_env env, napi_value value, const char* what, int64_t* out) {
  napi_valuetype type = napi_undefined;
  SF_NAPI(env, napi_typeof(env, value, &type), false);
  if (type == napi_bigint) {
    bool lossless = false;
    SF_NAPI(env, napi_get_value_bigint_int64(env, value, out, &lossless), false);
    if (!lossless) {
      char text[64];
      describe(env, value, text, sizeof text);
      sf_throw_range_error(env, "%s %sn does not fit in 64 bits (IDs are in [0, 2^63 - 1])", what,
                           text);
      return false;
    }
    return true;
  }
  if (type == napi_string) {
    char* text = sf_get_string(env, value, what);
    if (text == NULL) return false;
    char* err = NULL;
    const int64_t id = steadyflake_parse(text, &err);
    free(text);
    if (err != NULL) {
      sf_throw_c_error(env, err);
      return false;
    }
    *out = id;
    return true;
  }
  if (type == napi_number) {
    sf_throw_type_error(env,
                        "%s must be a bigint or a decimal string, not a number: a number holds "
                        "integers exactly only up to 2^53, below every ID issued since 2024-01-16",
                        what);
    return false;
  }
  sf_throw_type_error(env, "%s must be a bigint or a decimal string, not %s", what,
                      type_name(type));
  return false;
}

/* ---- Results. ---- */

napi_value sf_make_uint(napi_env env, uint64_t value) {
  napi_value result = NULL;
  if (value <= (uint64_t)SF_MAX_SAFE_INTEGER) {
    SF_NAPI(env, napi_create_double(env, (double)value, &result), NULL);
  } else {
    SF_NAPI(env, napi_create_bigint_uint64(env, value, &result), NULL);
  }
  return result;
}

napi_value sf_make_int(napi_env env, int64_t value) {
  napi_value result = NULL;
  const int64_t max = (int64_t)SF_MAX_SAFE_INTEGER;
  if (value >= -max && value <= max) {
    SF_NAPI(env, napi_create_double(env, (double)value, &result), NULL);
  } else {
    SF_NAPI(env, napi_create_bigint_int64(env, value, &result), NULL);
  }
  return result;
}

napi_value sf_decode(napi_env env, const char* layout, napi_value id_value, const char* what) {
  int64_t id = 0;
  if (!sf_get_id(env, id_value, what, &id)) return NULL;
  steadyflake_parts parts;
  char* err = NULL;
  steadyflake_decode(layout, id, &parts, &err);
  if (err != NULL) {
    sf_throw_c_error(env, err);
    return NULL;
  }
  napi_value result = NULL;
  SF_NAPI(env, napi_create_object(env, &result), NULL);
  const napi_value time_ms = sf_make_int(env, parts.unix_ms);
  const napi_value server_id = sf_make_uint(env, parts.server_id);
  const napi_value sequence = sf_make_uint(env, parts.sequence);
  if (time_ms == NULL || server_id == NULL || sequence == NULL) return NULL;
  SF_NAPI(env, napi_set_named_property(env, result, "timeMs", time_ms), NULL);
  SF_NAPI(env, napi_set_named_property(env, result, "serverId", server_id), NULL);
  SF_NAPI(env, napi_set_named_property(env, result, "sequence", sequence), NULL);
  return result;
}

/* ---- The module's functions. ---- */

/* format(id: bigint): string. Any 64-bit signed value, as steadyflake_format writes it. */
static napi_value Format(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  SF_NAPI(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  napi_valuetype type = napi_undefined;
  SF_NAPI(env, napi_typeof(env, argv[0], &type), NULL);
  if (type != napi_bigint) {
    sf_throw_type_error(env, "format: id must be a bigint, not %s", type_name(type));
    return NULL;
  }
  int64_t id = 0;
  if (!sf_get_id(env, argv[0], "format: id", &id)) return NULL;
  char text[STEADYFLAKE_FORMAT_BUFFER_SIZE];
  const size_t length = steadyflake_format(id, text, sizeof text);
  napi_value result = NULL;
  SF_NAPI(env, napi_create_string_utf8(env, text, length, &result), NULL);
  return result;
}

/* parse(text: string): bigint, by steadyflake_parse's rules (digits only). */
static napi_value Parse(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  SF_NAPI(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  char* text = sf_get_string(env, argv[0], "parse: text");
  if (text == NULL) return NULL;
  char* err = NULL;
  const int64_t id = steadyflake_parse(text, &err);
  free(text);
  if (err != NULL) {
    sf_throw_c_error(env, err);
    return NULL;
  }
  napi_value result = NULL;
  SF_NAPI(env, napi_create_bigint_int64(env, id, &result), NULL);
  return result;
}

/* decode(id: bigint | string, layout = "game"): {timeMs, serverId, sequence}. */
static napi_value Decode(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  SF_NAPI(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  char* layout = NULL;
  if (!sf_is_absent(env, argv[1])) {
    layout = sf_get_string(env, argv[1], "decode: layout");
    if (layout == NULL) return NULL;
  }
  const napi_value result = sf_decode(env, layout, argv[0], "decode: id");
  free(layout);
  return result;
}

/* compose(layout, timeMs, serverId, sequence): bigint, the inverse of decode. */
static napi_value Compose(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  SF_NAPI(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  int64_t time_ms = 0;
  uint64_t server_id = 0;
  uint64_t sequence = 0;
  if (!sf_get_int(env, argv[1], "compose: timeMs", &time_ms) ||
      !sf_get_uint(env, argv[2], "compose: serverId", &server_id) ||
      !sf_get_uint(env, argv[3], "compose: sequence", &sequence)) {
    return NULL;
  }
  char* layout = NULL;
  if (!sf_is_absent(env, argv[0])) {
    layout = sf_get_string(env, argv[0], "compose: layout");
    if (layout == NULL) return NULL;
  }
  char* err = NULL;
  const int64_t id = steadyflake_compose(layout, time_ms, server_id, sequence, &err);
  free(layout);
  if (err != NULL) {
    sf_throw_c_error(env, err);
    return NULL;
  }
  napi_value result = NULL;
  SF_NAPI(env, napi_create_bigint_int64(env, id, &result), NULL);
  return result;
}

/* version(): the C library's version, e.g. "0.1.0". */
static napi_value Version(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result = NULL;
  SF_NAPI(env, napi_create_string_utf8(env, steadyflake_version(), NAPI_AUTO_LENGTH, &result),
          NULL);
  return result;
}

/* ---- Per-environment data. ---- */

sf_instance_data* sf_instance(napi_env env) {
  void* data = NULL;
  napi_get_instance_data(env, &data);
  return data;
}

static void FinalizeInstance(napi_env env, void* data, void* hint) {
  (void)hint;
  sf_instance_data* instance = data;
  napi_delete_reference(env, instance->bigint64_array);
  free(instance);
}

static bool SetInstanceData(napi_env env) {
  napi_value global = NULL;
  napi_value array_class = NULL;
  SF_NAPI(env, napi_get_global(env, &global), false);
  SF_NAPI(env, napi_get_named_property(env, global, "BigInt64Array", &array_class), false);
  sf_instance_data* instance = calloc(1, sizeof *instance);
  if (instance == NULL) {
    napi_throw_error(env, NULL, "steadyflake: out of memory");
    return false;
  }
  if (napi_create_reference(env, array_class, 1, &instance->bigint64_array) != napi_ok) {
    free(instance);
    sf_throw_napi_error(env);
    return false;
  }
  if (napi_set_instance_data(env, instance, FinalizeInstance, NULL) != napi_ok) {
    sf_throw_napi_error(env);
    FinalizeInstance(env, instance, NULL);
    return false;
  }
  return true;
}

/* Context-aware: each worker thread (each napi_env) gets its own exports and class. */
NAPI_MODULE_INIT() {
  if (!SetInstanceData(env)) return NULL;
  const napi_property_descriptor functions[] = {
      {"format", NULL, Format, NULL, NULL, NULL, napi_enumerable, NULL},
      {"parse", NULL, Parse, NULL, NULL, NULL, napi_enumerable, NULL},
      {"decode", NULL, Decode, NULL, NULL, NULL, napi_enumerable, NULL},
      {"compose", NULL, Compose, NULL, NULL, NULL, napi_enumerable, NULL},
      {"version", NULL, Version, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  SF_NAPI(env,
          napi_define_properties(env, exports, sizeof functions / sizeof functions[0], functions),
          NULL);
  if (!sf_define_generator(env, exports)) return NULL;
  return exports;
}
