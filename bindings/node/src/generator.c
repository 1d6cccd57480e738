/* Copyright 2026 The steadyflake Authors.
   SPDX-License-Identifier: Apache-2.0

   The Node addon's Generator class: one C ABI handle (steadyflake_generator) per JavaScript
   object, closed by close() or, when the program drops the object without it, by a finalizer
   (writing the state file and releasing its lock at a garbage collection after the object and
   its methods are unreachable, or when the environment is torn down).

   Fast path: each Generator carries its methods as own, non-enumerable properties, functions
   made for it whose N-API callback data is its Generator struct. A call then reads the struct
   straight from its callback info; a prototype method would have to find it with napi_unwrap,
   a private-property lookup that cost more than the rest of next() together (bench.js: about
   160 ns a call with it, 35 ns without). The object and its methods share the struct, counted
   in `refs`: each method's finalizer releases one, and the last closes the handle (unless
   close() did) and frees it. The object holds its methods, so that happens once the object and
   every method taken from it (`const next = gen.next`) are unreachable.

   A Generator belongs to the JavaScript thread (main thread or worker) that made it, as every
   JavaScript object does; the C handle is thread-safe, but nothing here shares it. Each worker
   that needs IDs opens its own generator with its own server id (docs/bindings.md, "Node"). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"
#include "steadyflake/c.h"

/* The C ABI's default max_lead (c.h, steadyflake_options_create), reported by stats(). */
#define SF_DEFAULT_MAX_LEAD_MS 2000

typedef struct {
  steadyflake_generator* handle; /* NULL once closed */
  /* The options it was opened with, for decode() and stats(); never change. */
  char* layout;    /* as given, "game" when left out */
  char* state_dir; /* NULL when left out */
  uint64_t server_id;
  int64_t max_lead_ms;
  /* What stats() reports: IDs handed out through this object (next, nextString, tryNext,
     nextBatch), and tryNext() calls that returned null. */
  uint64_t issued;
  uint64_t would_wait;
  /* The methods (functions) alive that point here; the last one's finalizer frees it. */
  unsigned refs;
} Generator;

/* A malloc'd copy of text (strdup is POSIX, not C11); NULL with an Error thrown. */
static char* CopyString(napi_env env, const char* text) {
  const size_t size = strlen(text) + 1;
  char* copy = malloc(size);
  if (copy == NULL) {
    napi_throw_error(env, NULL, "steadyflake: out of memory");
    return NULL;
  }
  memcpy(copy, text, size);
  return copy;
}

static void FreeGenerator(Generator* g) {
  if (g == NULL) return;
  steadyflake_generator_close(g->handle);
  free(g->layout);
  free(g->state_dir);
  free(g);
}

/* A method's finalizer. Finalizers run on the JavaScript thread, one at a time. */
static void Release(napi_env env, void* data, void* hint) {
  (void)env;
  (void)hint;
  Generator* g = data;
  if (--g->refs == 0) FreeGenerator(g);
}

/* ---- new Generator(options) ---- */

static const char* const kOptionNames[] = {"serverId", "layout", "stateDir", "maxLeadMs"};

/* Throws on an option name the constructor does not know: a misspelt `statedir` would otherwise
   leave the generator without its state file, and IDs could repeat after a restart. */
static bool CheckOptionNames(napi_env env, napi_value options) {
  napi_value names = NULL;
  uint32_t count = 0;
  SF_NAPI(env,
          napi_get_all_property_names(env, options, napi_key_own_only,
                                      napi_key_enumerable | napi_key_skip_symbols,
                                      napi_key_numbers_to_strings, &names),
          false);
  SF_NAPI(env, napi_get_array_length(env, names, &count), false);
  for (uint32_t i = 0; i < count; ++i) {
    napi_value name = NULL;
    char text[64];
    size_t length = 0;
    SF_NAPI(env, napi_get_element(env, names, i, &name), false);
    SF_NAPI(env, napi_get_value_string_utf8(env, name, text, sizeof text, &length), false);
    bool known = false;
    for (size_t k = 0; k < sizeof kOptionNames / sizeof kOptionNames[0]; ++k) {
      known = known || strcmp(text, kOptionNames[k]) == 0;
    }
    if (!known) {
      sf_throw_type_error(env,
                          "new Generator: unknown option '%s' (the options are serverId, layout, "
                          "stateDir and maxLeadMs)",
                          text);
      return false;
    }
  }
  return true;
}

/* Reads `options` into g (layout, state_dir, server_id, max_lead_ms). */
static bool ReadOptions(napi_env env, napi_value options, Generator* g) {
  napi_valuetype type = napi_undefined;
  SF_NAPI(env, napi_typeof(env, options, &type), false);
  if (type != napi_object) {
    sf_throw_type_error(env,
                        "new Generator: expects an options object, e.g. new Generator({ "
                        "serverId: 7, stateDir: '/var/lib/game/ids' })");
    return false;
  }
  if (!CheckOptionNames(env, options)) return false;
  napi_value value = NULL;
  SF_NAPI(env, napi_get_named_property(env, options, "serverId", &value), false);
  if (sf_is_absent(env, value)) {
    /* The C ABI would say so too, at open; said here in the option's JavaScript name. */
    sf_throw_type_error(env,
                        "new Generator: serverId is required (each server that may ever be "
                        "merged needs its own; two servers left at a default would issue "
                        "the same IDs)");
    return false;
  }
  if (!sf_get_uint(env, value, "new Generator: serverId", &g->server_id)) return false;
  SF_NAPI(env, napi_get_named_property(env, options, "layout", &value), false);
  g->layout = sf_is_absent(env, value) ? CopyString(env, "game")
                                       : sf_get_string(env, value, "new Generator: layout");
  if (g->layout == NULL) return false;
  SF_NAPI(env, napi_get_named_property(env, options, "stateDir", &value), false);
  if (!sf_is_absent(env, value)) {
    g->state_dir = sf_get_string(env, value, "new Generator: stateDir");
    if (g->state_dir == NULL) return false;
  }
  SF_NAPI(env, napi_get_named_property(env, options, "maxLeadMs", &value), false);
  g->max_lead_ms = SF_DEFAULT_MAX_LEAD_MS;
  if (!sf_is_absent(env, value)) {
    /* Its range, [0, 86400000], is the C ABI's to check (its message names it). */
    if (!sf_get_int(env, value, "new Generator: maxLeadMs", &g->max_lead_ms)) return false;
  }
  return true;
}

/* Opens g->handle with g's options; false with the C ABI's message thrown. */
static bool Open(napi_env env, Generator* g) {
  steadyflake_options* options = steadyflake_options_create();
  if (options == NULL) {
    napi_throw_error(env, NULL, "steadyflake: out of memory");
    return false;
  }
  char* err = NULL;
  steadyflake_options_set_layout(options, g->layout, &err);
  if (err == NULL) {
    steadyflake_options_set_server_id(options, g->server_id);
    steadyflake_options_set_state_dir(options, g->state_dir);
    steadyflake_options_set_max_lead_ms(options, g->max_lead_ms);
    g->handle = steadyflake_generator_open(options, &err);
  }
  steadyflake_options_destroy(options);
  if (err != NULL) {
    sf_throw_c_error(env, err);
    return false;
  }
  return true;
}

/* ---- Methods: `data` is the Generator (see the fast path above). ---- */

/* The Generator of a method call, with up to *argc arguments in argv (argc NULL: none). */
static Generator* Self(napi_env env, napi_callback_info info, size_t* argc, napi_value* argv) {
  void* data = NULL;
  SF_NAPI(env, napi_get_cb_info(env, info, argc, argv, NULL, &data), NULL);
  return data;
}

/* The open handle of g; NULL (an Error thrown) once closed. */
static steadyflake_generator* Handle(napi_env env, Generator* g, const char* method) {
  if (g->handle == NULL) {
    char message[160];
    snprintf(message, sizeof message,
             "steadyflake: Generator.%s() called after close(); open a new Generator", method);
    napi_throw_error(env, NULL, message);
  }
  return g->handle;
}

/* An ID of -1 or a try_next of -1 with a handle still open: opened before fork() (c.h). Node
   never forks its own process, but a native module in it might. */
static void ThrowUnusable(napi_env env, const char* method) {
  char message[200];
  snprintf(message, sizeof message,
           "steadyflake: Generator.%s(): this generator cannot issue IDs in this process (it was "
           "opened before fork() in a parent process)",
           method);
  napi_throw_error(env, NULL, message);
}

/* Issues one ID; false with an exception thrown. */
static bool NextId(napi_env env, napi_callback_info info, const char* method, int64_t* id) {
  Generator* g = Self(env, info, NULL, NULL);
  if (g == NULL) return false;
  steadyflake_generator* handle = Handle(env, g, method);
  if (handle == NULL) return false;
  *id = steadyflake_next(handle);
  if (*id < 0) {
    ThrowUnusable(env, method);
    return false;
  }
  ++g->issued;
  return true;
}

/* next(): bigint. */
static napi_value Next(napi_env env, napi_callback_info info) {
  int64_t id = 0;
  if (!NextId(env, info, "next", &id)) return NULL;
  napi_value result = NULL;
  SF_NAPI(env, napi_create_bigint_int64(env, id, &result), NULL);
  return result;
}

/* nextString(): the next ID in decimal, for JSON. */
static napi_value NextString(napi_env env, napi_callback_info info) {
  int64_t id = 0;
  if (!NextId(env, info, "nextString", &id)) return NULL;
  char text[STEADYFLAKE_FORMAT_BUFFER_SIZE];
  const size_t length = steadyflake_format(id, text, sizeof text);
  napi_value result = NULL;
  SF_NAPI(env, napi_create_string_utf8(env, text, length, &result), NULL);
  return result;
}

/* tryNext(): bigint, or null when next() would wait. */
static napi_value TryNext(napi_env env, napi_callback_info info) {
  Generator* g = Self(env, info, NULL, NULL);
  if (g == NULL) return NULL;
  steadyflake_generator* handle = Handle(env, g, "tryNext");
  if (handle == NULL) return NULL;
  int64_t id = 0;
  const int issued = steadyflake_try_next(handle, &id);
  napi_value result = NULL;
  if (issued == 1) {
    ++g->issued;
    SF_NAPI(env, napi_create_bigint_int64(env, id, &result), NULL);
  } else if (issued == 0) {
    ++g->would_wait;
    SF_NAPI(env, napi_get_null(env, &result), NULL);
  } else {
    ThrowUnusable(env, "tryNext");
  }
  return result;
}

/* Issues n IDs of g into ids[0..n) in one reservation (several above the largest batch); false
   with an Error thrown. */
static bool IssueInto(napi_env env, Generator* g, steadyflake_generator* handle, void* ids,
                      uint64_t n) {
  char* err = NULL;
  const size_t filled = steadyflake_next_batch(handle, ids, (size_t)n, &err);
  if (err != NULL) {
    sf_throw_c_error(env, err);
    return false;
  }
  if (filled != n) {
    /* c.h: n on success, for any n. Anything else is a bug; never hand out a short array. */
    napi_throw_error(env, NULL, "steadyflake: the C library filled fewer IDs than asked");
    return false;
  }
  g->issued += n;
  return true;
}

/* nextBatch(n): a BigInt64Array of n increasing IDs, one atomic reservation up to the
   generator's largest batch (205,824 for "game" at the default maxLeadMs), several above it. */
static napi_value NextBatch(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  Generator* g = Self(env, info, &argc, argv);
  if (g == NULL) return NULL;
  uint64_t n = 0;
  if (!sf_get_uint(env, argv[0], "Generator.nextBatch: n", &n)) return NULL;
  steadyflake_generator* handle = Handle(env, g, "nextBatch");
  if (handle == NULL) return NULL;
  /* Made as JavaScript's `new BigInt64Array(n)` does it, so a length V8 cannot allocate throws a
     RangeError there; napi_create_arraybuffer would end the process instead. */
  napi_value array_class = NULL;
  napi_value length = NULL;
  napi_value result = NULL;
  void* data = NULL;
  SF_NAPI(env, napi_get_reference_value(env, sf_instance(env)->bigint64_array, &array_class), NULL);
  SF_NAPI(env, napi_create_double(env, (double)n, &length), NULL);
  SF_NAPI(env, napi_new_instance(env, array_class, 1, &length, &result), NULL);
  SF_NAPI(env, napi_get_typedarray_info(env, result, NULL, NULL, &data, NULL, NULL), NULL);
  return IssueInto(env, g, handle, data, n) ? result : NULL;
}

/* fill(buffer, n): issues n IDs into buffer[0..n), a BigInt64Array of at least n elements, in one
   reservation; returns undefined. Not public: generator.js's Generator calls it to refill the
   buffer its next() hands IDs out of (docs/bindings.md, "Node"). n is small there (at most 256). */
static napi_value Fill(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  Generator* g = Self(env, info, &argc, argv);
  if (g == NULL) return NULL;
  napi_typedarray_type type = napi_int8_array;
  size_t length = 0;
  void* data = NULL;
  uint64_t n = 0;
  if (argc < 2 ||
      napi_get_typedarray_info(env, argv[0], &type, &length, &data, NULL, NULL) != napi_ok ||
      type != napi_bigint64_array) {
    sf_throw_type_error(env, "Generator.fill: expects (BigInt64Array, n)");
    return NULL;
  }
  if (!sf_get_uint(env, argv[1], "Generator.fill: n", &n)) return NULL;
  if (n > length) {
    napi_throw_range_error(env, NULL, "Generator.fill: n is larger than the buffer");
    return NULL;
  }
  steadyflake_generator* handle = Handle(env, g, "next");
  if (handle == NULL) return NULL;
  IssueInto(env, g, handle, data, n);
  return NULL;
}

/* decode(id): {timeMs, serverId, sequence} under this generator's layout; works after close(). */
static napi_value DecodeMethod(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  Generator* g = Self(env, info, &argc, argv);
  if (g == NULL) return NULL;
  return sf_decode(env, g->layout, argv[0], "Generator.decode: id");
}

/* Sets result[name] = value; false with an exception pending when value is NULL or it fails. */
static bool SetField(napi_env env, napi_value result, const char* name, napi_value value) {
  if (value == NULL) return false;
  SF_NAPI(env, napi_set_named_property(env, result, name, value), false);
  return true;
}

/* stats(): {issued, wouldWait, serverId, layout, stateDir, maxLeadMs, closed}. */
static napi_value Stats(napi_env env, napi_callback_info info) {
  Generator* g = Self(env, info, NULL, NULL);
  if (g == NULL) return NULL;
  napi_value result = NULL;
  napi_value layout = NULL;
  napi_value state_dir = NULL;
  napi_value closed = NULL;
  SF_NAPI(env, napi_create_object(env, &result), NULL);
  SF_NAPI(env, napi_create_string_utf8(env, g->layout, NAPI_AUTO_LENGTH, &layout), NULL);
  if (g->state_dir != NULL) {
    SF_NAPI(env, napi_create_string_utf8(env, g->state_dir, NAPI_AUTO_LENGTH, &state_dir), NULL);
  } else {
    SF_NAPI(env, napi_get_null(env, &state_dir), NULL);
  }
  SF_NAPI(env, napi_get_boolean(env, g->handle == NULL, &closed), NULL);
  if (!SetField(env, result, "issued", sf_make_uint(env, g->issued)) ||
      !SetField(env, result, "wouldWait", sf_make_uint(env, g->would_wait)) ||
      !SetField(env, result, "serverId", sf_make_uint(env, g->server_id)) ||
      !SetField(env, result, "layout", layout) || !SetField(env, result, "stateDir", state_dir) ||
      !SetField(env, result, "maxLeadMs", sf_make_int(env, g->max_lead_ms)) ||
      !SetField(env, result, "closed", closed)) {
    return NULL;
  }
  return result;
}

/* close(): stops the generator's thread, records its last tick in the state file and releases
   the file's lock. Again: nothing. */
static napi_value Close(napi_env env, napi_callback_info info) {
  Generator* g = Self(env, info, NULL, NULL);
  if (g == NULL) return NULL;
  steadyflake_generator_close(g->handle);
  g->handle = NULL;
  napi_value result = NULL;
  SF_NAPI(env, napi_get_undefined(env, &result), NULL);
  return result;
}

/* ---- new Generator(options) ---- */

static const struct {
  const char* name;
  napi_callback callback;
} kMethods[] = {
    {"next", Next},           {"nextString", NextString},
    {"tryNext", TryNext},     {"nextBatch", NextBatch},
    {"decode", DecodeMethod}, {"stats", Stats},
    {"close", Close},         {"fill", Fill},
};
#define SF_METHOD_COUNT (sizeof kMethods / sizeof kMethods[0])

/* Gives `self` its methods, each holding one reference to g. */
static bool AttachMethods(napi_env env, napi_value self, Generator* g) {
  napi_property_descriptor properties[SF_METHOD_COUNT];
  for (size_t i = 0; i < SF_METHOD_COUNT; ++i) {
    napi_value method = NULL;
    SF_NAPI(env,
            napi_create_function(env, kMethods[i].name, NAPI_AUTO_LENGTH, kMethods[i].callback, g,
                                 &method),
            false);
    /* A method made but not counted is never reachable from JavaScript, so never called. */
    SF_NAPI(env, napi_add_finalizer(env, method, g, Release, NULL, NULL), false);
    ++g->refs;
    /* Writable and configurable, not enumerable: as a class's methods are. */
    properties[i] = (napi_property_descriptor){
        kMethods[i].name, NULL, NULL, NULL, NULL, method, napi_writable | napi_configurable, NULL};
  }
  SF_NAPI(env, napi_define_properties(env, self, SF_METHOD_COUNT, properties), false);
  return true;
}

static napi_value Construct(napi_env env, napi_callback_info info) {
  napi_value target = NULL;
  SF_NAPI(env, napi_get_new_target(env, info, &target), NULL);
  if (target == NULL) {
    sf_throw_type_error(env, "Generator: a class, called with new: new Generator({ serverId })");
    return NULL;
  }
  size_t argc = 1;
  napi_value argv[1];
  napi_value self = NULL;
  SF_NAPI(env, napi_get_cb_info(env, info, &argc, argv, &self, NULL), NULL);
  Generator* g = calloc(1, sizeof *g);
  if (g == NULL) {
    napi_throw_error(env, NULL, "steadyflake: out of memory");
    return NULL;
  }
  if (!ReadOptions(env, argv[0], g) || !Open(env, g)) {
    FreeGenerator(g);
    return NULL;
  }
  if (!AttachMethods(env, self, g)) {
    /* Release the server id now; the methods already made free g when collected. */
    steadyflake_generator_close(g->handle);
    g->handle = NULL;
    if (g->refs == 0) FreeGenerator(g);
    return NULL;
  }
  return self;
}

bool sf_define_generator(napi_env env, napi_value exports) {
  napi_value constructor = NULL;
  SF_NAPI(
      env,
      napi_define_class(env, "Generator", NAPI_AUTO_LENGTH, Construct, NULL, 0, NULL, &constructor),
      false);
  SF_NAPI(env, napi_set_named_property(env, exports, "Generator", constructor), false);
  return true;
}
