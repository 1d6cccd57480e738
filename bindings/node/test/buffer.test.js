// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Tests of the buffer in front of Generator.next() (generator.js): IDs reserved in batches only
// when calls come dense within one turn of the event loop, never handed out in a later turn,
// never out of order with the other methods, and counted. Run by run_tests.sh beside
// steadyflake.test.js (same environment variables).
'use strict';

const assert = require('node:assert/strict');
const path = require('node:path');
const test = require('node:test');

const packageDir = path.resolve(__dirname, '..');
const { Generator } = require(packageDir);

// The `snowflake` layout's fields (data/id_vectors.json): 41 bits of 1 ms ticks, 10 of server
// id, 12 of sequence. Position = tick * 4096 + sequence: consecutive reservations differ by 1.
function position(id) {
  return ((id >> 22n) << 12n) + (id & 4095n);
}

// Asserts that `id` is the first ID reserved after `previous`: the next sequence in the same
// tick, or sequence 0 of a later tick (the clock moved on; nothing was reserved in between).
function assertFollows(id, previous, what) {
  const follows = id >> 22n === previous >> 22n ? position(id) === position(previous) + 1n
    : (id & 4095n) === 0n && id > previous;
  assert.ok(follows, `${what}: ${id} does not follow ${previous}; IDs were reserved and lost`);
}

// The end of the current turn: every microtask queued so far has run.
const endOfTurn = () => new Promise(setImmediate);

function open(serverId) {
  // A high lead bound, so that a dense turn never waits for the clock.
  return new Generator({ serverId, layout: 'snowflake', maxLeadMs: 60000 });
}

test('a dense turn is served from batches; what is left is thrown away when the turn ends',
  async () => {
    const gen = open(40);
    try {
      const count = 5000;
      const ids = [];
      for (let i = 0; i < count; i++) ids.push(gen.next());
      for (let i = 1; i < count; i++) {
        if (ids[i] <= ids[i - 1]) assert.fail(`ids[${i}] ${ids[i]} after ${ids[i - 1]}`);
      }
      const during = gen.stats();
      assert.equal(during.issued, count, 'issued counts IDs handed out, not reserved');
      assert.equal(during.discarded, 0);
      await endOfTurn();
      const after = gen.stats();
      assert.equal(after.issued, count);
      // 5,000 calls in one turn end in a batch of kMaxBatch (256) whose rest is dropped.
      assert.ok(after.discarded > 0 && after.discarded < 256,
        `discarded ${after.discarded}: the turn's last batch was not thrown away`);
      // The first ID of the new turn comes after the thrown-away ones, never from them.
      const next = gen.next();
      const gap = position(next) - position(ids[count - 1]);
      assert.ok(gap > BigInt(after.discarded),
        `the next turn's first ID is ${gap} positions on; ${after.discarded} were thrown away`);
    } finally {
      gen.close();
    }
  });

test('one call per turn never reserves more than it hands out', async () => {
  const gen = open(41);
  try {
    let previous = gen.next();
    for (let turn = 0; turn < 300; turn++) {
      await endOfTurn();
      // A few calls a turn, as a request handler makes: below the dense threshold.
      for (let i = 0; i < 1 + (turn % 4); i++) {
        const id = gen.next();
        assertFollows(id, previous, `turn ${turn}`);
        previous = id;
      }
    }
    await endOfTurn();
    assert.equal(gen.stats().discarded, 0);
  } finally {
    gen.close();
  }
});

test('a busy turn after a dense one uses batches from its first call, sized by the last', async () => {
  const gen = open(42);
  try {
    for (let i = 0; i < 1000; i++) gen.next();
    await endOfTurn();
    const before = gen.stats().discarded;
    const first = gen.next();
    const second = gen.next();
    // Served from one batch: consecutive positions, and nothing thrown away yet.
    assert.equal(position(second), position(first) + 1n);
    await endOfTurn();
    // Two IDs used of a batch sized by the dense turn: the rest is thrown away, and the turn
    // after that (two calls: sparse) goes back to one C call per ID.
    const thrown = gen.stats().discarded - before;
    assert.ok(thrown >= 30, `only ${thrown} thrown away: the turn did not start with a batch`);
    const a = gen.next();
    const b = gen.next();
    await endOfTurn();
    assert.equal(position(b), position(a) + 1n);
    assert.equal(gen.stats().discarded - before, thrown, 'a sparse turn threw IDs away');
  } finally {
    gen.close();
  }
});

test('every method hands out IDs in increasing order while the buffer holds some', () => {
  const gen = open(43);
  try {
    let previous = -1n;
    const take = (id, how) => {
      if (id <= previous) assert.fail(`${how} gave ${id} after ${previous}`);
      previous = id;
    };
    for (let i = 0; i < 3000; i++) {
      take(gen.next(), 'next');
      if (i % 97 === 0) take(BigInt(gen.nextString()), 'nextString');
      if (i % 89 === 0) take(gen.tryNext(), 'tryNext');
      if (i % 541 === 0) for (const id of gen.nextBatch(3)) take(id, 'nextBatch');
    }
  } finally {
    gen.close();
  }
});

test('close() throws the buffer away', () => {
  const gen = open(44);
  for (let i = 0; i < 1000; i++) gen.next();
  gen.close();
  for (const call of [() => gen.next(), () => gen.nextString(), () => gen.tryNext()]) {
    assert.throws(call, /called after close/);
  }
  assert.equal(gen.stats().issued, 1000);
});
