/* Copyright 2026 The steadyflake Authors.
   SPDX-License-Identifier: Apache-2.0

   The C ABI (steadyflake/c.h) as a C program sees it: every function, its error paths, the
   fork rule, 8 threads x 1M IDs, and the shared vectors of data/id_vectors.json. Plain C11,
   built with -Wall -Wextra -Werror, so c.h itself must be clean C.

   Usage: c_api_test ID_VECTORS_JSON [TEST_NAME]. Runs every test, or the one named; exit status
   0 when all pass, 1 otherwise (each failure printed with its line). */

#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "c_api_check.h"
#include "steadyflake/c.h"

int failures = 0;

static const char* vectors_path = NULL;

/* A generator for `layout` (NULL = game) and `server_id`, no state folder; NULL on failure. */
steadyflake_generator* Open(const char* layout, uint64_t server_id) {
  char* err = NULL;
  steadyflake_options* options = steadyflake_options_create();
  CHECK(options != NULL);
  steadyflake_options_set_layout(options, layout, &err);
  CHECK_NO_ERROR(err);
  steadyflake_options_set_server_id(options, server_id);
  steadyflake_generator* generator = steadyflake_generator_open(options, &err);
  CHECK_NO_ERROR(err);
  CHECK(generator != NULL);
  steadyflake_options_destroy(options);
  return generator;
}

static void TestVersion(void) { CHECK(strcmp(steadyflake_version(), EXPECTED_VERSION) == 0); }

static void TestOpenErrors(void) {
  char* err = NULL;
  CHECK(steadyflake_generator_open(NULL, &err) == NULL);
  CHECK_ERROR(err, "options is NULL");

  steadyflake_options* options = steadyflake_options_create();
  /* No default server id: two servers left at one would issue the same IDs. */
  CHECK(steadyflake_generator_open(options, &err) == NULL);
  CHECK_ERROR(err, "server_id is not set");

  steadyflake_options_set_layout(options, "bogus", &err);
  CHECK_ERROR(err, "cannot read layout 'bogus'");
  steadyflake_options_set_layout(options, "37/20/16@1ms", &err);
  CHECK_ERROR(err, "needs 73 bits (37 + 20 + 16)");
  /* A bad layout leaves the one before (game): 65535 is game's largest server id. */
  steadyflake_options_set_server_id(options, 65535);
  steadyflake_generator* generator = steadyflake_generator_open(options, &err);
  CHECK_NO_ERROR(err);
  CHECK(generator != NULL);
  steadyflake_generator_close(generator);

  steadyflake_options_set_server_id(options, 65536);
  CHECK(steadyflake_generator_open(options, &err) == NULL);
  CHECK_ERROR(err, "server_id 65536 is out of range [0, 65535]");

  /* The server id is checked against the layout at open, whatever order the setters ran in. */
  steadyflake_options_set_layout(options, "snowflake", &err);
  CHECK_NO_ERROR(err);
  steadyflake_options_set_server_id(options, 1024);
  CHECK(steadyflake_generator_open(options, &err) == NULL);
  CHECK_ERROR(err, "server_id 1024 is out of range [0, 1023]");
  steadyflake_options_set_server_id(options, 1023);

  steadyflake_options_set_max_lead_ms(options, -1);
  CHECK(steadyflake_generator_open(options, &err) == NULL);
  CHECK_ERROR(err, "max_lead -1 ms is out of range");
  steadyflake_options_set_max_lead_ms(options, 86400001);
  CHECK(steadyflake_generator_open(options, &err) == NULL);
  CHECK_ERROR(err, "max_lead 86400001 ms is out of range");
  steadyflake_options_set_max_lead_ms(options, 86400000);
  generator = steadyflake_generator_open(options, &err);
  CHECK_NO_ERROR(err);
  steadyflake_generator_close(generator);

  /* NULL layout means game (server 1023 fits it too). */
  steadyflake_options_set_layout(options, NULL, &err);
  CHECK_NO_ERROR(err);
  steadyflake_options_set_max_lead_ms(options, 2000);
  generator = steadyflake_generator_open(options, &err);
  CHECK_NO_ERROR(err);
  steadyflake_parts parts;
  steadyflake_decode(NULL, steadyflake_next(generator), &parts, &err);
  CHECK_NO_ERROR(err);
  CHECK(parts.server_id == 1023);
  steadyflake_generator_close(generator);

  steadyflake_options_destroy(options);
  steadyflake_options_destroy(NULL);
  steadyflake_generator_close(NULL);
}

static void TestStateDir(void) {
  char dir[] = "/tmp/steadyflake-capi-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char* err = NULL;
  steadyflake_options* options = steadyflake_options_create();
  steadyflake_options_set_server_id(options, 42);
  steadyflake_options_set_state_dir(options, dir);
  steadyflake_generator* first = steadyflake_generator_open(options, &err);
  CHECK_NO_ERROR(err);
  CHECK(first != NULL);
  const int64_t before = steadyflake_next(first);

  char path[256];
  snprintf(path, sizeof(path), "%s/server-42.state", dir);
  struct stat st;
  CHECK(stat(path, &st) == 0);

  /* The folder is locked while `first` is open. */
  CHECK(steadyflake_generator_open(options, &err) == NULL);
  CHECK_ERROR(err, "in use");
  steadyflake_generator_close(first);

  /* Reopened, it continues after the IDs of the first. */
  steadyflake_generator* second = steadyflake_generator_open(options, &err);
  CHECK_NO_ERROR(err);
  CHECK(steadyflake_next(second) > before);
  steadyflake_generator_close(second);

  /* NULL: no state file, and still one generator per server id on this host (the engine's
     host guard), naming the holder. */
  steadyflake_options_set_state_dir(options, NULL);
  first = steadyflake_generator_open(options, &err);
  CHECK_NO_ERROR(err);
  CHECK(first != NULL);
  CHECK(steadyflake_generator_open(options, &err) == NULL);
  CHECK_ERROR(err, "in use on this host by pid");
  steadyflake_generator_close(first);
  steadyflake_options_destroy(options);

  snprintf(path, sizeof(path), "rm -rf '%s'", dir);
  CHECK(system(path) == 0);
}

static void TestNext(void) {
  steadyflake_generator* generator = Open("snowflake", 5);
  int64_t last = steadyflake_next(generator);
  CHECK(last > 0);
  for (int i = 0; i < 1000; ++i) {
    const int64_t id = steadyflake_next(generator);
    CHECK(id > last);
    last = id;
  }
  int64_t id = 0;
  CHECK(steadyflake_try_next(generator, &id) == 1);
  CHECK(id > last);
  steadyflake_parts parts;
  char* err = NULL;
  steadyflake_decode("snowflake", id, &parts, &err);
  CHECK_NO_ERROR(err);
  CHECK(parts.server_id == 5);

  id = 77;
  CHECK(steadyflake_next(NULL) == -1);
  CHECK(steadyflake_try_next(NULL, &id) == -1);
  CHECK(steadyflake_try_next(generator, NULL) == -1);
  CHECK(id == 77);
  steadyflake_generator_close(generator);
}

/* A layout of 2 IDs per 1 s tick, and no borrowing: the third ID of a tick would wait. */
static steadyflake_generator* OpenTiny(void) {
  char* err = NULL;
  steadyflake_options* options = steadyflake_options_create();
  steadyflake_options_set_layout(options, "30/10/1@1000ms", &err);
  CHECK_NO_ERROR(err);
  steadyflake_options_set_server_id(options, 3);
  steadyflake_options_set_max_lead_ms(options, 0);
  steadyflake_generator* generator = steadyflake_generator_open(options, &err);
  CHECK_NO_ERROR(err);
  steadyflake_options_destroy(options);
  return generator;
}

static void TestTryNextWouldWait(void) {
  steadyflake_generator* generator = OpenTiny();
  /* At most 2 IDs per tick: among 10 calls in far less than a second (one tick boundary at
     most), at most 4 are issued and some report "would wait". */
  int issued = 0, waited = 0;
  int64_t last = -1;
  for (int i = 0; i < 10; ++i) {
    int64_t id = -5;
    const int rc = steadyflake_try_next(generator, &id);
    CHECK(rc == 0 || rc == 1);
    if (rc == 1) {
      CHECK(id > last);
      last = id;
      ++issued;
    } else {
      CHECK(id == -5); /* untouched */
      ++waited;
    }
  }
  CHECK(issued >= 2 && issued <= 4);
  CHECK(waited >= 6);
  steadyflake_generator_close(generator);
}

static void TestNextBatch(void) {
  char* err = NULL;
  steadyflake_generator* generator = Open("snowflake", 9);
  enum { kBatch = 5000 };
  static int64_t ids[kBatch];
  const int64_t before = steadyflake_next(generator);
  CHECK(steadyflake_next_batch(generator, ids, kBatch, &err) == kBatch);
  CHECK_NO_ERROR(err);
  CHECK(ids[0] > before);
  for (int i = 1; i < kBatch; ++i) CHECK(ids[i] > ids[i - 1]);
  CHECK(steadyflake_next(generator) > ids[kBatch - 1]);

  /* n == 0 is empty, not an error, and needs no array. */
  err = (char*)ids; /* never read on entry: overwritten with NULL on success */
  CHECK(steadyflake_next_batch(generator, NULL, 0, &err) == 0);
  CHECK(err == NULL);

  CHECK(steadyflake_next_batch(generator, NULL, 3, &err) == 0);
  CHECK_ERROR(err, "ids is NULL");
  CHECK(steadyflake_next_batch(NULL, ids, 3, &err) == 0);
  CHECK_ERROR(err, "generator is NULL");
  steadyflake_generator_close(generator);

  /* Above the largest batch ((0 ticks of max_lead + 1) * 2 IDs = 2): filled all the same, the
     third ID in a later tick (a second reservation that waited for the clock, never more than
     max_lead = 0 ahead of it). */
  generator = OpenTiny();
  ids[0] = ids[1] = ids[2] = -7;
  CHECK(steadyflake_next_batch(generator, ids, 3, &err) == 3);
  CHECK_NO_ERROR(err);
  CHECK(ids[0] >= 0 && ids[1] > ids[0] && ids[2] > ids[1]);
  steadyflake_parts first, third;
  steadyflake_decode("30/10/1@1000ms", ids[0], &first, &err);
  CHECK_NO_ERROR(err);
  steadyflake_decode("30/10/1@1000ms", ids[2], &third, &err);
  CHECK_NO_ERROR(err);
  CHECK(third.unix_ms > first.unix_ms);
  steadyflake_generator_close(generator);
}

static void TestDecodeCompose(void) {
  char* err = NULL;
  steadyflake_parts parts = {0, 0, 0};
  /* game: tick 1 (10 ms after 2024-01-01), server 7, sequence 3. */
  const int64_t id = steadyflake_compose(NULL, 1704067200015, 7, 3, &err);
  CHECK_NO_ERROR(err);
  CHECK(id == ((int64_t)1 << 26 | 7 << 10 | 3));
  steadyflake_decode("game", id, &parts, &err);
  CHECK_NO_ERROR(err);
  CHECK(parts.unix_ms == 1704067200010); /* the tick's start: compose rounded down */
  CHECK(parts.server_id == 7);
  CHECK(parts.sequence == 3);

  const steadyflake_parts untouched = {11, 22, 33};
  parts = untouched;
  steadyflake_decode("game", -1, &parts, &err);
  CHECK_ERROR(err, "ID -1 is negative");
  steadyflake_decode("30/10/1@1000ms", (int64_t)1 << 41, &parts, &err);
  CHECK_ERROR(err, "ID 2199023255552 is larger than layout 30/10/1@1000ms holds");
  steadyflake_decode("30/10/1@1000ms", ((int64_t)1 << 41) - 1, &parts, &err);
  CHECK_NO_ERROR(err);
  CHECK(parts.server_id == 1023 && parts.sequence == 1);
  parts = untouched;
  steadyflake_decode("nope", 1, &parts, &err);
  CHECK_ERROR(err, "cannot read layout 'nope'");
  CHECK(parts.unix_ms == 11 && parts.server_id == 22 && parts.sequence == 33);
  steadyflake_decode("game", 1, NULL, &err);
  CHECK_ERROR(err, "out is NULL");

  CHECK(steadyflake_compose("game", 1704067199999, 0, 0, &err) == -1);
  CHECK_ERROR(err, "unix_ms 1704067199999 (2023-12-31T23:59:59.999Z) is outside layout");
  /* game ends 2^37 ticks of 10 ms after its epoch. */
  CHECK(steadyflake_compose("game", 1704067200000 + ((int64_t)1 << 37) * 10, 0, 0, &err) == -1);
  CHECK_ERROR(err, "is outside layout 37/16/10@10ms's lifetime");
  CHECK(steadyflake_compose("game", 1704067200000 + ((int64_t)1 << 37) * 10 - 1, 65535, 1023,
                            &err) == INT64_MAX);
  CHECK_NO_ERROR(err);
  CHECK(steadyflake_compose("game", 1704067200000, 65536, 0, &err) == -1);
  CHECK_ERROR(err, "server id 65536 is out of range [0, 65535]");
  CHECK(steadyflake_compose("snowflake", 1288834974657, 0, 4096, &err) == -1);
  CHECK_ERROR(err, "sequence 4096 is out of range [0, 4095]");
  CHECK(steadyflake_compose("1/1/1", 0, 0, 0, &err) == -1);
  CHECK_ERROR(err, "cannot read layout '1/1/1'");
}

static void TestFormat(void) {
  char buf[STEADYFLAKE_FORMAT_BUFFER_SIZE + 4];
  memset(buf, 'x', sizeof(buf));
  CHECK(steadyflake_format(0, buf, sizeof(buf)) == 1);
  CHECK(strcmp(buf, "0") == 0);
  CHECK(steadyflake_format(INT64_MAX, buf, sizeof(buf)) == 19);
  CHECK(strcmp(buf, "9223372036854775807") == 0);
  /* The documented size holds the longest text exactly. */
  memset(buf, 'x', sizeof(buf));
  CHECK(steadyflake_format(INT64_MIN, buf, STEADYFLAKE_FORMAT_BUFFER_SIZE) == 20);
  CHECK(strcmp(buf, "-9223372036854775808") == 0);
  CHECK(buf[STEADYFLAKE_FORMAT_BUFFER_SIZE] == 'x'); /* nothing past len */

  /* Too small by one (no room for the NUL): the needed length, and an empty string rather than
     a cut-off number, which would be another valid ID. */
  memset(buf, 'x', sizeof(buf));
  CHECK(steadyflake_format(465962119506959363, buf, 18) == 18);
  CHECK(buf[0] == '\0');
  CHECK(buf[1] == 'x');
  memset(buf, 'x', sizeof(buf));
  CHECK(steadyflake_format(465962119506959363, buf, 19) == 18);
  CHECK(strcmp(buf, "465962119506959363") == 0);
  /* Size queries. */
  CHECK(steadyflake_format(12345, NULL, 0) == 5);
  CHECK(steadyflake_format(12345, NULL, 100) == 5);
  buf[0] = 'x';
  CHECK(steadyflake_format(12345, buf, 0) == 5);
  CHECK(buf[0] == 'x');
  CHECK(steadyflake_format(-1, buf, sizeof(buf)) == 2);
  CHECK(strcmp(buf, "-1") == 0);
}

static void TestParse(void) {
  char* err = NULL;
  CHECK(steadyflake_parse("0", &err) == 0);
  CHECK_NO_ERROR(err);
  CHECK(steadyflake_parse("9223372036854775807", &err) == INT64_MAX);
  CHECK_NO_ERROR(err);
  CHECK(steadyflake_parse("465962119506959363", &err) == 465962119506959363);
  CHECK_NO_ERROR(err);
  CHECK(steadyflake_parse("007", &err) == 7);
  CHECK_NO_ERROR(err);

  static const struct {
    const char* text;
    const char* why;
  } kBad[] = {
      {"", "empty"},
      {"-1", "negative"},
      {"-0", "negative"},
      {"+1", "not a decimal integer"},
      {" 1", "not a decimal integer"},
      {"1 ", "not a decimal integer"},
      {"12a", "not a decimal integer"},
      {"0x10", "not a decimal integer"},
      {"1.5", "not a decimal integer"},
      {"9223372036854775808", "larger than the largest ID"},
      {"99999999999999999999999", "larger than the largest ID"},
  };
  for (size_t i = 0; i < sizeof(kBad) / sizeof(kBad[0]); ++i) {
    CHECK(steadyflake_parse(kBad[i].text, &err) == -1);
    CHECK_ERROR(err, kBad[i].why);
  }
  CHECK(steadyflake_parse(NULL, &err) == -1);
  CHECK_ERROR(err, "text is NULL");

  /* Round trip through format. */
  char buf[STEADYFLAKE_FORMAT_BUFFER_SIZE];
  steadyflake_format(2032836508397871103, buf, sizeof(buf));
  CHECK(steadyflake_parse(buf, &err) == 2032836508397871103);
  CHECK_NO_ERROR(err);
}

static void TestErrptrConventions(void) {
  /* errptr may be NULL: the return value still says it failed. */
  CHECK(steadyflake_parse("x", NULL) == -1);
  CHECK(steadyflake_compose("game", 0, 0, 0, NULL) == -1);
  steadyflake_options* options = steadyflake_options_create();
  steadyflake_options_set_layout(options, "bogus", NULL);
  CHECK(steadyflake_generator_open(options, NULL) == NULL); /* no server id */

  /* *errptr is written on every call, NULL on success, and never read on entry. */
  char not_a_message[] = "not malloc'd";
  char* err = not_a_message;
  CHECK(steadyflake_parse("12", &err) == 12);
  CHECK(err == NULL);
  err = not_a_message;
  steadyflake_options_set_layout(options, "snowflake", &err);
  CHECK(err == NULL);
  err = not_a_message;
  CHECK(steadyflake_parse("z", &err) == -1);
  CHECK_ERROR(err, "cannot read ID 'z'");
  steadyflake_free(NULL);
  steadyflake_options_destroy(options);
}

/* Reads the value after "key": on `line` into a string (quoted or not). 0 if absent. */
static int Field(const char* line, const char* key, char* out, size_t size) {
  char pattern[64];
  snprintf(pattern, sizeof(pattern), "\"%s\": ", key);
  const char* at = strstr(line, pattern);
  if (at == NULL) return 0;
  at += strlen(pattern);
  const int quoted = *at == '"';
  if (quoted) ++at;
  size_t n = 0;
  while (at[n] != '\0' && n + 1 < size &&
         (quoted ? at[n] != '"' : (at[n] != ',' && at[n] != '}'))) {
    ++n;
  }
  memcpy(out, at, n);
  out[n] = '\0';
  return 1;
}

/* data/id_vectors.json: every vector decodes to its fields and composes back to its ID. The
   file has one vector per line (docs/bindings.md), so this reader needs no JSON parser. */
static void TestVectors(void) {
  FILE* file = fopen(vectors_path, "r");
  CHECK(file != NULL);
  if (file == NULL) {
    fprintf(stderr, "cannot open %s: %s\n", vectors_path, strerror(errno));
    return;
  }
  char line[1024];
  int count = 0, layouts_seen = 0;
  while (fgets(line, sizeof(line), file) != NULL) {
    if (strstr(line, "{\"layout\": ") == NULL) continue;
    char layout[64], id_text[32], unix_ms[32], server_id[32], sequence[32];
    CHECK(Field(line, "layout", layout, sizeof(layout)));
    CHECK(Field(line, "id", id_text, sizeof(id_text)));
    CHECK(Field(line, "unix_ms", unix_ms, sizeof(unix_ms)));
    CHECK(Field(line, "server_id", server_id, sizeof(server_id)));
    CHECK(Field(line, "sequence", sequence, sizeof(sequence)));
    ++count;
    if (strcmp(layout, "game") == 0) layouts_seen |= 1;
    if (strcmp(layout, "snowflake") == 0) layouts_seen |= 2;
    if (strchr(layout, '/') != NULL) layouts_seen |= 4;

    char* err = NULL;
    const int64_t id = steadyflake_parse(id_text, &err);
    CHECK_NO_ERROR(err);
    const int64_t want_ms = strtoll(unix_ms, NULL, 10);
    const uint64_t want_server = strtoull(server_id, NULL, 10);
    const uint64_t want_sequence = strtoull(sequence, NULL, 10);
    steadyflake_parts parts = {-1, 0, 0};
    steadyflake_decode(layout, id, &parts, &err);
    CHECK_NO_ERROR(err);
    if (parts.unix_ms != want_ms || parts.server_id != want_server ||
        parts.sequence != want_sequence) {
      fprintf(stderr,
              "vector %s %s decodes to unix_ms %" PRId64 " server %" PRIu64 " seq %" PRIu64
              ", file says %s %s %s\n",
              layout, id_text, parts.unix_ms, parts.server_id, parts.sequence, unix_ms, server_id,
              sequence);
      ++failures;
    }
    const int64_t composed = steadyflake_compose(layout, want_ms, want_server, want_sequence, &err);
    CHECK_NO_ERROR(err);
    char text[STEADYFLAKE_FORMAT_BUFFER_SIZE];
    CHECK(steadyflake_format(composed, text, sizeof(text)) == strlen(id_text));
    if (strcmp(text, id_text) != 0) {
      fprintf(stderr, "vector %s %s composes to %s\n", layout, id_text, text);
      ++failures;
    }
  }
  fclose(file);
  /* A reader that silently skipped lines would prove nothing. */
  CHECK(count >= 20);
  CHECK(layouts_seen == 7);
}

static const struct {
  const char* name;
  void (*run)(void);
} kTests[] = {
    {"Version", TestVersion},
    {"OpenErrors", TestOpenErrors},
    {"StateDir", TestStateDir},
    {"Next", TestNext},
    {"TryNextWouldWait", TestTryNextWouldWait},
    {"NextBatch", TestNextBatch},
    {"DecodeCompose", TestDecodeCompose},
    {"Format", TestFormat},
    {"Parse", TestParse},
    {"ErrptrConventions", TestErrptrConventions},
    {"Fork", TestFork},
    {"ForkKeepsParentStateFile", TestForkKeepsParentStateFile},
    {"Threads", TestThreads},
    {"Vectors", TestVectors},
};

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s ID_VECTORS_JSON [TEST_NAME]\n", argv[0]);
    return 2;
  }
  vectors_path = argv[1];
  /* A host-guard namespace of this process's own: CTest runs these tests in parallel processes
     that use the same server ids. One set from outside is kept. */
  char host_namespace[64];
  snprintf(host_namespace, sizeof(host_namespace), "capi-%ld", (long)getpid());
  CHECK(setenv("STEADYFLAKE_HOST_GUARD_NAMESPACE", host_namespace, 0) == 0);
  int ran = 0;
  for (size_t i = 0; i < sizeof(kTests) / sizeof(kTests[0]); ++i) {
    if (argc == 3 && strcmp(argv[2], kTests[i].name) != 0) continue;
    const int before = failures;
    kTests[i].run();
    printf("%s %s\n", failures == before ? "PASS" : "FAIL", kTests[i].name);
    ++ran;
  }
  if (ran == 0) {
    fprintf(stderr, "no test named %s\n", argv[2]);
    return 2;
  }
  return failures == 0 ? 0 : 1;
}
