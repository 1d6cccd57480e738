// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// steadyflake for Node.js: loads the native addon (steadyflake.node, built by CMake from src/
// over the C ABI, libsteadyflake_c) and exports it, its Generator wrapped by generator.js (the
// buffer in front of next()). docs/bindings.md ("Node") is the manual.
//
//   const steadyflake = require('steadyflake');   // or require('./bindings/node')
//   const gen = new steadyflake.Generator({ serverId: 7, stateDir: '/var/lib/game/ids' });
//   const id = gen.next();                 // 465962119506959363n, a bigint
//   const text = gen.nextString();         // "465962119506959364", for JSON
//   const ids = gen.nextBatch(100);        // BigInt64Array of 100 increasing IDs
//   const parts = gen.decode(id);          // { timeMs, serverId: 7, sequence }
//   gen.close();                           // or leave it to the garbage collector
//
// Where the addon is looked for, first found wins:
//   1. the environment variable STEADYFLAKE_NODE_ADDON, a path to the .node file;
//   2. steadyflake.node beside this file (a packaged copy);
//   3. build/bindings/node/steadyflake.node in the repository this folder is in (the default
//      build folder of scripts/setup and of `cmake -B build`).
// libsteadyflake_c.so must be loadable by the addon: the build tree's own (the addon's RPATH
// names it), one beside the addon ($ORIGIN), or one on the dynamic linker's search path.
'use strict';

const fs = require('fs');
const path = require('path');

function addonPath() {
  const fromEnv = process.env.STEADYFLAKE_NODE_ADDON;
  if (fromEnv) return path.resolve(fromEnv);
  const candidates = [
    path.join(__dirname, 'steadyflake.node'),
    path.join(__dirname, '..', '..', 'build', 'bindings', 'node', 'steadyflake.node'),
  ];
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (found === undefined) {
    throw new Error(
      'steadyflake: the native addon steadyflake.node is not built; looked for ' +
        `${candidates.join(' and ')}. Build it (cmake -S . -B build && cmake --build build ` +
        '--target steadyflake_node, which needs the Debian package libnode-dev) or set ' +
        'STEADYFLAKE_NODE_ADDON to its path');
  }
  return found;
}

const addon = require(addonPath());
const { makeGenerator } = require('./generator');

// The addon's functions as they are; its Generator behind the buffered next() of generator.js.
module.exports = { ...addon, Generator: makeGenerator(addon.Generator, addon.format) };
