// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// IDs per second through the Node addon, beside what a Node server uses instead, in one run:
//
//   STEADYFLAKE_NODE_ADDON=build-release/bindings/node/steadyflake.node \
//     node bindings/node/bench.js [SECONDS]
//
// Prints one JSON object per case on its own line to stdout ({"binding": "node", "name",
// "node", "ids", "seconds", "ids_per_second"}; bench/run feeds them to bench/report.py) and the
// ratios to stderr. The baselines: crypto.randomUUID() (a v4 UUID, Node's own, from a cache of
// random bytes) and a pure-JavaScript snowflake generator below (BigInt arithmetic, the clock
// read with Date.now() per ID, as such generators on npm do). Each case runs for about SECONDS
// (default 0.5) of wall time, on the layout the C++ benchmarks use (38/3/22@1ms: 2^22 IDs per
// millisecond, so the layout's capacity never binds and the figures are the code's, not the
// clock's); the JavaScript snowflake uses the same layout.
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');
const steadyflake = require(path.join(__dirname));

// The addon file index.js loads (bench/run names it in STEADYFLAKE_NODE_ADDON), for its raw class.
function addonFile() {
  const fromEnv = process.env.STEADYFLAKE_NODE_ADDON;
  return fromEnv ? path.resolve(fromEnv)
    : path.join(__dirname, '..', '..', 'build', 'bindings', 'node', 'steadyflake.node');
}

const seconds = Number(process.argv[2] || '0.5');
const kLayout = {
  name: '38/3/22@1ms', serverBits: 3, sequenceBits: 22, tickMs: 1, epochMs: 1704067200000,
};

// A classic snowflake in plain JavaScript: the tick from the wall clock, a sequence within it,
// a spin to the next tick when the sequence runs out; a clock that steps back keeps the last
// tick (so IDs never decrease within the process; across a restart they may repeat).
class JsSnowflake {
  constructor(serverId, layout) {
    this.epochMs = layout.epochMs;
    this.tickMs = layout.tickMs;
    this.maxSequence = 2 ** layout.sequenceBits - 1;
    this.timeShift = BigInt(layout.serverBits + layout.sequenceBits);
    this.serverPart = BigInt(serverId) << BigInt(layout.sequenceBits);
    this.lastTick = -1;
    this.sequence = 0;
  }

  tick() {
    return Math.floor((Date.now() - this.epochMs) / this.tickMs);
  }

  next() {
    let tick = this.tick();
    if (tick <= this.lastTick) {
      tick = this.lastTick;
      if (this.sequence === this.maxSequence) {
        while (tick <= this.lastTick) tick = this.tick();
        this.sequence = 0;
      } else {
        this.sequence += 1;
      }
    } else {
      this.sequence = 0;
    }
    this.lastTick = tick;
    return (BigInt(tick) << this.timeShift) | this.serverPart | BigInt(this.sequence);
  }
}

// Runs body(n) with n doubling until one run takes `seconds`; reports and returns IDs/s.
function measure(name, idsPerCall, body) {
  for (let n = 1024; ; n *= 2) {
    const t0 = process.hrtime.bigint();
    const sink = body(n);
    const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
    if (sink === undefined || sink === null) throw new Error(`${name}: the body returned nothing`);
    if (elapsed >= seconds || n >= 2 ** 31) {
      const ids = n * idsPerCall;
      const idsPerSecond = ids / elapsed;
      console.log(JSON.stringify({
        binding: 'node', name, node: process.version, ids, seconds: Number(elapsed.toFixed(6)),
        ids_per_second: Number(idsPerSecond.toFixed(1)),
      }));
      return idsPerSecond;
    }
  }
}

const gen = new steadyflake.Generator({ serverId: 1, layout: kLayout.name });
const direct = new (require(addonFile()).Generator)({ serverId: 2, layout: kLayout.name });
// Every case stores what it makes in this ring, so no ID or UUID is made only to be dropped
// (V8 could skip making a value nothing reads).
const kKeptMask = 1023;
const kept = new Array(kKeptMask + 1).fill(null);
const js = new JsSnowflake(1, kLayout);
const rate = {};

rate.uuid = measure('node_crypto_randomUUID', 1, (n) => {
  for (let i = 0; i < n; i++) kept[i & kKeptMask] = crypto.randomUUID();
  return kept[(n - 1) & kKeptMask];
});
rate.js = measure('node_js_snowflake_bigint', 1, (n) => {
  for (let i = 0; i < n; i++) kept[i & kKeptMask] = js.next();
  return kept[(n - 1) & kKeptMask];
});
rate.next = measure('node_next', 1, (n) => {
  for (let i = 0; i < n; i++) kept[i & kKeptMask] = gen.next();
  return kept[(n - 1) & kKeptMask];
});
// The addon's own generator, without the buffer generator.js puts in front of next(): one N-API
// call per ID, what a call costs in a turn that takes only a few IDs.
rate.direct = measure('node_next_one_call_per_id', 1, (n) => {
  for (let i = 0; i < n; i++) kept[i & kKeptMask] = direct.next();
  return kept[(n - 1) & kKeptMask];
});
rate.tryNext = measure('node_try_next', 1, (n) => {
  for (let i = 0; i < n; i++) kept[i & kKeptMask] = gen.tryNext();
  return kept[(n - 1) & kKeptMask];
});
rate.nextString = measure('node_next_string', 1, (n) => {
  for (let i = 0; i < n; i++) kept[i & kKeptMask] = gen.nextString();
  return kept[(n - 1) & kKeptMask];
});
rate.batch = measure('node_next_batch_1000', 1000, (n) => {
  let ids;
  for (let i = 0; i < n; i++) ids = gen.nextBatch(1000);
  return ids;
});
gen.close();
direct.close();

const ratio = (a, b) => `${(rate[a] / rate[b]).toFixed(2)}x`;
console.error(`bench.js: next() ${ratio('next', 'uuid')} crypto.randomUUID() ` +
  `(one N-API call per ID: ${ratio('direct', 'uuid')}), ` +
  `${ratio('next', 'js')} the JavaScript snowflake; nextString() ${ratio('nextString', 'uuid')} ` +
  `randomUUID(); nextBatch(1000) ${ratio('batch', 'uuid')} randomUUID() per ID`);
