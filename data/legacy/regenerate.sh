#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Writes the legacy fixture committed beside this script (issue 28): schema.sqlite.sql, a.sql
# and b.sql, two realms of a game's characters database as SQLite SQL (make_legacy.py says what
# they hold). profile.toml is written by hand: the game's rules, as its operator knows them.
# The tests build the SQLite files at test time (tests/cli/merge_plan_test.sh, merge_plan_legacy).
# MariaDB exports of it come with `steadyflake merge` (design section 6c), whose test will apply
# the rewrite and merge on MariaDB too.
set -euo pipefail
cd "$(dirname "$0")"
python3 make_legacy.py .
