// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge in index order. Each input's index is read (Source::ReadInIndexOrder) by a Stream
// (tuple_stream.h), which checks that each tuple of the key follows the one before it and gives
// the tuples in batches of kBatch: A's on the calling thread, B's on a thread of its own. The
// key range is split into parts at tuples of A's index (interior cells near its root spread
// evenly, Source::SplitsInIndexOrder), which the two threads merge in turn (Side): each merges
// its own input's batches of a part against the other's, handed over a Channel, as a merge
// sort's merge step does, comparing column by column as the indexes sort: integers by value,
// text under its collation, text before blobs. So the two inputs are decoded and checked at once
// on the two threads, each merges about half, the merge costs a few integer or string
// comparisons per tuple, and nothing is held but the tuples in both and the batches one thread
// is ahead of the other (at most OrderedMergeLimits: about a part). (A third thread for A's index,
// its batches handed over too, was 5-19% slower on two cores: a batch written on one core and read
// on another costs its reader more than the copy did.)
//
// Trust: the merge is only right if both streams really are sorted as CompareTuples sorts, and
// if it calls two tuples equal exactly when KeyOf gives them one key. So every tuple is checked
// against the one before it on its side; a stream out of that order (a collation whose order is
// not the one assumed, a damaged index) or one holding a value the merge does not order (a text
// or a real in an integer column, a number in a text column: SQLite sorts those among the
// others by type first) abandons the merge, on both threads, and the key is hashed and sorted as
// any other (Collector::Undefer). A tuple with a NULL is skipped: KeyOf gives it no key either,
// and dropping tuples from a sorted stream leaves it sorted; so is a tuple equal to the one
// before (a key set holds each value once too). A wrong "no overlap" never comes of it. The
// splits are a hint: any tuples split the range into parts each merged whole (a tuple's part is
// the first split above it, whatever order the splits come in), so splits read from a damaged
// page, or from an index changed since, cost balance, never an answer.

#include "check/ordered_merge.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <exception>
#include <functional>
#include <iterator>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "check/merge_in_parts.h"
#include "check/ordered_tuples.h"
#include "check/tuple_stream.h"

namespace steadyflake::mergecheck {

namespace {

using ordered_merge_internal::Abandon;
using ordered_merge_internal::AllIntegers;
using ordered_merge_internal::AppendField;
using ordered_merge_internal::Batch;
using ordered_merge_internal::BytesHeld;
using ordered_merge_internal::BytesOf;
using ordered_merge_internal::Channel;
using ordered_merge_internal::CompareIntegerTuples;
using ordered_merge_internal::CompareText;
using ordered_merge_internal::CompareTuples;
using ordered_merge_internal::Field;
using ordered_merge_internal::kBatch;
using ordered_merge_internal::kBatchBytes;
using ordered_merge_internal::kBlobBit;
using ordered_merge_internal::Order;
using ordered_merge_internal::OrdersOf;
using ordered_merge_internal::OwnTuple;
using ordered_merge_internal::Stream;
using ordered_merge_internal::TakeSpare;
using ordered_merge_internal::TextField;
using ordered_merge_internal::TextOrder;
using ordered_merge_internal::TupleRef;

// OrderedMergeLimits of the merges from now on (SetOrderedMergeLimits).
std::atomic<std::size_t> handed_limit{OrderedMergeLimits{}.handed};
std::atomic<std::size_t> kept_limit{OrderedMergeLimits{}.kept};

// Splits of a merge's key range at most (Source::SplitsInIndexOrder): enough parts that each
// is a small share of the work, so that the thread behind need keep little to catch up.
constexpr std::size_t kMostSplits = 31;

// The splits of a merge's key range from A's index (Source::SplitsInIndexOrder), one tuple after
// another in a batch; none (an empty batch) when any holds a value of a type the merge does not
// order in its column: A's thread then merges it all.
Batch SplitsOf(Source& a, const std::string& table, const KeyState& key,
               std::span<const Order> orders) {
  Batch splits;
  bool usable = true;
  a.SplitsInIndexOrder(table, key.names, key.collation_names, kMostSplits,
                       [&](std::span<const Cell> record) {
                         usable = usable && record.size() == orders.size();
                         for (std::size_t i = 0; usable && i < record.size(); ++i) {
                           usable = AppendField(orders[i], record[i], splits);
                         }
                       });
  return usable ? std::move(splits) : Batch{};
}

// One input's side of a merge whose key range is split into parts at tuples of A's index (the
// splits: part p holds the tuples from split p - 1 on, below split p): its thread reads the
// input's index (a Stream) and merges the parts it owns (A's side the even ones, B's the odd
// ones) against the other input's tuples of those parts, which the other thread hands it over
// `in`; it hands its own tuples of the other parts over `out`. So each thread reads one input
// and merges about half the tuples, and the work, all on A's thread before (its walk and the
// whole merge: 62% of a check's samples, B's 35%), is shared. With no split, A's side merges it
// all and B's hands it all over.
class alignas(64) Side {
 public:
  // `side`: 0 for A's, 1 for B's. `kept`: what Own keeps, at most, of this input's tuples not
  // yet merged.
  Side(std::span<const Order> orders, const Batch& splits, uint32_t side, Channel& in, Channel& out,
       std::size_t kept)
      : orders_(orders),
        integers_(AllIntegers(orders)),
        width_(orders.size()),
        splits_(splits),
        last_part_(static_cast<uint32_t>(splits.fields.size() / orders.size())),
        side_(side),
        in_(in),
        out_(out),
        kept_(kept),
        stream_(orders, [this](std::span<const Field> fields, const char* bytes, Batch* whole) {
          OnBatch(fields, bytes, whole);
        }) {}

  // Reads `key` of `table` from `source` and merges; then ends both channels: a side that
  // failed stops them, so that the other side's waits end too.
  void Run(Source& source, const std::string& table, const KeyState& key) {
    stream_.Read(source, table, key);
    bool finished = false;
    if (stream_.complete()) {
      try {
        while (part_ < last_part_) Leave();
        Leave();  // the last part: the rest of both channels' business
        out_.Close();
        finished = true;
      } catch (const Abandon&) {
        // The other side failed.
      } catch (...) {
        error_ = std::current_exception();
      }
    }
    if (!finished) {
      in_.Stop();
      out_.Stop();
    }
    failed_ = !finished;
  }

  const Stream& stream() const { return stream_; }
  bool failed() const { return failed_; }
  // After Run: rethrows what the read or the merge threw, but Abandon.
  void RethrowError() const {
    stream_.RethrowError();
    if (error_) std::rethrow_exception(error_);
  }
  // The tuples in both of this side's parts of the range: this input's and the other's, and the
  // part of each.
  std::vector<std::vector<OwnedValue>>& mine() { return mine_; }
  std::vector<std::vector<OwnedValue>>& theirs() { return theirs_; }
  const std::vector<uint32_t>& parts() const { return parts_; }

 private:
  bool Owns(uint32_t part) const { return part % 2 == side_; }

  // The stream's batch, cut where a part ends (the tuples come in order), each run of one part
  // merged or handed over.
  void OnBatch(std::span<const Field> fields, const char* bytes, Batch* whole) {
    const std::size_t tuples = fields.size() / width_;
    std::size_t from = 0;
    while (from < tuples) {
      std::size_t to = tuples;  // the end of part_ in this batch
      if (part_ < last_part_ && Compare(fields.data() + (tuples - 1) * width_, bytes) >= 0) {
        // The first tuple from the split on, by binary search (std::ranges' iota_view does not
        // build with clang and GCC 12's library, the fuzz build's).
        std::size_t low = from;
        while (low < to) {
          const std::size_t mid = low + (to - low) / 2;
          if (Compare(fields.data() + mid * width_, bytes) < 0) {
            low = mid + 1;
          } else {
            to = mid;
          }
        }
      }
      if (to > from) {
        const std::span<const Field> run = fields.subspan(from * width_, (to - from) * width_);
        Batch* const all = from == 0 && to == tuples ? whole : nullptr;
        if (Owns(part_)) {
          Own(run, bytes, all);
        } else {
          Put(run, bytes, all);
        }
      }
      from = to;
      if (from < tuples) Leave();
    }
  }

  // Leaves part_ for the next: a part this side merges once the other's tuples of it are all
  // taken (those after this input's last are in this input no more); a part it hands over once
  // what is left of it was handed. Then tells the other this side is past it.
  void Leave() {
    if (Owns(part_)) {
      MergeOwned(true);
      in_.Drain(part_);
      need_other_ = true;
      other_done_ = false;
    } else {
      Flush();
    }
    out_.Pass(++part_);
  }

  // <0, 0, >0: the tuple at `fields` against the split that ends part_.
  int Compare(const Field* fields, const char* bytes) const {
    const Field* split = splits_.fields.data() + part_ * width_;
    return integers_ ? CompareIntegerTuples(width_, fields, split)
                     : CompareTuples(orders_, TupleRef{fields, bytes},
                                     TupleRef{split, splits_.bytes.data()});
  }

  // This input's tuples `fields` of a part this side owns: merged against the other's as far as
  // those are there, the rest kept (own_) to merge later, when they are. So neither thread waits
  // for the other while it has a page to read: the one merging is behind, and the other reads on
  // (a merge that waited for each of the other's tuples made both threads take turns, and a
  // check no faster than one thread's walk and the whole merge). At most kept_ bytes are kept:
  // beyond, the merge waits for the other's tuples.
  void Own(std::span<const Field> fields, const char* bytes, Batch* whole) {
    if (other_done_) return;  // the other's tuples are all taken: these are in this input only
    MergeOwned(false);
    const std::size_t at = own_.empty() ? MergeSome(fields, bytes, 0, false) : 0;
    if (at == fields.size() || other_done_) return;
    if (at == 0 && whole != nullptr) {
      own_.push_back(std::exchange(*whole, SpareOwn()));
    } else {
      own_.push_back(SpareOwn());
      Copy(fields.subspan(at), bytes, own_.back());
    }
    own_bytes_ += BytesHeld(own_.back());
    if (own_bytes_ > kept_) MergeOwned(true);
  }

  // Merges the tuples kept (own_), as far as the other's are there (all, when `wait`).
  void MergeOwned(bool wait) {
    while (!own_.empty()) {
      Batch& front = own_.front();
      own_at_ = MergeSome(front.fields, front.bytes.data(), own_at_, wait);
      if (own_at_ < front.fields.size()) return;  // the other's are not there yet
      own_bytes_ -= BytesHeld(front);
      own_spare_.push_back(std::move(front));
      own_.pop_front();
      own_at_ = 0;
    }
  }

  // Merges this input's tuples `fields` from value `at` on against the other's from `in`, as a
  // merge sort's merge step does (the other's below each of these are in this input no more),
  // as far as the other's are there (all, when `wait`); returns where it stopped.
  std::size_t MergeSome(std::span<const Field> fields, const char* bytes, std::size_t at,
                        bool wait) {
    if (other_done_) return fields.size();  // the other's are all taken: these are only here
    for (; at < fields.size(); at += width_) {
      const TupleRef x{fields.data() + at, bytes};
      int c = 0;
      for (;;) {
        if (need_other_) {
          const Channel::Took took = in_.Take(other_, wait, part_);
          if (took == Channel::Took::kNotYet) return at;
          need_other_ = false;
          if (took == Channel::Took::kEnd) {
            other_done_ = true;
            return fields.size();
          }
        }
        c = integers_ ? CompareIntegerTuples(width_, x.fields, other_.fields)
                      : CompareTuples(orders_, x, other_);
        if (c <= 0) break;
        need_other_ = true;
      }
      if (c == 0) {
        mine_.push_back(OwnTuple(orders_, x));
        theirs_.push_back(OwnTuple(orders_, other_));
        parts_.push_back(part_);
        need_other_ = true;
      }
    }
    return at;
  }

  Batch SpareOwn() { return TakeSpare(own_spare_, width_); }

  // Appends the tuples `fields` (their text in `bytes`) to `batch`.
  void Copy(std::span<const Field> fields, const char* bytes, Batch& batch) const {
    if (integers_) {
      batch.fields.insert(batch.fields.end(), fields.begin(), fields.end());
      return;
    }
    for (std::size_t at = 0; at < fields.size(); ++at) {
      const Field f = fields[at];
      if (orders_[at % width_] == Order::kInteger) {
        batch.fields.push_back(f);
        continue;
      }
      const std::string_view text = BytesOf(f, bytes);
      batch.fields.push_back(TextField(batch.bytes.size(), text.size(), (f & kBlobBit) != 0));
      batch.bytes.append(text);
    }
  }

  // Hands the tuples `fields` to the other side: `whole` itself when given and nothing is
  // waiting before it, else copied into batches of the channel's.
  void Put(std::span<const Field> fields, const char* bytes, Batch* whole) {
    if (whole != nullptr && outbox_.fields.empty()) {
      whole->part = part_;
      out_.Hand(std::exchange(*whole, out_.Spare()));
      return;
    }
    if (outbox_.fields.capacity() == 0) outbox_ = out_.Spare();
    const std::size_t full = kBatch * width_;
    while (!fields.empty()) {  // as many tuples at a time as the batch has room for
      const std::size_t n = std::min(fields.size(), full - std::min(full, outbox_.fields.size()));
      Copy(fields.first(n), bytes, outbox_);
      fields = fields.subspan(n);
      if (outbox_.fields.size() >= full || outbox_.bytes.size() >= kBatchBytes) {
        outbox_.part = part_;
        out_.Hand(std::exchange(outbox_, out_.Spare()));
      }
    }
  }
  // Hands what Put copied and has not handed yet.
  void Flush() {
    if (outbox_.fields.empty()) return;
    outbox_.part = part_;
    out_.Hand(std::exchange(outbox_, Batch{}));
  }

  const std::span<const Order> orders_;
  const bool integers_;
  const std::size_t width_;
  const Batch& splits_;
  const uint32_t last_part_;  // the number of splits
  const uint32_t side_;
  Channel& in_;
  Channel& out_;
  const std::size_t kept_;
  uint32_t part_ = 0;        // the part of the tuples given last
  bool need_other_ = true;   // other_ was compared: take the next before comparing again
  bool other_done_ = false;  // the other's tuples of this side's part are all taken
  bool failed_ = false;
  std::exception_ptr error_;
  TupleRef other_;
  std::deque<Batch> own_;         // this input's tuples not yet merged (Own)
  std::size_t own_at_ = 0;        // the first value of own_.front() not yet merged
  std::size_t own_bytes_ = 0;     // held in own_
  std::vector<Batch> own_spare_;  // own_'s batches merged, to fill again
  Batch outbox_;                  // tuples Put copied, not yet handed
  std::vector<std::vector<OwnedValue>> mine_;
  std::vector<std::vector<OwnedValue>> theirs_;
  std::vector<uint32_t> parts_;  // the part of each of mine_ (and theirs_)
  Stream stream_;                // last: it calls OnBatch, which uses the members above
  // Nothing of the next object on this line (padding only: never read).
  [[maybe_unused]] alignas(64) char end_[1] = {};
};

// Merges key `ka` / `kb` of `table` from both inputs, their columns ordered as `orders`; false,
// filling nothing, when the merge cannot be trusted (see the top of the file). Else `records`
// holds each index's records. A's index is read on the calling thread, B's on a thread of its
// own; the key range is split into parts at tuples of A's index, each merged by one side (Side).
bool MergeKey(Source& a, Source& b, const std::string& table, std::span<const Order> orders,
              KeyState& ka, KeyState& kb, uint64_t (&records)[2]) {
  const Batch splits = SplitsOf(a, table, ka, orders);
  if (orders.size() == 1 && orders[0] != Order::kInteger) {  // merge_in_parts.h, when it can
    std::vector<KeyRef> bounds;
    for (const Field f : splits.fields) {
      const std::string_view bytes = BytesOf(f, splits.bytes.data());
      bounds.push_back(KeyRef{bytes.data(), static_cast<uint32_t>(bytes.size()),
                              (f & kBlobBit) != 0 ? KeyRef::Type::kBlob : KeyRef::Type::kText});
    }
    const InParts merged = MergeInParts(a, b, table, orders[0], bounds, ka, kb, records);
    if (merged != InParts::kCannot) return merged == InParts::kMerged;
  }
  const OrderedMergeLimits limits{handed_limit.load(), kept_limit.load()};
  Channel to_a(orders.size(), limits.handed);  // B's tuples of the parts A's side merges
  Channel to_b(orders.size(), limits.handed);  // A's tuples of the parts B's side merges
  Side side_a(orders, splits, 0, to_a, to_b, limits.kept);
  Side side_b(orders, splits, 1, to_b, to_a, limits.kept);
  std::thread thread_b([&] { side_b.Run(b, table, kb); });
  side_a.Run(a, table, ka);
  thread_b.join();
  side_a.RethrowError();
  side_b.RethrowError();
  if (side_a.failed() || side_b.failed()) return false;
  // The tuples in both, in key order: the two sides' parts taken in turn.
  KeyState::Merged in_a;
  KeyState::Merged in_b;
  const std::vector<uint32_t>& parts_a = side_a.parts();
  const std::vector<uint32_t>& parts_b = side_b.parts();
  for (std::size_t i = 0, j = 0; i < parts_a.size() || j < parts_b.size();) {
    if (j == parts_b.size() || (i < parts_a.size() && parts_a[i] < parts_b[j])) {
      in_a.common.push_back(std::move(side_a.mine()[i]));
      in_b.common.push_back(std::move(side_a.theirs()[i++]));
    } else {
      in_a.common.push_back(std::move(side_b.theirs()[j]));
      in_b.common.push_back(std::move(side_b.mine()[j++]));
    }
  }
  in_a.rows = side_a.stream().rows();
  in_b.rows = side_b.stream().rows();
  in_a.repeats = side_a.stream().repeats();
  in_b.repeats = side_b.stream().repeats();
  ka.merged = std::move(in_a);
  kb.merged = std::move(in_b);
  records[0] = side_a.stream().records();
  records[1] = side_b.stream().records();
  return true;
}

using KeyList = std::vector<std::pair<std::string, std::vector<std::string>>>;

// Adds to `back` the deferred keys of `collector`'s tables that no scan read and no merge
// counted (their partner is missing: drift), so that reading them counts the rows.
void CountByReading(const Collector& collector, KeyList& back) {
  for (const TableState& t : collector.tables()) {
    if (!t.uncounted) continue;
    if (std::any_of(t.keys.begin(), t.keys.end(),
                    [](const KeyState& k) { return k.merged.has_value(); })) {
      continue;
    }
    for (const KeyState& k : t.keys) {
      if (k.deferred) back.emplace_back(t.table.name, k.lower);
    }
  }
}

}  // namespace

OrderedMergeLimits SetOrderedMergeLimits(const OrderedMergeLimits& limits) {
  return OrderedMergeLimits{handed_limit.exchange(limits.handed), kept_limit.exchange(limits.kept)};
}

int CompareInIndexOrder(std::string_view name, std::string_view a, std::string_view b) {
  return CompareText(TextOrder(name), a, b);
}

void MergeInIndexOrder(Source& a, Collector& ca, Source& b, Collector& cb, const Layout& layout,
                       int64_t cutoff_ms) {
  KeyList back_a;
  KeyList back_b;
  std::vector<std::pair<std::string, uint64_t>> rows_a;  // the merged tables' records
  std::vector<std::pair<std::string, uint64_t>> rows_b;
  for (const TableState& ta : ca.tables()) {
    if (!ta.selected) continue;
    for (const KeyState& key : ta.keys) {
      if (!key.deferred) continue;
      const std::string& table = ta.table.name;
      KeyState* ka = ca.FindKey(table, key.lower);
      KeyState* kb = cb.FindKey(table, key.lower);
      if (kb == nullptr) continue;  // drift: B has no such key, nothing to compare
      const std::vector<Order> orders = OrdersOf(*ka);
      uint64_t records[2] = {0, 0};
      if (kb->deferred && OrdersOf(*kb) == orders &&
          MergeKey(a, b, table, orders, *ka, *kb, records)) {
        rows_a.emplace_back(table, records[0]);
        rows_b.emplace_back(table, records[1]);
        continue;
      }
      back_a.emplace_back(table, key.lower);
      if (kb->deferred) back_b.emplace_back(table, key.lower);
    }
  }
  // B's deferred keys whose partner in A is an ordinary one.
  for (const TableState& tb : cb.tables()) {
    for (const KeyState& kb : tb.keys) {
      const KeyState* ka = ca.FindKey(tb.table.name, kb.lower);
      if (kb.deferred && ka != nullptr && !ka->deferred && !kb.merged) {
        back_b.emplace_back(tb.table.name, kb.lower);
      }
    }
  }
  CountByReading(ca, back_a);
  CountByReading(cb, back_b);
  if (!back_a.empty()) ca.Undefer(back_a, layout, cutoff_ms);
  if (!back_b.empty()) cb.Undefer(back_b, layout, cutoff_ms);
  // A table no scan read has the rows its index has (a no-op where a reread counted them).
  for (const auto& [table, records] : rows_a) ca.CountRows(table, records);
  for (const auto& [table, records] : rows_b) cb.CountRows(table, records);
}

}  // namespace steadyflake::mergecheck
