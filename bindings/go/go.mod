// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
module steadyflake/bindings/go

go 1.19
