/* Copyright 2026 The steadyflake Authors.
   SPDX-License-Identifier: Apache-2.0

   The process-wide table of open generators (shared_generators.h). A linked list under one
   mutex: a process opens a handful of server ids, and only steadyflake.new and a generator's
   close or collection touch it, never next(). The mutex is held while the C handle is opened
   and closed, so two states opening one server id at once cannot both open it, and a state
   reopening it just after the last close finds the state folder already released. */
#include "shared_generators.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sf_shared {
  sf_shared* next; /* GUARDED_BY(registry_mu) */
  size_t refs;     /* GUARDED_BY(registry_mu) */
  /* Set when opened, never changed after. */
  uint64_t server_id;
  char* layout_key; /* the layout's bits, tick and epoch: one per layout, whatever its spelling */
  char* layout;
  char* state_dir;
  int64_t max_lead_ms;
  steadyflake_generator* handle;
};

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static sf_shared* registry_head = NULL; /* GUARDED_BY(registry_mu) */

static char* copy_text(const char* text) {
  const size_t size = strlen(text) + 1;
  char* copy = (char*)malloc(size);
  if (copy != NULL) memcpy(copy, text, size);
  return copy;
}

/* A message of the C ABI's, moved to malloc'd memory the caller frees with free(). */
static char* take_c_error(char* message) {
  char* copy = copy_text(message);
  steadyflake_free(message);
  return copy;
}

/* "T/S/Q@TICKms+EPOCH" for `layout`, found by decoding one bit at a time, so that "game" and
   "37/16/10@10ms" are one key, as the engine's host guard counts them. NULL and *error on a
   layout the C ABI refuses. */
static char* layout_key(const char* layout, char** error) {
  steadyflake_parts zero, parts;
  char* c_error = NULL;
  steadyflake_decode(layout, 0, &zero, &c_error);
  if (c_error != NULL) {
    *error = take_c_error(c_error);
    return NULL;
  }
  int time_bits = 0, server_bits = 0, sequence_bits = 0;
  int64_t tick_ms = 0;
  for (int bit = 0; bit < 63; ++bit) {
    steadyflake_decode(layout, (int64_t)1 << bit, &parts, &c_error);
    if (c_error != NULL) { /* past the layout's largest ID */
      steadyflake_free(c_error);
      break;
    }
    if (parts.sequence != 0) {
      ++sequence_bits;
    } else if (parts.server_id != 0) {
      ++server_bits;
    } else if (time_bits++ == 0) {
      tick_ms = parts.unix_ms - zero.unix_ms;
    }
  }
  char key[96];
  snprintf(key, sizeof key, "%d/%d/%d@%lldms+%lld", time_bits, server_bits, sequence_bits,
           (long long)tick_ms, (long long)zero.unix_ms);
  return copy_text(key);
}

static void destroy(sf_shared* shared) {
  if (shared == NULL) return;
  steadyflake_generator_close(shared->handle);
  free(shared->layout_key);
  free(shared->layout);
  free(shared->state_dir);
  free(shared);
}

/* Opens the C generator for a new entry. NULL and *error on failure. */
static sf_shared* open_shared(const sf_shared_options* options, char* key, char** error) {
  sf_shared* shared = (sf_shared*)calloc(1, sizeof *shared);
  if (shared == NULL) {
    free(key);
    *error = copy_text("out of memory");
    return NULL;
  }
  shared->layout_key = key;
  shared->server_id = options->server_id;
  shared->layout = copy_text(options->layout != NULL ? options->layout : "game");
  shared->state_dir = copy_text(options->state_dir != NULL ? options->state_dir : "");
  shared->max_lead_ms = options->max_lead_ms;
  steadyflake_options* c_options = steadyflake_options_create();
  if (shared->layout == NULL || shared->state_dir == NULL || c_options == NULL) {
    steadyflake_options_destroy(c_options);
    destroy(shared);
    *error = copy_text("out of memory");
    return NULL;
  }
  char* c_error = NULL;
  steadyflake_options_set_layout(c_options, shared->layout, &c_error);
  if (c_error == NULL) {
    steadyflake_options_set_server_id(c_options, shared->server_id);
    steadyflake_options_set_state_dir(c_options, shared->state_dir);
    steadyflake_options_set_max_lead_ms(c_options, shared->max_lead_ms);
    shared->handle = steadyflake_generator_open(c_options, &c_error);
  }
  steadyflake_options_destroy(c_options);
  if (shared->handle == NULL) {
    destroy(shared);
    *error = c_error != NULL ? take_c_error(c_error) : copy_text("steadyflake: open failed");
    return NULL;
  }
  return shared;
}

/* The message when a second opener's options differ from the open generator's. */
static char* mismatch(const sf_shared* shared, const sf_shared_options* options) {
  const char* format =
      "steadyflake.new: server_id %llu (layout %s) is already open in this process with "
      "state_dir '%s' and max_lead_ms %lld, not '%s' and %lld: every steadyflake.new of one "
      "server id shares one generator, so it must be given the same options";
  const char* state_dir = options->state_dir != NULL ? options->state_dir : "";
  const int size = snprintf(NULL, 0, format, (unsigned long long)shared->server_id, shared->layout,
                            shared->state_dir, (long long)shared->max_lead_ms, state_dir,
                            (long long)options->max_lead_ms);
  char* message = (char*)malloc((size_t)size + 1);
  if (message != NULL) {
    snprintf(message, (size_t)size + 1, format, (unsigned long long)shared->server_id,
             shared->layout, shared->state_dir, (long long)shared->max_lead_ms, state_dir,
             (long long)options->max_lead_ms);
  }
  return message;
}

sf_shared* sf_shared_acquire(const sf_shared_options* options, char** error) {
  *error = NULL;
  char* key = layout_key(options->layout, error);
  if (key == NULL) {
    if (*error == NULL) *error = copy_text("out of memory");
    return NULL;
  }
  const char* state_dir = options->state_dir != NULL ? options->state_dir : "";
  pthread_mutex_lock(&registry_mu);
  sf_shared* shared = registry_head;
  while (shared != NULL &&
         (shared->server_id != options->server_id || strcmp(shared->layout_key, key) != 0)) {
    shared = shared->next;
  }
  if (shared != NULL) {
    free(key);
    if (strcmp(shared->state_dir, state_dir) != 0 || shared->max_lead_ms != options->max_lead_ms) {
      *error = mismatch(shared, options);
      shared = NULL;
    } else {
      ++shared->refs;
    }
  } else {
    shared = open_shared(options, key, error);
    if (shared != NULL) {
      shared->refs = 1;
      shared->next = registry_head;
      registry_head = shared;
    }
  }
  pthread_mutex_unlock(&registry_mu);
  if (shared == NULL && *error == NULL) *error = copy_text("out of memory");
  return shared;
}

void sf_shared_release(sf_shared* shared) {
  if (shared == NULL) return;
  pthread_mutex_lock(&registry_mu);
  if (--shared->refs == 0) {
    sf_shared** link = &registry_head;
    while (*link != shared) link = &(*link)->next;
    *link = shared->next;
    /* Closed under the mutex: an acquire of the same server id waits until the state folder
       is released, instead of failing on its lock. */
    destroy(shared);
  }
  pthread_mutex_unlock(&registry_mu);
}

steadyflake_generator* sf_shared_handle(const sf_shared* shared) { return shared->handle; }

uint64_t sf_shared_server_id(const sf_shared* shared) { return shared->server_id; }

const char* sf_shared_layout(const sf_shared* shared) { return shared->layout; }

const char* sf_shared_state_dir(const sf_shared* shared) { return shared->state_dir; }

int64_t sf_shared_max_lead_ms(const sf_shared* shared) { return shared->max_lead_ms; }

size_t sf_shared_refs(const sf_shared* shared) {
  pthread_mutex_lock(&registry_mu);
  const size_t refs = shared->refs;
  pthread_mutex_unlock(&registry_mu);
  return refs;
}
