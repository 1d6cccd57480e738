// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// MergeInParts (merge_in_parts.h).

#include "check/merge_in_parts.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "source/key_cursor.h"

namespace steadyflake::mergecheck {

namespace {

using text_order::CompareBytes;
using text_order::CompareText;
using text_order::Order;

// Thrown out of a part: its records are not what the merge needs (see the top of the header).
struct Untrusted {};
// Thrown out of a part: input `side`'s cursor threw `error`.
struct SideFailed {
  int side;
  std::exception_ptr error;
};

// SQLite's order of index keys: NULL, numbers, text (under `order`), blobs.
int Rank(KeyRef::Type type) { return static_cast<int>(type); }
[[gnu::always_inline]] inline int CompareKeys(Order order, const KeyRef& x, const KeyRef& y) {
  if (x.type != y.type) return Rank(x.type) < Rank(y.type) ? -1 : 1;
  if (x.type == KeyRef::Type::kText) return CompareText(order, x.bytes(), y.bytes());
  return CompareBytes(x.bytes(), y.bytes());  // blobs (NULLs and numbers are never compared)
}

// A bound of a part: a split, owned.
struct Bound {
  std::string bytes;
  KeyRef::Type type = KeyRef::Type::kText;
  KeyRef key() const { return KeyRef{bytes.data(), static_cast<uint32_t>(bytes.size()), type}; }
};

// Where one input's walk of one part began and stopped (KeyCursor::Position), and what it read.
struct PartWalk {
  uint64_t start = KeyCursor::kEnd;
  uint64_t stop = KeyCursor::kEnd;
  uint64_t records = 0;  // NULLs too
  uint64_t rows = 0;     // not NULL
  uint64_t repeats = 0;  // of those, equal to the key before
};

// The eight bytes of a key after `skip` as one integer that orders the keys of a part as kOrder
// does wherever two of them differ (equal heads say nothing: the keys are then compared whole).
// Every key of a part shares the first `skip` bytes (under kOrder) with both its bounds
// (SharedPrefix), so that keys named alike (`hero_3fa0c1…`) differ in their heads. BINARY's
// bytes big-endian, zeros after a shorter key (which sorts first); NOCASE's folded the same way;
// RTRIM's none (0), as trailing spaces make a shorter key equal; a blob's all ones, as blobs sort
// after every text.
template <Order kOrder>
[[gnu::always_inline]] inline uint64_t HeadOf(const KeyRef& key, std::size_t skip) {
  if (key.type != KeyRef::Type::kText) return UINT64_MAX;
  if constexpr (kOrder == Order::kRtrim) {
    return 0;
  } else {
    // The bytes are joined in registers: a word loaded after the narrower stores of a memcpy
    // of the key's length waits for them to reach the cache (39% of this loop's samples).
    const auto* const bytes = reinterpret_cast<const unsigned char*>(key.data + skip);
    const std::size_t left = key.size - skip;  // REQUIRES: the key has the prefix
    uint64_t word = 0;
    if (left >= 8) {
      std::memcpy(&word, bytes, 8);
    } else if (left >= 4) {  // two loads of four that overlap where left < 8
      uint32_t first = 0;
      uint32_t last = 0;
      std::memcpy(&first, bytes, 4);
      std::memcpy(&last, bytes + left - 4, 4);
      word = first | uint64_t{last} << (8 * (left - 4));
    } else if (left > 0) {
      word = bytes[0] | uint64_t{bytes[left / 2]} << (8 * (left / 2)) |
             uint64_t{bytes[left - 1]} << (8 * (left - 1));
    }
    if constexpr (kOrder == Order::kNocase) {
      // 'A'..'Z' (0x41..0x5a) to lower case, eight bytes at once: a byte's top bit set keeps it.
      constexpr uint64_t kOnes = 0x0101010101010101u;
      const uint64_t low7 = word & (kOnes * 0x7f);
      const uint64_t above_a = low7 + kOnes * (0x80 - 0x41);
      const uint64_t above_z = low7 + kOnes * (0x80 - 0x5b);
      const uint64_t upper = above_a & ~above_z & ~word & (kOnes * 0x80);
      word |= upper >> 2;
    }
    return __builtin_bswap64(word);
  }
}

// Whether `key` begins with `prefix` under kOrder (NOCASE: ASCII letters folded). CompareText is
// inline, a word at a time: memcmp's call here was a tenth of the merge's time.
template <Order kOrder>
[[gnu::always_inline]] inline bool HasPrefix(const KeyRef& key, std::string_view prefix) {
  return key.size >= prefix.size() &&
         CompareText(kOrder, std::string_view(key.data, prefix.size()), prefix) == 0;
}

// The bytes every text key from `low` to below `high` begins with under kOrder: the bounds'
// common prefix (as `low` spells it; for NOCASE, the bytes alike with ASCII letters folded),
// when both are text; none otherwise (RTRIM: none, as its heads are not used).
template <Order kOrder>
std::string_view SharedPrefix(const Bound* low, const Bound* high) {
  if (kOrder == Order::kRtrim || low == nullptr || high == nullptr ||
      low->type != KeyRef::Type::kText || high->type != KeyRef::Type::kText) {
    return {};
  }
  const std::string_view x = low->bytes;
  const std::string_view y = high->bytes;
  std::size_t n = 0;
  const std::size_t most = std::min(x.size(), y.size());
  if constexpr (kOrder == Order::kNocase) {
    while (n < most && text_order::Lower(static_cast<unsigned char>(x[n])) ==
                           text_order::Lower(static_cast<unsigned char>(y[n]))) {
      ++n;
    }
  } else {
    while (n < most && x[n] == y[n]) ++n;
  }
  return x.substr(0, n);
}

// One input's records of one part, from `low` (none: the first part, from the index's start)
// below `high` (none: the last part, to its end), each key checked (see the top of the header).
// kOrder: the key's order, known to the compiler, so that each comparison is the one it needs.
// A run of the cursor is checked whole as it comes (Refill), its keys then given with their
// heads, so that the merge compares words in a loop whose branches the processor can predict.
template <Order kOrder>
class Walk {
 public:
  Walk(KeyCursor& cursor, int side, const Bound* low, const Bound* high, PartWalk& out)
      : cursor_(cursor),
        side_(side),
        high_(high),
        prefix_(SharedPrefix<kOrder>(low, high)),
        out_(out) {
    try {
      if (low == nullptr) {
        cursor_.Seek({});
      } else {
        const KeyRef bound = low->key();
        cursor_.Seek([&](const KeyRef& key) { return CompareKeys(kOrder, key, bound) < 0; });
      }
    } catch (...) {
      throw SideFailed{side_, std::current_exception()};
    }
  }

  // The next keys of the part (not NULL, not repeats), in keys() and heads(), from at() on:
  // true; false at the part's end. The keys are valid until the next Refill.
  bool Refill() {
    size_ = 0;
    at_ = 0;
    while (size_ == 0) {
      if (ended_ || !Fetch()) return false;
      Check();
    }
    return true;
  }

  const KeyRef* keys() const { return keys_.data(); }
  const uint64_t* heads() const { return heads_.data(); }
  std::size_t size() const { return size_; }
  std::size_t& at() { return at_; }

 private:
  // Moves run_'s keys below the bound, not NULL and not repeats, into keys_ and heads_, each
  // checked against the one before it. The loop's state is in locals, written back once: kept
  // in members, each key's stores and loads of them (the arrays' ends, the counts, the key
  // before) chained one key to the next through memory.
  void Check() {
    const std::size_t count = run_.size();
    if (keys_.size() < count) {
      keys_.resize(count);
      heads_.resize(count);
    }
    const KeyRef* const run = run_.data();
    KeyRef* const keys = keys_.data();
    uint64_t* const heads = heads_.data();
    const Bound* const high = high_;
    const std::size_t below_high = below_high_;
    const std::string_view prefix = prefix_;
    std::size_t n = 0;
    uint64_t records = 0;
    uint64_t rows = 0;
    uint64_t repeats = 0;
    bool any = any_;
    const KeyRef* last = last_;
    uint64_t last_head = last_head_;
    for (std::size_t k = 0; k < count; ++k) {
      const KeyRef& key = run[k];
      if (high != nullptr && k >= below_high && CompareKeys(kOrder, key, high->key()) >= 0) {
        out_.stop = cursor_.Position(k);
        ended_ = true;
        break;
      }
      ++records;
      if (key.type == KeyRef::Type::kNull) {
        if (any) throw Untrusted{};  // NULLs come first
        continue;
      }
      if (key.type == KeyRef::Type::kNumber) throw Untrusted{};  // not ordered here
      // Below high (checked above, or the run's last key is and this one is in order) and not
      // below the part's lower bound, a text key has their shared prefix: one without it is out
      // of order.
      if (key.type == KeyRef::Type::kText && !HasPrefix<kOrder>(key, prefix)) {
        throw Untrusted{};
      }
      ++rows;
      const uint64_t head = HeadOf<kOrder>(key, prefix.size());
      // The first record of a part is not below its lower bound: the walk of the part before
      // stopped at that very record because it was not (Contiguous).
      if (any) {
        const int c =
            head != last_head ? (last_head < head ? -1 : 1) : CompareKeys(kOrder, *last, key);
        if (c > 0) throw Untrusted{};
        if (c == 0) {  // a key twice (an index that is not unique): once is enough
          ++repeats;
          last = &key;
          continue;
        }
      }
      any = true;
      last = &key;
      last_head = head;
      keys[n] = key;
      heads[n] = head;
      ++n;
    }
    out_.records += records;
    out_.rows += rows;
    out_.repeats += repeats;
    any_ = any;
    last_ = last;
    last_head_ = last_head;
    size_ = n;
  }

  // The cursor's next run; false at the index's end.
  [[gnu::noinline]] bool Fetch() {
    if (any_ && last_ != &kept_key_) {  // the key before, kept: the run it lies in goes
      kept_.assign(last_->data, last_->size);
      kept_key_ = KeyRef{kept_.data(), last_->size, last_->type};
      last_ = &kept_key_;
    }
    try {
      run_ = cursor_.Next();
    } catch (...) {
      throw SideFailed{side_, std::current_exception()};
    }
    if (run_.empty()) {
      ended_ = true;
      return false;
    }
    if (!started_) {
      out_.start = cursor_.Position(0);
      started_ = true;
    }
    // When the run's last key is below the bound, so is every key of it that is in order, and
    // a key out of order gives up: one comparison with the bound a run.
    below_high_ = 0;
    if (high_ != nullptr && CompareKeys(kOrder, run_.back(), high_->key()) < 0) {
      below_high_ = run_.size();
    }
    return true;
  }

  KeyCursor& cursor_;
  const int side_;
  const Bound* const high_;
  const std::string_view prefix_;  // every text key of the part begins with it (SharedPrefix)
  PartWalk& out_;
  std::span<const KeyRef> run_;
  std::size_t below_high_ = 0;  // the run's keys before it are below high_
  bool started_ = false;
  bool ended_ = false;
  bool any_ = false;              // a key not NULL was read
  const KeyRef* last_ = nullptr;  // the key read last: in run_, or kept_key_
  uint64_t last_head_ = 0;        // the head of the last key kept (not a repeat)
  KeyRef kept_key_;
  std::string kept_;
  // keys() and heads(): their first size_ (room for the longest run yet).
  std::vector<KeyRef> keys_;
  std::vector<uint64_t> heads_;
  std::size_t size_ = 0;
  std::size_t at_ = 0;
};

std::vector<OwnedValue> Owned(const KeyRef& key) {
  std::vector<OwnedValue> value(1);
  value[0].tag = key.type == KeyRef::Type::kBlob ? Value::Tag::kBlob : Value::Tag::kText;
  value[0].bytes.assign(key.bytes());
  return value;
}

// One part: both inputs' walks, and the keys in both (each input's own bytes).
struct Part {
  PartWalk walks[2];
  std::vector<std::vector<OwnedValue>> common[2];
};

// Merges part `p` of the range `bounds` splits, with a cursor on each input.
template <Order kOrder>
void MergePart(KeyCursor& a, KeyCursor& b, const std::vector<Bound>& bounds, std::size_t p,
               Part& part) {
  const Bound* low = p > 0 ? &bounds[p - 1] : nullptr;
  const Bound* high = p < bounds.size() ? &bounds[p] : nullptr;
  Walk<kOrder> wa(a, 0, low, high, part.walks[0]);
  Walk<kOrder> wb(b, 1, low, high, part.walks[1]);
  bool in_a = wa.Refill();
  bool in_b = wb.Refill();
  while (in_a && in_b) {
    const KeyRef* const ka = wa.keys();
    const KeyRef* const kb = wb.keys();
    const uint64_t* const ha = wa.heads();
    const uint64_t* const hb = wb.heads();
    const std::size_t na = wa.size();
    const std::size_t nb = wb.size();
    std::size_t i = wa.at();
    std::size_t j = wb.at();
    while (i < na && j < nb) {
      const uint64_t x = ha[i];
      const uint64_t y = hb[j];
      if (x != y) [[likely]] {
        const bool less = x < y;
        i += less;
        j += !less;
        continue;
      }
      const int c = CompareKeys(kOrder, ka[i], kb[j]);
      if (c == 0) {
        part.common[0].push_back(Owned(ka[i]));
        part.common[1].push_back(Owned(kb[j]));
      }
      i += c <= 0;
      j += c >= 0;
    }
    wa.at() = i;
    wb.at() = j;
    if (i == na) in_a = wa.Refill();
    if (j == nb) in_b = wb.Refill();
  }
  while (in_a) in_a = wa.Refill();
  while (in_b) in_b = wb.Refill();
}

// MergePart for a key sorted under `order`.
void MergePartUnder(Order order, KeyCursor& a, KeyCursor& b, const std::vector<Bound>& bounds,
                    std::size_t p, Part& part) {
  switch (order) {
    case Order::kNocase:
      return MergePart<Order::kNocase>(a, b, bounds, p, part);
    case Order::kRtrim:
      return MergePart<Order::kRtrim>(a, b, bounds, p, part);
    default:
      return MergePart<Order::kBinary>(a, b, bounds, p, part);
  }
}

// The bounds of the parts `splits` make, in order, each once; none when one is not a text or a
// blob (a NULL or a number: the index is not what the merge needs, which its walks find).
std::vector<Bound> BoundsOf(std::span<const KeyRef> splits, Order order) {
  std::vector<Bound> bounds;
  for (const KeyRef& split : splits) {
    if (split.type != KeyRef::Type::kText && split.type != KeyRef::Type::kBlob) return {};
    bounds.push_back(Bound{std::string(split.bytes()), split.type});
  }
  const auto less = [&](const Bound& x, const Bound& y) {
    return CompareKeys(order, x.key(), y.key()) < 0;
  };
  std::sort(bounds.begin(), bounds.end(), less);
  bounds.erase(std::unique(bounds.begin(), bounds.end(),
                           [&](const Bound& x, const Bound& y) { return !less(x, y); }),
               bounds.end());
  return bounds;
}

// Each part's walks on one input begin where the part before stopped, the last at the end.
bool Contiguous(const std::vector<Part>& parts, int side) {
  for (std::size_t p = 1; p < parts.size(); ++p) {
    if (parts[p].walks[side].start != parts[p - 1].walks[side].stop) return false;
  }
  return parts.back().walks[side].stop == KeyCursor::kEnd;
}

// Merges every part on two threads, each taking the next part not taken; rethrows A's error,
// else B's; false when a part gave up.
bool MergeAll(const KeyCursors& make_a, const KeyCursors& make_b, Order order,
              const std::vector<Bound>& bounds, std::vector<Part>& parts) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr errors[2];
  std::exception_ptr other;  // neither input's (memory)
  std::atomic<bool> untrusted{false};
  std::exception_ptr thread_errors[2][2];
  std::exception_ptr thread_other[2];
  const auto run = [&](int t) {
    try {
      std::unique_ptr<KeyCursor> a;
      std::unique_ptr<KeyCursor> b;
      try {
        a = make_a();
      } catch (...) {
        throw SideFailed{0, std::current_exception()};
      }
      try {
        b = make_b();
      } catch (...) {
        throw SideFailed{1, std::current_exception()};
      }
      for (std::size_t p = next++; p < parts.size() && !stop.load(); p = next++) {
        MergePartUnder(order, *a, *b, bounds, p, parts[p]);
      }
    } catch (const Untrusted&) {
      untrusted.store(true);
      stop.store(true);
    } catch (const SideFailed& failed) {
      thread_errors[t][failed.side] = failed.error;
      stop.store(true);
    } catch (...) {
      thread_other[t] = std::current_exception();
      stop.store(true);
    }
  };
  std::thread helper(run, 1);
  run(0);
  helper.join();
  for (int t = 0; t < 2; ++t) {
    for (int side = 0; side < 2; ++side) {
      if (!errors[side]) errors[side] = thread_errors[t][side];
    }
    if (!other) other = thread_other[t];
  }
  if (errors[0]) std::rethrow_exception(errors[0]);
  if (errors[1]) std::rethrow_exception(errors[1]);
  if (other) std::rethrow_exception(other);
  return !untrusted.load() && Contiguous(parts, 0) && Contiguous(parts, 1);
}

}  // namespace

InParts MergeInParts(Source& a, Source& b, const std::string& table, Order order,
                     std::span<const KeyRef> splits, KeyState& ka, KeyState& kb,
                     uint64_t (&records)[2]) {
  const std::vector<Bound> bounds = BoundsOf(splits, order);
  std::vector<Part> parts(bounds.size() + 1);
  bool cursors = false;
  bool trusted = false;
  a.WithKeyCursors(table, ka.names[0], ka.collation_names[0], [&](const KeyCursors& make_a) {
    b.WithKeyCursors(table, kb.names[0], kb.collation_names[0], [&](const KeyCursors& make_b) {
      cursors = true;
      trusted = MergeAll(make_a, make_b, order, bounds, parts);
    });
  });
  if (!cursors) return InParts::kCannot;
  if (!trusted) return InParts::kUntrusted;
  KeyState::Merged merged[2];
  for (int side = 0; side < 2; ++side) {
    records[side] = 0;
    for (Part& part : parts) {
      const PartWalk& walk = part.walks[side];
      records[side] += walk.records;
      merged[side].rows += walk.rows;
      merged[side].repeats += walk.repeats;
      for (auto& value : part.common[side]) merged[side].common.push_back(std::move(value));
    }
  }
  ka.merged = std::move(merged[0]);
  kb.merged = std::move(merged[1]);
  return InParts::kMerged;
}

}  // namespace steadyflake::mergecheck
