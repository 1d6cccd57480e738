// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The Generator class Node programs use: the addon's generator (src/generator.c) with a small
// buffer in front of next(), so that a loop issuing many IDs does not pay one N-API call each.
//
// Why: a call into the addon costs 25-40 ns however little it does (N-API's entry and exit and a
// bigint made in C); reading one element of a BigInt64Array costs a few. So when a caller takes
// many IDs in one synchronous run of JavaScript, next() reserves them in batches (one C call,
// one reservation) and hands them out of the buffer.
//
// What it must not cost:
//   - Time in the ID: a buffered ID was reserved when its batch was, so the buffer lives for
//     one turn of the event loop at most: a microtask queued with the batch throws away what is
//     left when the current JavaScript returns to the loop (or awaits). An ID's time is then at
//     most the length of that synchronous run behind the call, never from an earlier turn.
//   - Sequence space: what is thrown away was reserved and is never issued (a gap, counted in
//     stats().discarded). Batches are used only after a turn has shown kDenseCalls calls, start
//     at what the turn before used, double only when used up, and stop at kMaxBatch; a turn with
//     fewer calls goes back to one C call per ID. A server that takes one or a few IDs per
//     request so never buffers; one that takes thousands per turn wastes less than one batch
//     per turn.
//   - Order: every method hands out the buffer's IDs before asking the C library for more, or
//     (nextBatch) throws the buffer away first, so IDs still increase in the order handed out.
'use strict';

// Calls in one turn, seen while a probe is pending, before next() starts to use batches.
const kDenseCalls = 32;
// The largest batch: bounds what a turn can throw away (a quarter of a `game` tick's IDs).
const kMaxBatch = 256;
// One direct call in kProbeEvery queues a probe (a microtask) to see whether calls come dense.
const kProbeEvery = 64;

function defineMethods(self, methods) {
  for (const [name, method] of Object.entries(methods)) {
    Object.defineProperty(self, name, {
      value: method, writable: true, configurable: true, enumerable: false,
    });
  }
}

// Gives `self` the methods of a Generator over `inner`, the addon's generator; format is the
// addon's format(bigint).
function attachMethods(self, inner, format) {
  const buffer = new BigInt64Array(kMaxBatch);
  let pos = 0; // buffer[pos..end) are reserved and not yet handed out
  let end = 0;
  let batch = 0; // 0: one C call per ID; else the size of the next batch
  let pending = false; // a microtask is queued: we are still in the turn it was queued in
  let turnCalls = 0; // direct calls since the probe was queued
  let turnTaken = 0; // IDs taken into the buffer this turn
  let discarded = 0;
  let sinceProbe = 0;

  // Throws away what the buffer holds (never issued: a gap in the sequence).
  const drop = () => {
    discarded += end - pos;
    pos = end = 0;
  };
  const endOfTurn = () => {
    pending = false;
    const used = batch === 0 ? turnCalls : turnTaken - (end - pos);
    drop();
    batch = used >= kDenseCalls ? Math.min(used, kMaxBatch) : 0;
    turnCalls = turnTaken = 0;
  };
  const queueEndOfTurn = () => {
    pending = true;
    queueMicrotask(endOfTurn);
  };
  // The buffer is empty: one ID from the C library, or a new batch.
  const refill = () => {
    if (batch === 0) {
      if (!pending) {
        if (++sinceProbe < kProbeEvery) return inner.next();
        sinceProbe = 0;
        queueEndOfTurn();
      }
      if (++turnCalls < kDenseCalls) return inner.next();
      batch = kDenseCalls;
    } else if (!pending) {
      queueEndOfTurn();
    } else if (turnTaken > 0) {
      batch = Math.min(batch * 2, kMaxBatch);
    }
    inner.fill(buffer, batch);
    turnTaken += batch;
    pos = 1;
    end = batch;
    return buffer[0];
  };
  defineMethods(self, {
    next: () => (pos < end ? buffer[pos++] : refill()),
    nextString: () => (pos < end ? format(buffer[pos++]) : inner.nextString()),
    tryNext: () => (pos < end ? buffer[pos++] : inner.tryNext()),
    nextBatch: (n) => {
      drop();
      return inner.nextBatch(n);
    },
    decode: inner.decode, // bound to `inner` by the addon
    stats: () => {
      const stats = inner.stats();
      const held = end - pos;
      stats.issued -= held + discarded;
      stats.discarded = discarded;
      return stats;
    },
    close: () => {
      drop();
      inner.close();
    },
  });
}

// Returns the public Generator over the addon's class NativeGenerator: a function, not a class,
// so that a call without `new` gets the addon's own message.
function makeGenerator(NativeGenerator, format) {
  return function Generator(options) {
    if (new.target === undefined) {
      throw new TypeError('Generator: a class, called with new: new Generator({ serverId })');
    }
    attachMethods(this, new NativeGenerator(options), format);
  };
}

module.exports = { makeGenerator };
