/* Copyright 2026 The steadyflake Authors.
   SPDX-License-Identifier: Apache-2.0

   What the C ABI test's files share (c_api_test.c, c_api_process_test.c): the failure count
   and the CHECK macros that add to it, the generator helper, and the tests c_api_test.c's main
   runs from the other file. */

#ifndef STEADYFLAKE_TESTS_CAPI_C_API_CHECK_H_
#define STEADYFLAKE_TESTS_CAPI_C_API_CHECK_H_

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "steadyflake/c.h"

/* Failed checks so far (c_api_test.c). */
extern int failures;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* Checks that err holds a message containing `part`, then frees it and clears err. */
#define CHECK_ERROR(err, part)                                                               \
  do {                                                                                       \
    if ((err) == NULL) {                                                                     \
      fprintf(stderr, "%s:%d: expected an error containing \"%s\", got none\n", __FILE__,    \
              __LINE__, (part));                                                             \
      ++failures;                                                                            \
    } else {                                                                                 \
      if (strstr((err), (part)) == NULL) {                                                   \
        fprintf(stderr, "%s:%d: error \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, \
                (err), (part));                                                              \
        ++failures;                                                                          \
      }                                                                                      \
      steadyflake_free(err);                                                                 \
      (err) = NULL;                                                                          \
    }                                                                                        \
  } while (0)

#define CHECK_NO_ERROR(err)                                                        \
  do {                                                                             \
    if ((err) != NULL) {                                                           \
      fprintf(stderr, "%s:%d: unexpected error: %s\n", __FILE__, __LINE__, (err)); \
      ++failures;                                                                  \
      steadyflake_free(err);                                                       \
      (err) = NULL;                                                                \
    }                                                                              \
  } while (0)

/* A generator for `layout` (NULL = game) and `server_id`, no state folder; NULL on failure. */
steadyflake_generator* Open(const char* layout, uint64_t server_id);

/* c_api_process_test.c: fork and threads. */
void TestFork(void);
void TestForkKeepsParentStateFile(void);
void TestThreads(void);

#endif /* STEADYFLAKE_TESTS_CAPI_C_API_CHECK_H_ */
