// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Tests of the Node addon, run by CTest through bindings/node/run_tests.sh:
//
//   STEADYFLAKE_NODE_ADDON=build/bindings/node/steadyflake.node \
//     node --test bindings/node/test/steadyflake.test.js
//
// Environment (each optional): STEADYFLAKE_NODE_ADDON, the addon (else index.js's lookup);
// STEADYFLAKE_TEST_VECTORS, data/id_vectors.json (else the repository's); STEADYFLAKE_TEST_WORK,
// a folder for state folders (else a new temporary one); STEADYFLAKE_TEST_VERSION, the version
// the library must report.
'use strict';

const assert = require('node:assert/strict');
const childProcess = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const test = require('node:test');
const { Worker } = require('node:worker_threads');

const packageDir = path.resolve(__dirname, '..');
const repoRoot = path.resolve(packageDir, '..', '..');
const steadyflake = require(packageDir);
const { Generator } = steadyflake;

const vectorsPath =
  process.env.STEADYFLAKE_TEST_VECTORS || path.join(repoRoot, 'data', 'id_vectors.json');
const workDir =
  process.env.STEADYFLAKE_TEST_WORK || fs.mkdtempSync(path.join(os.tmpdir(), 'steadyflake-node-'));
const vectorsFile = JSON.parse(fs.readFileSync(vectorsPath, 'utf8'));

let folderCount = 0;
function freshFolder(name) {
  folderCount += 1;
  const folder = path.join(workDir, `${name}-${process.pid}-${folderCount}`);
  fs.rmSync(folder, { recursive: true, force: true });
  return folder;
}

// Runs `script` in a new node process that has the addon as `steadyflake`; returns its stdout.
function runChild(script, args = []) {
  const addon = require.resolve(packageDir);
  const result = childProcess.spawnSync(
    process.execPath,
    [...args, '-e', `const steadyflake = require(${JSON.stringify(addon)});\n${script}`],
    { encoding: 'utf8', env: process.env, timeout: 60000 },
  );
  assert.equal(result.status, 0,
    `child failed (${result.status}):\n${result.stdout}${result.stderr}`);
  return result.stdout.trim();
}

// Asserts that fn throws an error of class `name` whose message matches `pattern`.
function throwsA(name, pattern, fn) {
  assert.throws(fn, { name, message: pattern });
}

// The position of an ID in its generator's sequence space: ticks since the epoch times the
// sequences per tick, plus the sequence. Consecutive IDs of one reservation differ by 1 here.
function position(parts, layoutName) {
  const layout = vectorsFile.layouts[layoutName];
  const tick = BigInt((parts.timeMs - layout.epoch_ms) / layout.tick_ms);
  return (tick << BigInt(layout.sequence_bits)) + BigInt(parts.sequence);
}

test('version', () => {
  const version = steadyflake.version();
  assert.match(version, /^\d+\.\d+\.\d+/);
  if (process.env.STEADYFLAKE_TEST_VERSION) {
    assert.equal(version, process.env.STEADYFLAKE_TEST_VERSION);
  }
  const packageJson = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  assert.equal(packageJson.version, version, 'package.json and the C library disagree');
});

test('vectors', () => {
  const { vectors } = vectorsFile;
  assert.ok(vectors.length >= 20, `only ${vectors.length} vectors in ${vectorsPath}`);
  for (const v of vectors) {
    const expected = { timeMs: v.unix_ms, serverId: v.server_id, sequence: v.sequence };
    const id = steadyflake.parse(v.id);
    assert.equal(typeof id, 'bigint');
    assert.equal(id, BigInt(v.id), `parse(${v.id})`);
    assert.equal(steadyflake.format(id), v.id);
    // From the bigint and from the string: both forms a caller may hold.
    assert.deepEqual(steadyflake.decode(id, v.layout), expected, `${v.layout} ${v.id}`);
    assert.deepEqual(steadyflake.decode(v.id, v.layout), expected, `${v.layout} "${v.id}"`);
    const composed = steadyflake.compose(v.layout, v.unix_ms, v.server_id, v.sequence);
    assert.equal(composed, id, `${v.layout}: compose of ${v.id}`);
  }
  // A generator decodes under its own layout, after close() too.
  for (const layout of Object.keys(vectorsFile.layouts)) {
    const gen = new Generator({ serverId: 1, layout });
    gen.close();
    for (const v of vectors.filter((vector) => vector.layout === layout)) {
      assert.deepEqual(gen.decode(BigInt(v.id)), steadyflake.decode(v.id, layout));
    }
  }
});

test('decode arguments', () => {
  // The layout defaults to "game".
  assert.deepEqual(steadyflake.decode(67108864n),
    { timeMs: 1704067200010, serverId: 0, sequence: 0 });
  throwsA('TypeError', /bigint or a decimal string.*2\^53/, () => steadyflake.decode(67108864));
  throwsA('TypeError', /decode: id must be/, () => steadyflake.decode({}));
  throwsA('Error', /'12x'/, () => steadyflake.decode('12x'));
  throwsA('Error', /70\/0\/0@1ms/, () => steadyflake.decode(1n, '70/0/0@1ms'));
  throwsA('Error', /-5 is negative/, () => steadyflake.decode(-5n));
  throwsA('RangeError', /9223372036854775808n does not fit in 64 bits/,
    () => steadyflake.decode(2n ** 63n));
  throwsA('TypeError', /decode: layout must be a string/, () => steadyflake.decode(1n, 7));
  // A field a number cannot hold exactly comes as a bigint.
  const id = ((2n ** 60n - 1n) << 2n) | 3n;
  const wide = steadyflake.decode(id, '1/60/2@1ms');
  assert.deepEqual(wide, { timeMs: 1704067200000, serverId: 2n ** 60n - 1n, sequence: 3 });
});

test('compose errors', () => {
  throwsA('Error', /65536/, () => steadyflake.compose('game', 1704067200000, 65536, 0));
  throwsA('Error', /unix_ms 1000/, () => steadyflake.compose('snowflake', 1000, 1, 0));
  throwsA('RangeError', /compose: serverId is -1/,
    () => steadyflake.compose('game', 1704067200000, -1, 0));
  throwsA('RangeError', /compose: timeMs/,
    () => steadyflake.compose('game', 1704067200000.5, 1, 0));
  throwsA('TypeError', /compose: sequence/,
    () => steadyflake.compose('game', 1704067200000, 1, '0'));
  assert.equal(steadyflake.compose(undefined, 1704067200010, 0n, 0n), 67108864n);
});

test('parse and format', () => {
  assert.equal(steadyflake.parse('0009'), 9n);
  assert.equal(steadyflake.parse('9223372036854775807'), 2n ** 63n - 1n);
  for (const bad of ['', '-1', '+1', ' 1', '12a', '9223372036854775808']) {
    assert.throws(() => steadyflake.parse(bad),
      (err) => err instanceof Error && err.message.length > 0, `parse(${JSON.stringify(bad)})`);
  }
  throwsA('TypeError', /parse: text must be a string/, () => steadyflake.parse(12));
  throwsA('TypeError', /NUL/, () => steadyflake.parse('1\u00002'));
  assert.equal(steadyflake.format(-1n), '-1');
  assert.equal(steadyflake.format(-(2n ** 63n)), '-9223372036854775808');
  assert.equal(steadyflake.format(2n ** 63n - 1n), '9223372036854775807');
  assert.throws(() => steadyflake.format(2n ** 63n), { name: 'RangeError' });
  assert.throws(() => steadyflake.format(-(2n ** 63n) - 1n), { name: 'RangeError' });
  throwsA('TypeError', /format: id must be a bigint/, () => steadyflake.format(42));
  assert.throws(() => steadyflake.format('42'), { name: 'TypeError' });
});

test('constructor errors name the field', () => {
  throwsA('TypeError', /serverId is required/, () => new Generator({ layout: 'game' }));
  throwsA('Error', /65536/, () => new Generator({ serverId: 65536 }));
  throwsA('Error', /'nope'/, () => new Generator({ serverId: 1, layout: 'nope' }));
  throwsA('Error', /max_lead 86400001/, () => new Generator({ serverId: 1, maxLeadMs: 86400001 }));
  throwsA('RangeError', /maxLeadMs is 1.5/, () => new Generator({ serverId: 1, maxLeadMs: 1.5 }));
  throwsA('RangeError', /serverId is 1.5/, () => new Generator({ serverId: 1.5 }));
  throwsA('RangeError', /serverId is -1n/, () => new Generator({ serverId: -1n }));
  throwsA('TypeError', /serverId must be a number or a bigint, not a string/,
    () => new Generator({ serverId: '7' }));
  throwsA('TypeError', /stateDir must be a string/,
    () => new Generator({ serverId: 1, stateDir: 5 }));
  throwsA('TypeError', /stateDir contains a NUL/,
    () => new Generator({ serverId: 1, stateDir: 'a\u0000b' }));
  // A misspelt option would silently drop the state folder: refused.
  throwsA('TypeError', /unknown option 'statedir'/,
    () => new Generator({ serverId: 1, statedir: '/tmp/x' }));
  throwsA('TypeError', /options object/, () => new Generator(7));
  throwsA('TypeError', /options object/, () => new Generator());
  throwsA('TypeError', /new Generator/, () => Generator({ serverId: 1 }));
  // A bigint server id and null for the optional ones are accepted.
  const gen = new Generator({ serverId: 2n, layout: null, stateDir: undefined, maxLeadMs: null });
  assert.equal(gen.decode(gen.next()).serverId, 2);
  gen.close();
});

test('next increases', () => {
  const gen = new Generator({ serverId: 7, layout: 'snowflake' });
  try {
    let previous = gen.next();
    assert.equal(typeof previous, 'bigint');
    for (let i = 0; i < 200000; i++) {
      const id = gen.next();
      if (id <= previous) assert.fail(`${id} after ${previous}`);
      previous = id;
    }
    const parts = gen.decode(previous);
    assert.equal(parts.serverId, 7);
    assert.ok(Math.abs(parts.timeMs - Date.now()) < 5000,
      `ID time ${parts.timeMs}, clock ${Date.now()}`);
    assert.deepEqual(steadyflake.decode(previous, 'snowflake'), parts);
    // Below 2^63: a sign error in the conversion would show as a negative bigint.
    assert.ok(previous > 0n && previous < 2n ** 63n);
  } finally {
    gen.close();
  }
});

test('nextString and tryNext', () => {
  const gen = new Generator({ serverId: 3 });
  try {
    const first = gen.next();
    const text = gen.nextString();
    assert.match(text, /^\d+$/);
    const second = BigInt(text);
    assert.ok(second > first, `nextString ${text} not above ${first}`);
    const third = gen.tryNext();
    assert.equal(typeof third, 'bigint');
    assert.ok(third > second);
    const { issued, wouldWait } = gen.stats();
    assert.deepEqual({ issued, wouldWait }, { issued: 3, wouldWait: 0 });
  } finally {
    gen.close();
  }
});

test('tryNext returns null when next would wait', () => {
  // No borrowing: 1,024 IDs per 10 ms tick, so a loop runs out within a tick or two.
  const gen = new Generator({ serverId: 4, maxLeadMs: 0 });
  try {
    let previous = -1n;
    let got = null;
    let issued = 0;
    for (let i = 0; i < 1000000; i++) {
      got = gen.tryNext();
      if (got === null) break;
      assert.ok(got > previous);
      previous = got;
      issued += 1;
    }
    assert.equal(got, null, 'tryNext never returned null');
    assert.ok(issued >= 1, 'no ID before the first null');
    const stats = gen.stats();
    assert.equal(stats.wouldWait, 1);
    assert.equal(stats.issued, issued);
    assert.ok(gen.next() > previous, 'next after a null tryNext');
  } finally {
    gen.close();
  }
});

test('nextBatch', () => {
  const gen = new Generator({ serverId: 9 });
  try {
    const before = gen.next();
    const ids = gen.nextBatch(1000);
    assert.ok(ids instanceof BigInt64Array,
      `nextBatch gave ${Object.prototype.toString.call(ids)}`);
    assert.equal(ids.length, 1000);
    assert.ok(ids[0] > before, 'the batch starts below an earlier ID');
    // One reservation: consecutive positions, across a tick boundary too.
    let previous = position(gen.decode(ids[0]), 'game');
    for (let i = 1; i < ids.length; i++) {
      const parts = gen.decode(ids[i]);
      assert.equal(parts.serverId, 9);
      const current = position(parts, 'game');
      if (current !== previous + 1n) {
        assert.fail(`ids[${i}] = ${ids[i]} is not the one after ids[${i - 1}] = ${ids[i - 1]}`);
      }
      previous = current;
    }
    assert.ok(gen.next() > ids[999], 'next after the batch is not above it');
    const empty = gen.nextBatch(0);
    assert.ok(empty instanceof BigInt64Array);
    assert.equal(empty.length, 0);
    assert.equal(gen.nextBatch(2n).length, 2);
    // 205,824 IDs fit the default max_lead of "game"; one more comes in a second reservation.
    const big = gen.nextBatch(205825);
    assert.equal(big.length, 205825);
    for (let i = 1; i < big.length; i++) {
      if (big[i] <= big[i - 1]) assert.fail(`oversized batch: ID ${i} not above the one before`);
    }
    assert.equal(gen.stats().issued, 1 + 1000 + 1 + 0 + 2 + 205825);
    throwsA('RangeError', /nextBatch: n is -1/, () => gen.nextBatch(-1));
    throwsA('RangeError', /nextBatch: n is 1.5/, () => gen.nextBatch(1.5));
    throwsA('TypeError', /nextBatch: n must be/, () => gen.nextBatch('3'));
    throwsA('TypeError', /not undefined/, () => gen.nextBatch());
    // More than V8 can hold in one typed array: a RangeError, not the end of the process.
    assert.throws(() => gen.nextBatch(2 ** 40), { name: 'RangeError' });
  } finally {
    gen.close();
  }
});

test('stats', () => {
  const dir = freshFolder('stats');
  const gen = new Generator({ serverId: 13, layout: 'snowflake', stateDir: dir, maxLeadMs: 500 });
  gen.next();
  gen.nextBatch(10);
  assert.deepEqual(gen.stats(), {
    issued: 11, wouldWait: 0, discarded: 0, serverId: 13, layout: 'snowflake', stateDir: dir,
    maxLeadMs: 500, closed: false,
  });
  gen.close();
  assert.equal(gen.stats().closed, true);
  const plain = new Generator({ serverId: 14 });
  assert.deepEqual(plain.stats(), {
    issued: 0, wouldWait: 0, discarded: 0, serverId: 14, layout: 'game', stateDir: null,
    maxLeadMs: 2000, closed: false,
  });
  plain.close();
});

test('state folder: one holder, and IDs rise across a restart', () => {
  const dir = freshFolder('state');
  const first = new Generator({ serverId: 11, stateDir: dir });
  // Borrow about 1.5 s ahead of the clock: a restart without the state file would start at now.
  const borrowed = first.nextBatch(150000);
  const last = borrowed[borrowed.length - 1];
  assert.ok(first.decode(last).timeMs - Date.now() > 1000, 'the batch did not borrow ahead');
  // One holder per server id and folder: the second is refused, naming the first.
  throwsA('Error', /in use on this host by pid/,
    () => new Generator({ serverId: 11, stateDir: dir }));
  first.close();
  const again = new Generator({ serverId: 11, stateDir: dir });
  try {
    const id = again.next();
    assert.ok(id > last, `after a restart ${id} is not above ${last}`);
  } finally {
    again.close();
  }
});

test('a process that exits without close() leaves IDs a restart does not repeat', () => {
  const dir = freshFolder('exit');
  const last = BigInt(runChild(`
    const gen = new steadyflake.Generator({ serverId: 21, stateDir: ${JSON.stringify(dir)} });
    const ids = gen.nextBatch(150000);
    console.log(String(ids[ids.length - 1]));
    process.exit(0);  // no close(): the state file and the exit release the server id
  `));
  const gen = new Generator({ serverId: 21, stateDir: dir });
  try {
    const id = gen.next();
    assert.ok(id > last, `after the child's exit ${id} is not above its ${last}`);
  } finally {
    gen.close();
  }
});

test('close', () => {
  const gen = new Generator({ serverId: 5 });
  const id = gen.next();
  gen.close();
  gen.close(); // again: nothing
  for (const [name, call] of [
    ['next', () => gen.next()],
    ['tryNext', () => gen.tryNext()],
    ['nextString', () => gen.nextString()],
    ['nextBatch', () => gen.nextBatch(2)],
    ['nextBatch', () => gen.nextBatch(0)],
  ]) {
    throwsA('Error', new RegExp(`Generator\\.${name}\\(\\) called after close\\(\\)`), call);
  }
  assert.equal(gen.decode(id).serverId, 5, 'decode after close');
  assert.equal(gen.stats().closed, true);
});

test('methods are bound to their generator', () => {
  const gen = new Generator({ serverId: 6 });
  const { next, nextBatch, close } = gen;
  const id = next();
  assert.equal(gen.decode(id).serverId, 6);
  assert.ok(nextBatch(2)[0] > id);
  assert.ok(next.call({}) > id, 'a method called on another object');
  close();
  assert.throws(() => gen.next(), /called after close/);
  assert.ok(gen instanceof Generator);
  assert.deepEqual(Object.keys(gen), [], 'methods are not enumerable, as a class\'s are not');
});

test('a collected generator releases its lock (finalizer)', () => {
  const dir = freshFolder('gc');
  const out = runChild(`
    const dir = ${JSON.stringify(dir)};
    const open = () => new steadyflake.Generator({ serverId: 12, stateDir: dir });
    // Tries to open the server id again; the ID issued, or null while the first still holds it.
    function reopen() {
      let again;
      try {
        again = open();
      } catch (err) {
        if (!/in use/.test(err.message)) throw err;
        return null;
      }
      const id = again.next();
      again.close();
      return id;
    }
    async function collect() {
      global.gc();
      // Finalizers run after a collection, on a later turn of the event loop.
      await new Promise(setImmediate);
    }
    (async () => {
      let gen = open();
      let next = gen.next;
      const first = next();
      gen = null;
      // A method taken from the generator keeps it open after the object is collected.
      for (let round = 0; round < 5; round++) await collect();
      if (reopen() !== null) return console.log('closed while a method was still reachable');
      const last = next();
      if (last <= first) return console.log('the kept method issued ' + last + ' after ' + first);
      next = null;
      for (let round = 0; round < 100; round++) {
        await collect();
        const id = reopen();
        if (id !== null) return console.log(id > last ? 'reopened' : 'repeated ' + id);
      }
      console.log('never finalized');
    })();
  `, ['--expose-gc']);
  assert.equal(out, 'reopened');
});

test('worker threads load the addon and issue IDs of their own', async () => {
  const worker = new Worker(`
    const { parentPort, workerData } = require('node:worker_threads');
    const steadyflake = require(workerData.addon);
    const gen = new steadyflake.Generator({ serverId: 31 });
    const ids = [gen.next(), ...gen.nextBatch(3)];
    gen.close();
    parentPort.postMessage(ids.map(String));
  `, { eval: true, workerData: { addon: require.resolve(packageDir) } });
  const ids = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  assert.equal(ids.length, 4);
  for (const text of ids) assert.equal(steadyflake.decode(text).serverId, 31);
  await worker.terminate();
  // The main thread's module still works after the worker's environment is gone.
  const gen = new Generator({ serverId: 32 });
  assert.equal(gen.decode(gen.next()).serverId, 32);
  gen.close();
});

test('the example in docs/bindings.md runs', () => {
  const docs = fs.readFileSync(path.join(repoRoot, 'docs', 'bindings.md'), 'utf8');
  const section = docs.split(/^## /m).find((part) => part.startsWith('Node'));
  assert.ok(section, 'docs/bindings.md has no "## Node" section');
  const example = /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(example, 'the Node section has no ```js example');
  // As a game server runs it, with `require('steadyflake')` resolving to this package and its
  // state folder in the test's work folder.
  const dir = path.join(freshFolder('example'), 'app');
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  fs.symlinkSync(packageDir, path.join(dir, 'node_modules', 'steadyflake'));
  const script = path.join(dir, 'example.js');
  fs.writeFileSync(script, example[1].replaceAll('/var/lib/game/ids', path.join(dir, 'ids')));
  const result = childProcess.spawnSync(process.execPath, [script],
    { cwd: dir, encoding: 'utf8', env: process.env, timeout: 60000 });
  assert.equal(result.status, 0, `the example failed:\n${result.stdout}${result.stderr}`);
});
