/* Copyright 2026 The steadyflake Authors.
   SPDX-License-Identifier: Apache-2.0

   A C program built against nothing but the installed steadyflake/c.h and libsteadyflake_c
   (no CMake, no C++ headers): two IDs increase and decode to their server id, and format
   reads back. Exit status 0 when all is well, 1 otherwise. */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "steadyflake/c.h"

int main(void) {
  char* err = NULL;
  steadyflake_options* options = steadyflake_options_create();
  steadyflake_options_set_server_id(options, 7);
  steadyflake_generator* generator = steadyflake_generator_open(options, &err);
  steadyflake_options_destroy(options);
  if (generator == NULL) {
    fprintf(stderr, "c_consumer: %s\n", err);
    steadyflake_free(err);
    return 1;
  }
  const int64_t first = steadyflake_next(generator);
  const int64_t second = steadyflake_next(generator);
  steadyflake_generator_close(generator);
  if (first <= 0 || second <= first) {
    fprintf(stderr, "c_consumer: IDs do not increase: %" PRId64 " then %" PRId64 "\n", first,
            second);
    return 1;
  }
  steadyflake_parts parts;
  steadyflake_decode(NULL, second, &parts, &err);
  if (err != NULL || parts.server_id != 7) {
    fprintf(stderr, "c_consumer: ID %" PRId64 " does not decode to server id 7: %s\n", second,
            err != NULL ? err : "wrong server id");
    steadyflake_free(err);
    return 1;
  }
  char text[STEADYFLAKE_FORMAT_BUFFER_SIZE];
  steadyflake_format(second, text, sizeof(text));
  if (steadyflake_parse(text, &err) != second) {
    fprintf(stderr, "c_consumer: %s does not read back as %" PRId64 "\n", text, second);
    steadyflake_free(err);
    return 1;
  }
  printf("c_consumer: steadyflake %s (C ABI): %" PRId64 " < %s, server id %" PRIu64 "\n",
         steadyflake_version(), first, text, parts.server_id);
  return 0;
}
