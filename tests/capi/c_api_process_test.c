/* Copyright 2026 The steadyflake Authors.
   SPDX-License-Identifier: Apache-2.0

   The C ABI across processes and threads (c_api_test.c runs these): the fork rule, a child's
   generator beside its parent's state file, and 8 threads x 1M IDs with none issued twice. */

#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "c_api_check.h"
#include "steadyflake/c.h"

/* The fork rule: a generator opened before fork() issues nothing in the child. */
void TestFork(void) {
  steadyflake_generator* generator = Open("snowflake", 11);
  const int64_t before = steadyflake_next(generator);
  fflush(NULL);
  const pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    /* Child: the exit status carries one bit per failed expectation. */
    int status = 0;
    int64_t id = 55;
    if (steadyflake_next(generator) != -1) status |= 1;
    if (steadyflake_try_next(generator, &id) != -1 || id != 55) status |= 2;
    char* err = NULL;
    int64_t ids[4];
    if (steadyflake_next_batch(generator, ids, 4, &err) != 0 || err == NULL ||
        strstr(err, "fork()") == NULL) {
      status |= 4;
    }
    steadyflake_free(err);
    /* Closing frees the handle without touching the parent's engine state. Not when the rule
       is already seen broken: the engine's destructor would join the parent's ticker thread,
       which does not exist here, and hang instead of failing. */
    if (status != 0) _exit(status);
    steadyflake_generator_close(generator);
#ifndef STEADYFLAKE_NO_THREADS_AFTER_FORK /* see tests/capi/CMakeLists.txt */
    /* The child may open its own generator (with its own server id). */
    steadyflake_generator* own = Open("snowflake", 12);
    if (own == NULL || steadyflake_next(own) <= 0) status |= 8;
    steadyflake_generator_close(own);
#endif
    fflush(NULL);
    _exit(status); /* not exit(): the parent's atexit work is not the child's */
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    fprintf(stderr, "fork child: failed expectations, bit mask %d\n", WEXITSTATUS(status));
    ++failures;
  }
  /* The parent's generator is unaffected. */
  CHECK(steadyflake_next(generator) > before);
  steadyflake_generator_close(generator);
}

/* The reserved_until tick of a state file; 0 if unreadable. */
static uint64_t ReservedUntil(const char* path) {
  FILE* file = fopen(path, "r");
  if (file == NULL) return 0;
  char line[256];
  uint64_t reserved = 0;
  while (fgets(line, sizeof(line), file) != NULL) {
    if (strncmp(line, "reserved_until ", 15) == 0) reserved = strtoull(line + 15, NULL, 10);
  }
  fclose(file);
  return reserved;
}

/* Closing an inherited generator in the child must leave the parent's state file alone: the
   engine's close records the last tick used, which in the child would lower the reservation the
   parent relies on. The parent only ever raises it, so a lower value after the child exits can
   only be the child's write. */
void TestForkKeepsParentStateFile(void) {
  char dir[] = "/tmp/steadyflake-capi-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char* err = NULL;
  steadyflake_options* options = steadyflake_options_create();
  steadyflake_options_set_server_id(options, 8);
  steadyflake_options_set_state_dir(options, dir);
  steadyflake_generator* generator = steadyflake_generator_open(options, &err);
  CHECK_NO_ERROR(err);
  CHECK(steadyflake_next(generator) > 0);
  char path[256];
  snprintf(path, sizeof(path), "%s/server-8.state", dir);
  const uint64_t before = ReservedUntil(path);
  CHECK(before > 0);

  fflush(NULL);
  const pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    int status = 0;
    /* The parent holds this server id (host guard, state-file lock): the child cannot open it. */
    steadyflake_generator* again = steadyflake_generator_open(options, &err);
    if (again != NULL || err == NULL || strstr(err, "in use") == NULL) {
      status |= 1;
    }
    steadyflake_free(err);
    steadyflake_generator_close(generator);
    _exit(status);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const uint64_t after = ReservedUntil(path);
  if (after < before) {
    fprintf(stderr,
            "state file reserved_until went from %" PRIu64 " down to %" PRIu64
            " after the child closed its inherited handle\n",
            before, after);
    ++failures;
  }
  steadyflake_generator_close(generator);
  steadyflake_options_destroy(options);
  snprintf(path, sizeof(path), "rm -rf '%s'", dir);
  CHECK(system(path) == 0);
}

enum { kThreads = 8, kPerThread = 1000000, kThreadBatch = 1000 };

struct ThreadWork {
  steadyflake_generator* generator;
  int64_t* ids; /* kPerThread of them */
  int use_batch;
  int ok;
};

static void* IssueIds(void* arg) {
  struct ThreadWork* work = (struct ThreadWork*)arg;
  work->ok = 1;
  if (work->use_batch) {
    for (int i = 0; i < kPerThread; i += kThreadBatch) {
      char* err = NULL;
      if (steadyflake_next_batch(work->generator, work->ids + i, kThreadBatch, &err) !=
          kThreadBatch) {
        work->ok = 0;
        steadyflake_free(err);
        return NULL;
      }
    }
  } else {
    for (int i = 0; i < kPerThread; ++i) work->ids[i] = steadyflake_next(work->generator);
  }
  return NULL;
}

static int CompareIds(const void* a, const void* b) {
  const int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x > y) - (x < y);
}

/* 8 threads x 1M IDs from one handle (half through next, half through next_batch): each
   thread's IDs increase, and all 8M are distinct. snowflake: 4,096 IDs per ms. */
void TestThreads(void) {
  steadyflake_generator* generator = Open("snowflake", 1);
  int64_t* all = malloc(sizeof(int64_t) * kThreads * kPerThread);
  CHECK(all != NULL);
  if (all == NULL) return;
  pthread_t threads[kThreads];
  struct ThreadWork work[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    work[t].generator = generator;
    work[t].ids = all + (size_t)t * kPerThread;
    work[t].use_batch = t % 2;
    CHECK(pthread_create(&threads[t], NULL, IssueIds, &work[t]) == 0);
  }
  for (int t = 0; t < kThreads; ++t) CHECK(pthread_join(threads[t], NULL) == 0);
  for (int t = 0; t < kThreads; ++t) {
    CHECK(work[t].ok);
    const int64_t* ids = work[t].ids;
    size_t not_increasing = 0;
    for (int i = 1; i < kPerThread; ++i) not_increasing += ids[i] <= ids[i - 1];
    if (ids[0] <= 0 || not_increasing != 0) {
      fprintf(stderr, "thread %d: first ID %" PRId64 ", %zu IDs not above the one before\n", t,
              ids[0], not_increasing);
      ++failures;
    }
  }
  qsort(all, (size_t)kThreads * kPerThread, sizeof(int64_t), CompareIds);
  size_t duplicates = 0;
  for (size_t i = 1; i < (size_t)kThreads * kPerThread; ++i) duplicates += all[i] == all[i - 1];
  if (duplicates != 0) {
    fprintf(stderr, "%zu duplicate IDs among %d\n", duplicates, kThreads * kPerThread);
    ++failures;
  }
  free(all);
  steadyflake_generator_close(generator);
}
