// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The hashes of a key that an input kept only as fingerprints. The first pass over an input
// that can read rows again by position (a plain dump) keeps a hashed key (text, a composite of
// more than two integers, reals) not as its 128-bit hashes, 16 bytes a row, but as the 32-bit
// fingerprints its row directory holds anyway (KeySet::CountHash, row_directory.h). At 2M rows
// a side that is 32 MB less fresh memory per input and per such key, and a sort of 4-byte
// values instead of 16-byte ones. ResolveFingerprints then finds the hashes the comparison
// needs: each key's fingerprints in both inputs are sorted and intersected, and only the rows
// whose fingerprints are in both are read again by position and hashed as the first pass
// hashed them. A value in both inputs has its fingerprint in both, so every hash in both sets
// is found, and the intersection of the sets (compare.cpp) is what it was. The rows read are
// those of the overlap and about n_A * n_B / 2^32 others whose fingerprints meet by chance:
// some 900 at 2M rows a side, 60,000 at 16M.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_RESOLVE_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_RESOLVE_H_

#include "check/collect.h"
#include "source/source.h"

namespace steadyflake::mergecheck {

// For every key of a table in both `ca` and `cb` (the Collectors that read `a` and `b`) whose
// set in either has hashes it kept as fingerprints (KeySet::elided), adds to that set the hashes
// whose fingerprints the other input has too, and finishes it (KeySet::FinishFound). A table
// whose rows an input cannot read by position (its directory does not hold them all, or
// ReadRowsAt refuses) is scanned instead. Reads both inputs at once, one thread each; throws
// what the sources throw (A's error first).
void ResolveFingerprints(Source& a, Collector& ca, Source& b, Collector& cb);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_RESOLVE_H_
