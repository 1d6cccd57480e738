// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

// Package steadyflake issues 64-bit IDs that are unique across every server of a game, ordered
// by time and safe to merge, through the C ABI of the steadyflake engine
// (capi/include/steadyflake/c.h, libsteadyflake_c.so). docs/bindings.md describes the ID format.
//
// The package is cgo over the installed library. With the library in a prefix the compiler and
// the dynamic linker do not search, name it to cgo:
//
//	CGO_CFLAGS=-I/opt/steadyflake/include \
//	CGO_LDFLAGS="-L/opt/steadyflake/lib -Wl,-rpath,/opt/steadyflake/lib" go build
//
// A Generator is safe for use by any number of goroutines; IDs from one generator increase in
// the order they are issued, across goroutines. Every server needs its own server id: two
// generators with the same id issue the same IDs, which is why Open refuses a second one on the
// same host and why a state folder is recommended in production (it makes IDs never repeat
// across restarts).
package steadyflake

// #cgo LDFLAGS: -lsteadyflake_c
// #include <stdlib.h>
// #include <string.h>
// #include <steadyflake/c.h>
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"time"
	"unsafe"
)

// Options are the optional settings of Open. The zero value is the `game` layout, no state
// folder and the default max lead.
type Options struct {
	// Layout is "game" (the default when empty), "snowflake" or "TIME/SERVER/SEQUENCE@TICKms"
	// such as "37/16/10@10ms", as the CLI's --layout.
	Layout string
	// StateDir is the folder of the state file server-<id>.state, created if missing. With it,
	// IDs never repeat across restarts, and a second process with the same server id and folder
	// fails to open. Empty: no state file.
	StateDir string
	// MaxLead bounds how far ahead of the clock an ID's time may run when demand exceeds the
	// layout's sequence space; past it, Next waits. Zero means the default, 2 s; a negative
	// value means no lead at all. Whole milliseconds, at most 24 h.
	MaxLead time.Duration
}

// Parts are the fields of an ID.
type Parts struct {
	UnixMs   int64  // start of the ID's tick, milliseconds since 1970-01-01T00:00:00Z
	ServerID uint64 // the server (shard) that issued it
	Sequence uint64 // position within the tick
}

// Time is the start of the ID's tick.
func (p Parts) Time() time.Time { return time.UnixMilli(p.UnixMs) }

// Generator issues IDs. Close it when done (a generator that becomes unreachable is closed by
// the garbage collector, but its server id and state folder stay held until then).
type Generator struct {
	h *C.steadyflake_generator
}

// errorFrom turns a message from the C ABI's errptr into an error and frees it; nil when the
// call succeeded.
func errorFrom(message *C.char) error {
	if message == nil {
		return nil
	}
	defer C.steadyflake_free(unsafe.Pointer(message))
	return errors.New("steadyflake: " + C.GoString(message))
}

// cString is C.CString, or nil for "" (which the C ABI reads as "the default").
func cString(s string) *C.char {
	if s == "" {
		return nil
	}
	return C.CString(s)
}

// Open starts a generator for serverID, which must be unique among all servers that may ever
// be merged and fit the layout (at most 65535 for "game", 1023 for "snowflake"). opts may be
// nil. Open fails, with the C library's message, on a bad layout, a server id or max lead out
// of range, a corrupt or mismatched state file, or a server id already in use on this host or
// in the state folder (naming the process that holds it).
func Open(serverID uint64, opts *Options) (*Generator, error) {
	if opts == nil {
		opts = &Options{}
	}
	maxLeadMs := int64(-1) // unset: the library's default
	switch {
	case opts.MaxLead < 0:
		maxLeadMs = 0
	case opts.MaxLead > 0:
		if opts.MaxLead%time.Millisecond != 0 {
			return nil, fmt.Errorf("steadyflake: MaxLead %v is not a whole number of milliseconds; "+
				"round it (e.g. with Duration.Round(time.Millisecond))", opts.MaxLead)
		}
		maxLeadMs = opts.MaxLead.Milliseconds()
	}

	options := C.steadyflake_options_create()
	if options == nil {
		return nil, errors.New("steadyflake: out of memory")
	}
	defer C.steadyflake_options_destroy(options)
	if layout := cString(opts.Layout); layout != nil {
		var message *C.char
		C.steadyflake_options_set_layout(options, layout, &message)
		C.free(unsafe.Pointer(layout))
		if err := errorFrom(message); err != nil {
			return nil, err
		}
	}
	C.steadyflake_options_set_server_id(options, C.uint64_t(serverID))
	if dir := cString(opts.StateDir); dir != nil {
		C.steadyflake_options_set_state_dir(options, dir)
		C.free(unsafe.Pointer(dir))
	}
	if maxLeadMs >= 0 {
		C.steadyflake_options_set_max_lead_ms(options, C.int64_t(maxLeadMs))
	}

	var message *C.char
	h := C.steadyflake_generator_open(options, &message)
	if err := errorFrom(message); err != nil {
		return nil, err
	}
	g := &Generator{h: h}
	runtime.SetFinalizer(g, (*Generator).Close)
	return g, nil
}

// handle returns the C handle, panicking on a closed generator (as sending on a closed channel
// does: it is a bug in the caller, not a condition to handle).
func (g *Generator) handle() *C.steadyflake_generator {
	if g.h == nil {
		panic("steadyflake: use of a closed Generator")
	}
	return g.h
}

// Next returns one ID, larger than every ID this generator issued before. It waits only in a
// spike beyond MaxLead or while the state file cannot be extended. Panics on a closed
// generator.
func (g *Generator) Next() int64 {
	id := int64(C.steadyflake_next(g.handle()))
	runtime.KeepAlive(g) // the finalizer must not close the handle while the call runs
	if id < 0 {
		panic("steadyflake: the C library refused the handle")
	}
	return id
}

// TryNext is Next without waiting: ok is false when Next would wait.
func (g *Generator) TryNext() (id int64, ok bool) {
	var out C.int64_t
	rc := C.steadyflake_try_next(g.handle(), &out)
	runtime.KeepAlive(g)
	if rc < 0 {
		panic("steadyflake: the C library refused the handle")
	}
	return int64(out), rc == 1
}

// NextBatch fills ids with len(ids) increasing IDs (one mail per player in an event): one atomic
// reservation up to the largest batch, the IDs of the MaxLead window (205,824 for "game" at the
// default MaxLead), several beyond it, each waiting until its IDs may be issued. An empty slice
// is no error.
func (g *Generator) NextBatch(ids []int64) error {
	h := g.handle()
	if len(ids) == 0 {
		return nil
	}
	var message *C.char
	C.steadyflake_next_batch(h, (*C.int64_t)(unsafe.Pointer(&ids[0])), C.size_t(len(ids)),
		&message)
	runtime.KeepAlive(g)
	return errorFrom(message)
}

// Close stops the generator, records the last tick used in the state file and releases the
// server id. Closing again does nothing. Close must not run while another call on g is in
// progress.
func (g *Generator) Close() {
	if g.h == nil {
		return
	}
	C.steadyflake_generator_close(g.h)
	g.h = nil
	runtime.SetFinalizer(g, nil)
}

// Decode splits id into its fields under layout ("" = "game"). It fails on a bad layout or an
// id outside [0, the layout's largest ID].
func Decode(layout string, id int64) (Parts, error) {
	l := cString(layout)
	defer C.free(unsafe.Pointer(l))
	var out C.steadyflake_parts
	var message *C.char
	C.steadyflake_decode(l, C.int64_t(id), &out, &message)
	if err := errorFrom(message); err != nil {
		return Parts{}, err
	}
	return Parts{UnixMs: int64(out.unix_ms), ServerID: uint64(out.server_id),
		Sequence: uint64(out.sequence)}, nil
}

// Compose is the inverse of Decode: the ID of the given fields under layout ("" = "game").
// unixMs is rounded down to the start of its tick. It fails on a bad layout, a time outside the
// layout's lifetime, or a server id or sequence the layout cannot hold.
func Compose(layout string, unixMs int64, serverID, sequence uint64) (int64, error) {
	l := cString(layout)
	defer C.free(unsafe.Pointer(l))
	var message *C.char
	id := C.steadyflake_compose(l, C.int64_t(unixMs), C.uint64_t(serverID), C.uint64_t(sequence),
		&message)
	if err := errorFrom(message); err != nil {
		return -1, err
	}
	return int64(id), nil
}

// Parse reads an ID written in decimal by the C library's rules: ASCII digits only (no sign,
// space or other character; leading zeros are accepted), at most 9223372036854775807.
// (strconv.FormatInt writes one.)
func Parse(text string) (int64, error) {
	t := C.CString(text)
	defer C.free(unsafe.Pointer(t))
	if int(C.strlen(t)) != len(text) {
		return -1, fmt.Errorf("steadyflake: %q holds a NUL byte; an ID is ASCII digits only", text)
	}
	var message *C.char
	id := C.steadyflake_parse(t, &message)
	if err := errorFrom(message); err != nil {
		return -1, err
	}
	return int64(id), nil
}

// Version is the C library's version, e.g. "0.1.0".
func Version() string { return C.GoString(C.steadyflake_version()) }
