// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Everything a game server needs: #include "steadyflake/steadyflake.h".

#ifndef STEADYFLAKE_STEADYFLAKE_H_
#define STEADYFLAKE_STEADYFLAKE_H_

#include "steadyflake/clock.h"
#include "steadyflake/error.h"
#include "steadyflake/generator.h"
#include "steadyflake/id_format.h"
#include "steadyflake/layout.h"
#include "steadyflake/reservation_store.h"
#include "steadyflake/time_format.h"
#include "steadyflake/version.h"  // generated from cmake/version.h.in

#endif  // STEADYFLAKE_STEADYFLAKE_H_
