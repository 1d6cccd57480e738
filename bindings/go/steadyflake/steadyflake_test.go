// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

// Tests of the Go binding, run by CTest through bindings/go/run_tests.sh, which sets
// STEADYFLAKE_ID_VECTORS (data/id_vectors.json), STEADYFLAKE_TEST_DIR (a folder for state
// folders) and STEADYFLAKE_VERSION (the version the library must report).
package steadyflake

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// mustEnv returns the environment variable, skipping the test when it is unset (go test run by
// hand without run_tests.sh).
func mustEnv(t *testing.T, name string) string {
	t.Helper()
	value := os.Getenv(name)
	if value == "" {
		t.Skipf("%s is not set; run bindings/go/run_tests.sh (CTest: bindings.go)", name)
	}
	return value
}

// stateDir is a fresh folder for one test's state files.
func stateDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(mustEnv(t, "STEADYFLAKE_TEST_DIR"), t.Name()+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "state")
}

func open(t *testing.T, serverID uint64, opts *Options) *Generator {
	t.Helper()
	g, err := Open(serverID, opts)
	if err != nil {
		t.Fatalf("Open(%d, %+v): %v", serverID, opts, err)
	}
	t.Cleanup(g.Close)
	return g
}

func wantError(t *testing.T, err error, fragment string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", fragment)
	}
	if !strings.Contains(err.Error(), fragment) {
		t.Fatalf("error %q does not contain %q", err, fragment)
	}
}

func TestVectorsDecodeAndCompose(t *testing.T) {
	data, err := os.ReadFile(mustEnv(t, "STEADYFLAKE_ID_VECTORS"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []struct {
			Layout   string `json:"layout"`
			ID       string `json:"id"`
			UnixMs   int64  `json:"unix_ms"`
			ServerID uint64 `json:"server_id"`
			Sequence uint64 `json:"sequence"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) == 0 {
		t.Fatal("no vectors in the file")
	}
	for _, v := range file.Vectors {
		id, err := strconv.ParseInt(v.ID, 10, 64)
		if err != nil {
			t.Fatalf("vector id %q: %v", v.ID, err)
		}
		got, err := Decode(v.Layout, id)
		if err != nil {
			t.Fatalf("Decode(%q, %d): %v", v.Layout, id, err)
		}
		want := Parts{UnixMs: v.UnixMs, ServerID: v.ServerID, Sequence: v.Sequence}
		if got != want {
			t.Errorf("Decode(%q, %d) = %+v, want %+v", v.Layout, id, got, want)
		}
		back, err := Compose(v.Layout, v.UnixMs, v.ServerID, v.Sequence)
		if err != nil || back != id {
			t.Errorf("Compose(%q, %+v) = %d, %v; want %d", v.Layout, want, back, err, id)
		}
		parsed, err := Parse(v.ID)
		if err != nil || parsed != id {
			t.Errorf("Parse(%q) = %d, %v", v.ID, parsed, err)
		}
	}
	t.Logf("%d vectors", len(file.Vectors))
}

// Eight goroutines, a million IDs each, on the snowflake layout (4,096 IDs per 1 ms tick, so
// the run borrows future ticks and waits): all unique, each goroutine's increasing.
func TestEightGoroutinesMillionIDsEach(t *testing.T) {
	const goroutines, perGoroutine = 8, 1_000_000
	g := open(t, 5, &Options{Layout: "snowflake"})
	ids := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for i := range ids {
		ids[i] = make([]int64, perGoroutine)
		wg.Add(1)
		go func(out []int64) {
			defer wg.Done()
			for j := range out {
				out[j] = g.Next()
			}
		}(ids[i])
	}
	wg.Wait()
	all := make([]int64, 0, goroutines*perGoroutine)
	for i, mine := range ids {
		for j := 1; j < len(mine); j++ {
			if mine[j] <= mine[j-1] {
				t.Fatalf("goroutine %d: ID %d (%d) not above the one before (%d)", i, j, mine[j],
					mine[j-1])
			}
		}
		all = append(all, mine...)
	}
	sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("ID %d issued twice", all[i])
		}
	}
	parts, err := Decode("snowflake", all[len(all)-1])
	if err != nil || parts.ServerID != 5 {
		t.Fatalf("last ID decodes to %+v, %v; want server id 5", parts, err)
	}
}

func TestNextIncreasesAndDecodesToNow(t *testing.T) {
	g := open(t, 7, nil)
	before := time.Now().UnixMilli()
	first := g.Next()
	second := g.Next()
	if second <= first {
		t.Fatalf("Next gave %d after %d", second, first)
	}
	parts, err := Decode("", first)
	if err != nil {
		t.Fatal(err)
	}
	if parts.ServerID != 7 {
		t.Errorf("server id %d, want 7", parts.ServerID)
	}
	// The tick starts at most one 10 ms tick before the call; with MaxLead 2 s it is never
	// more than that ahead.
	if parts.UnixMs < before-10 || parts.UnixMs > time.Now().UnixMilli()+2000 {
		t.Errorf("ID time %v is not around now (%v)", parts.Time(), time.UnixMilli(before))
	}
	id, ok := g.TryNext()
	if !ok || id <= second {
		t.Errorf("TryNext = %d, %v after %d", id, ok, second)
	}
}

func TestNextBatch(t *testing.T) {
	g := open(t, 8, nil)
	before := g.Next()
	ids := make([]int64, 5000)
	if err := g.NextBatch(ids); err != nil {
		t.Fatal(err)
	}
	last := before
	for i, id := range ids {
		if id <= last {
			t.Fatalf("batch ID %d (%d) not above %d", i, id, last)
		}
		last = id
	}
	if after := g.Next(); after <= last {
		t.Errorf("Next after the batch gave %d, not above %d", after, last)
	}
	if err := g.NextBatch(nil); err != nil {
		t.Errorf("an empty batch: %v", err)
	}
	// 205,824 is the largest batch of "game" at the default MaxLead; one more comes in a second
	// reservation.
	big := make([]int64, 205_825)
	if err := g.NextBatch(big); err != nil {
		t.Fatalf("a batch above the largest: %v", err)
	}
	for i := 1; i < len(big); i++ {
		if big[i] <= big[i-1] {
			t.Fatalf("a batch above the largest: ID %d (%d) not above %d", i, big[i], big[i-1])
		}
	}
}

// A server id already in use fails to open, naming why: once in this process (the host guard),
// and once in a state folder.
func TestSecondOpenOfAServerIDFails(t *testing.T) {
	open(t, 9, nil)
	_, err := Open(9, nil)
	wantError(t, err, "in use")

	dir := stateDir(t)
	open(t, 10, &Options{StateDir: dir})
	_, err = Open(10, &Options{StateDir: dir})
	wantError(t, err, fmt.Sprintf("pid %d", os.Getpid()))
}

// With a state folder, a generator opened after Close continues above every ID issued before,
// even IDs that borrowed ticks ahead of the clock (150,000 IDs of "game" run about 1.5 s ahead),
// which a generator starting from the clock alone would issue again.
func TestStateFolderCarriesAcrossRestarts(t *testing.T) {
	dir := stateDir(t)
	g, err := Open(11, &Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, 150_000)
	if err := g.NextBatch(ids); err != nil {
		t.Fatal(err)
	}
	last := ids[len(ids)-1]
	g.Close()
	g.Close() // again: nothing
	if _, err := os.Stat(filepath.Join(dir, "server-11.state")); err != nil {
		t.Fatalf("no state file: %v", err)
	}
	again := open(t, 11, &Options{StateDir: dir})
	if id := again.Next(); id <= last {
		t.Fatalf("after the restart Next gave %d, not above %d", id, last)
	}
}

func TestUseAfterClosePanics(t *testing.T) {
	g, err := Open(12, nil)
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "closed") {
			t.Fatalf("Next after Close: recovered %v, want a panic naming the closed Generator", r)
		}
	}()
	g.Next()
}

// A generator nobody closes is closed by the garbage collector, which releases its server id.
func TestUnreachableGeneratorIsClosedByTheCollector(t *testing.T) {
	func() {
		if _, err := Open(14, nil); err != nil {
			t.Fatal(err)
		}
	}()
	// Finalizers run on their own goroutine after a collection: collect and yield until the id
	// is free, a bounded number of times.
	for i := 0; i < 1000; i++ {
		runtime.GC()
		runtime.Gosched()
		if g, err := Open(14, nil); err == nil {
			g.Close()
			t.Logf("released after %d collections", i+1)
			return
		}
	}
	t.Fatal("server id 14 still in use after 1000 collections: the finalizer did not close it")
}

func TestOpenErrors(t *testing.T) {
	cases := []struct {
		serverID uint64
		opts     Options
		want     string
	}{
		{65536, Options{}, "65536"},
		{1024, Options{Layout: "snowflake"}, "1024"},
		{1, Options{Layout: "gamer"}, "gamer"},
		{1, Options{Layout: "40/20/10@10ms"}, "63"},
		{1, Options{MaxLead: 25 * time.Hour}, "90000000"},
		{1, Options{MaxLead: 1500 * time.Microsecond}, "milliseconds"},
	}
	for _, c := range cases {
		g, err := Open(c.serverID, &c.opts)
		if g != nil {
			g.Close()
		}
		wantError(t, err, c.want)
	}
}

func TestMaxLeadNegativeMeansNoBorrowing(t *testing.T) {
	// No lead: within one tick at most 2^10 IDs, after which TryNext declines.
	g := open(t, 13, &Options{MaxLead: -1})
	declined := false
	for i := 0; i < 1<<16 && !declined; i++ {
		_, ok := g.TryNext()
		declined = !ok
	}
	if !declined {
		t.Fatal("TryNext never declined with no lead: the generator borrowed ticks")
	}
}

func TestDecodeComposeParseErrors(t *testing.T) {
	_, err := Decode("", -1)
	wantError(t, err, "-1")
	_, err = Decode("nonsense", 1)
	wantError(t, err, "nonsense")
	_, err = Compose("game", 0, 1, 0)
	wantError(t, err, "lifetime")
	_, err = Compose("game", time.Now().UnixMilli(), 70000, 0)
	wantError(t, err, "70000")
	for _, text := range []string{"", "-1", " 1", "1x", "9223372036854775808", "1\x002"} {
		if id, err := Parse(text); err == nil {
			t.Errorf("Parse(%q) = %d, want an error", text, id)
		}
	}
	if id, err := Parse("007"); err != nil || id != 7 {
		t.Errorf("Parse(\"007\") = %d, %v", id, err)
	}
}

func TestVersion(t *testing.T) {
	if want := mustEnv(t, "STEADYFLAKE_VERSION"); Version() != want {
		t.Fatalf("Version() = %q, want %q", Version(), want)
	}
}

// The layout the C++ benchmarks use, 38/3/22@1ms: 2^22 IDs per millisecond, so the layout's
// capacity never binds and the figure is the binding's cost, not the clock's.
func BenchmarkNext(b *testing.B) {
	g, err := Open(1, &Options{Layout: "38/3/22@1ms"})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g.Next()
	}
}

// 1000 IDs an operation (bench/run divides ns/op by 1000).
func BenchmarkNextBatch1000(b *testing.B) {
	g, err := Open(2, &Options{Layout: "38/3/22@1ms"})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	ids := make([]int64, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := g.NextBatch(ids); err != nil {
			b.Fatal(err)
		}
	}
}
