// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// The two halves of the merge in index order (ordered_merge.cpp): a Stream reads one input's
// index on the calling thread (Source::ReadInIndexOrder), checks that each tuple of the key
// follows the one before it and gives the tuples in batches; a Channel carries batches from
// one thread to the other, where they are taken a tuple at a time.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_TUPLE_STREAM_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_TUPLE_STREAM_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "check/collect.h"
#include "check/ordered_tuples.h"
#include "source/source.h"

namespace steadyflake::mergecheck::ordered_merge_internal {

// Thrown to end a read early: the merge has what it needs, or will not use the stream (the
// other side failed, or a tuple was out of order).
struct Abandon {};

// One input's index read on the calling thread, its tuples checked in order and given in
// batches, each distinct tuple once, to an OnBatch.
class Stream {
 public:
  // What the stream does with each batch of tuples, in order: `fields` (width fields a tuple),
  // their text in `bytes`. `whole`, when not null, is the batch that holds them, which the call
  // may take (leaving another empty one in its place, say from Channel::Spare); else the tuples
  // lie in memory of the reader's (a run of integer records, read where it lies) and are gone
  // after the call. May throw Abandon to end the read.
  using OnBatch =
      std::function<void(std::span<const Field> fields, const char* bytes, Batch* whole)>;

  // Each batch given to `on_batch` once it is full (and the tuple after its last was checked
  // against that last), then filled again.
  Stream(std::span<const Order> orders, OnBatch on_batch);
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Reads `key` of `table` from `source` to its end (or until on_batch throws Abandon): the
  // last batch is given even when empty.
  void Read(Source& source, const std::string& table, const KeyState& key);

  void RethrowError() const {
    if (error_) std::rethrow_exception(error_);
  }
  // After Read: whether it was the whole index, in order, every value one the merge orders,
  // and nothing threw (its OnBatch included).
  bool complete() const { return read_ && !refused_ && !error_; }
  // After Read: the index's records, NULLs and all (the table's rows), and those with no NULL
  // (the key's rows).
  uint64_t records() const { return records_; }
  uint64_t rows() const { return rows_; }
  // After Read: the key's rows whose tuple equals the one before (0: unique).
  uint64_t repeats() const { return repeats_; }

 private:
  void Append(std::span<const Cell> record);
  void AppendText(const Cell& cell);
  template <std::size_t kWidth>
  void AppendIntegers(std::span<const Cell> record);
  void AppendIntegerRun(std::span<const int64_t> values);
  template <std::size_t kWidth>
  void AppendRun(std::span<const int64_t> values);
  void AppendTuples(const int64_t* values, std::size_t count);
  template <std::size_t kWidth, typename Value>
  void AppendIntegerTuple(const Value& value);
  // Gives `batch` to on_batch_, then keeps it (or what on_batch_ left in its place) to fill
  // again.
  void Hand(Batch batch);
  Batch Spare();
  [[noreturn]] void Refuse();

  const std::span<const Order> orders_;
  const bool integers_;  // every column an integer one: AppendIntegers
  const std::size_t width_;
  // AppendIntegers' tuple appended last (width_ values), in last_store_ from its first 64-byte
  // boundary on.
  std::vector<int64_t> last_store_;
  int64_t* last_ = nullptr;
  bool any_last_ = false;
  const OnBatch on_batch_;
  std::vector<Batch> spare_;  // batches given, to fill again
  bool read_ = false;
  bool refused_ = false;
  uint64_t records_ = 0;
  uint64_t rows_ = 0;
  uint64_t repeats_ = 0;
  std::exception_ptr error_;
  // The batch being filled, and the full one before it, held back until the tuple after its
  // last was checked against that last.
  Batch filling_;
  std::optional<Batch> full_;
};

// Batches handed from one thread (the giver: Hand, Spare, Pass, Close) to another (the taker:
// Take, Drain), at most `depth` bytes of them queued; either may Stop it. Each batch holds tuples
// of one part of the key range (Batch::part), handed in order of part; the taker takes one part
// at a time, which ends where a batch of a later part is queued or the giver passed it. What one
// thread writes lies on cache lines the other does not write: a line two cores write in turn
// passes between them at each write, and the taker writes at_ for every tuple.
class Channel {
 public:
  // `depth`: the bytes of tuples the giver may be ahead of the taker (a batch at least).
  Channel(std::size_t width, std::size_t depth) : width_(width), depth_(depth) {}
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Giver: queues `batch`, waiting while `depth` bytes are queued. Throws Abandon once stopped.
  void Hand(Batch batch);
  // Giver: an empty batch to fill: one the taker is done with, else a new one.
  Batch Spare();
  // Giver: every tuple of the parts before `part` was handed.
  void Pass(uint32_t part);
  // Giver: nothing more will be handed (every part passed).
  void Close() { Pass(UINT32_MAX); }

  // Taker: what Take found.
  enum class Took { kTuple, kEnd, kNotYet };
  // Taker: the next tuple of part `part`, valid until the next call (kTuple); kEnd at the end of
  // the part (passed, all its tuples taken); kNotYet when none is queued yet and `wait` is false
  // (else it waits for one). Throws Abandon once stopped. REQUIRES: the parts before `part` were
  // taken to their end.
  Took Take(TupleRef& tuple, bool wait, uint32_t part) {
    if (at_ == current_.fields.size()) {
      const Took took = Refill(wait, part);
      if (took != Took::kTuple) return took;
    }
    tuple.fields = current_.fields.data() + at_;
    tuple.bytes = current_.bytes.data();
    at_ += width_;
    return Took::kTuple;
  }
  // Taker: takes every tuple left of part `part`, to its end. Throws Abandon once stopped.
  void Drain(uint32_t part);

  // Either: the channel is given up (the other side failed): every wait ends in Abandon.
  void Stop();

 private:
  // Takes the next batch that holds a tuple as current_ (kTuple). Out of Take, which the merge
  // calls for every tuple and which is then small enough to inline.
  Took Refill(bool wait, uint32_t part);

  const std::size_t width_;
  const std::size_t depth_;
  alignas(64) std::mutex mu_;
  std::condition_variable ready_;  // a batch was queued, or closed or stopped
  std::condition_variable room_;   // a batch was taken, or stopped
  std::deque<Batch> queue_;        // guarded by mu_
  std::size_t queued_bytes_ = 0;   // guarded by mu_: in queue_ (fields and text)
  std::vector<Batch> spare_;       // guarded by mu_: batches taken, for the giver to fill again
  uint32_t passed_ = 0;            // guarded by mu_: the parts before it were all handed
  bool stopped_ = false;           // guarded by mu_
  // The taker's (its thread only).
  alignas(64) Batch current_;
  std::size_t at_ = 0;
  // Nothing of the next object on this line (padding only: never read).
  [[maybe_unused]] alignas(64) char end_[1] = {};
};

}  // namespace steadyflake::mergecheck::ordered_merge_internal

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_TUPLE_STREAM_H_
