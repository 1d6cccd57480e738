// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge in index order. Each input's index is read (Source::ReadInIndexOrder) by a Stream,
// which checks that each tuple of the key follows the one before it and copies the tuples into
// batches of kBatch: B's on a thread of its own, handed over a queue at most kDepth batches
// deep; A's on the calling thread, which merges each of A's batches as it is full against B's
// stream, as a merge sort's merge step does, comparing column by column as the indexes sort:
// integers by value, text under its collation, text before blobs. So the two inputs are decoded
// and checked at once on the two threads, the merge costs a few integer or string comparisons
// per tuple, and nothing is held but a few batches and the tuples in both. (A third thread for
// A's index, its batches handed over too, was 5-19% slower on two cores: a batch written on one
// core and read on another costs its reader more than the copy did.)
//
// Trust: the merge is only right if both streams really are sorted as CompareTuples sorts, and
// if it calls two tuples equal exactly when KeyOf gives them one key. So every tuple is checked
// against the one before it on its side; a stream out of that order (a collation whose order is
// not the one assumed, a damaged index) or one holding a value the merge does not order (a text
// or a real in an integer column, a number in a text column: SQLite sorts those among the
// others by type first) abandons the merge, and the key is hashed and sorted as any other
// (Collector::Undefer). A tuple with a NULL is skipped: KeyOf gives it no key either, and
// dropping tuples from a sorted stream leaves it sorted; so is a tuple equal to the one before
// (a key set holds each value once too). A wrong "no overlap" never comes of it.

#include "check/ordered_merge.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "check/ordered_tuples.h"

namespace steadyflake::mergecheck {

namespace {

using ordered_merge_internal::AllIntegers;
using ordered_merge_internal::Batch;
using ordered_merge_internal::BytesOf;
using ordered_merge_internal::CompareBytes;
using ordered_merge_internal::CompareIntegerTuples;
using ordered_merge_internal::CompareText;
using ordered_merge_internal::CompareTuples;
using ordered_merge_internal::EmptyBatch;
using ordered_merge_internal::Field;
using ordered_merge_internal::kBatch;
using ordered_merge_internal::kBatchBytes;
using ordered_merge_internal::kBlobBit;
using ordered_merge_internal::OnLines;
using ordered_merge_internal::Order;
using ordered_merge_internal::OrdersOf;
using ordered_merge_internal::OwnTuple;
using ordered_merge_internal::TextField;
using ordered_merge_internal::TextOrder;
using ordered_merge_internal::TupleRef;

constexpr std::size_t kDepth = 4;  // batches a reader may be ahead of the merge

// Thrown from the reader's callback to end a read early.
struct Abandon {};

// One input's index read, its tuples checked in order and handed over in batches, each distinct
// tuple once: on a thread of its own, to the caller's Next, or on the caller's thread
// (ReadHere), to an OnBatch.
class Stream {
 public:
  // What a stream read on the calling thread does with each batch (ReadHere): fields, bytes.
  using OnBatch = std::function<void(std::span<const Field> fields, const char* bytes)>;

  // A stream read on a thread of its own, whose tuples the caller takes with Next.
  Stream(Source& source, const std::string& table, const KeyState& key,
         std::span<const Order> orders)
      : Stream(orders, nullptr) {
    thread_ = std::thread([this, &source, table, &key] { Read(source, table, key); });
  }
  // A stream read on the calling thread by ReadHere, each batch given to `on_batch` as it is
  // full (and the tuple after its last was checked against that last), then filled again.
  Stream(std::span<const Order> orders, OnBatch on_batch)
      : orders_(orders),
        integers_(AllIntegers(orders)),
        width_(orders.size()),
        last_store_(width_ + 16),
        last_(OnLines(last_store_, width_)),
        on_batch_(std::move(on_batch)),
        filling_(EmptyBatch(orders.size())) {}
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { Finish(); }

  // The next tuple, valid until the next call; false at the end of the stream.
  bool Next(TupleRef& tuple) {
    if (at_ == current_.fields.size() && !Refill()) return false;
    tuple.fields = current_.fields.data() + at_;
    tuple.bytes = current_.bytes.data();
    at_ += orders_.size();
    return true;
  }

  // Takes the next batch that holds a tuple as current_; false at the end of the stream. Out
  // of Next, which the merge calls for every tuple and which is then small enough to inline.
  bool Refill() {
    while (at_ == current_.fields.size()) {
      std::unique_lock lock(mu_);
      ready_.wait(lock, [&] { return !queue_.empty() || done_; });
      if (queue_.empty()) return false;
      // The batch merged last goes back to the reader, its memory with it: a batch allocated
      // afresh each time faulted its pages in again once malloc had returned them.
      if (current_.fields.capacity() != 0) spare_.push_back(std::move(current_));
      current_ = std::move(queue_.front());
      queue_.pop_front();
      at_ = 0;
      room_.notify_one();
    }
    return true;
  }

  // Reads the index on the calling thread: a stream made with an OnBatch.
  void ReadHere(Source& source, const std::string& table, const KeyState& key) {
    Read(source, table, key);
  }

  // Stops the reader (if it is still reading) and waits for it; then rethrows its error.
  void Finish() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    room_.notify_one();
    if (thread_.joinable()) thread_.join();
  }
  void RethrowError() const {
    if (error_) std::rethrow_exception(error_);
  }
  // After the stream ended: whether it was the whole index, in order, every value one the merge
  // orders, and nothing threw (its OnBatch included).
  bool complete() const { return read_ && !refused_ && !error_; }
  // After the stream ended: the index's records, NULLs and all (the table's rows), and those
  // with no NULL (the key's rows).
  uint64_t records() const { return records_; }
  uint64_t rows() const { return rows_; }
  // After the stream ended: the key's rows whose tuple equals the one before (0: unique).
  uint64_t repeats() const { return repeats_; }

 private:
  void Read(Source& source, const std::string& table, const KeyState& key) {
    try {
      IntegersInOrder on_integers;
      if (integers_) {
        on_integers = [&](std::span<const int64_t> values) { AppendIntegerRun(values); };
      }
      read_ = source.ReadInIndexOrder(
          table, key.names, key.collation_names,
          [&](std::span<const Cell> record) {
            ++records_;
            Append(record);
          },
          on_integers);
      if (full_.has_value() && !Hand(std::move(*full_))) throw Abandon{};
      Hand(std::move(filling_));
    } catch (const Abandon&) {
      // The merge has what it needs, or will not use this stream.
    } catch (...) {
      error_ = std::current_exception();
    }
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    ready_.notify_one();
  }

  // Appends the tuple `record` to the batch being filled, unless it holds a NULL (never in
  // both) or equals the tuple before it; hands a full batch over once the tuple after its last
  // was checked against it (AppendIntegers, keeping a copy of that last, at once). Throws
  // Abandon on a value the merge does not order or a tuple out of order.
  void Append(std::span<const Cell> record) {
    if (integers_) {
      switch (width_) {
        case 1:
          return AppendIntegers<1>(record);
        case 2:
          return AppendIntegers<2>(record);
        default:
          return AppendIntegers<0>(record);
      }
    }
    if (record.size() != orders_.size()) Refuse();
    if (record.size() == 1) return AppendText(record[0]);  // not an integer: a text column
    for (const Cell& cell : record) {
      if (cell.type == Cell::Type::kNull) return;
    }
    ++rows_;
    Batch& batch = filling_;
    const std::size_t start = batch.fields.size();
    for (std::size_t i = 0; i < record.size(); ++i) {
      const Cell& cell = record[i];
      if (orders_[i] == Order::kInteger) {
        if (cell.type != Cell::Type::kInteger) Refuse();
        batch.fields.push_back(static_cast<Field>(cell.integer));
        continue;
      }
      if (cell.type != Cell::Type::kText && cell.type != Cell::Type::kBlob) Refuse();
      if (cell.bytes.size() >= (std::size_t{1} << 31)) Refuse();  // more than SQLite holds
      batch.fields.push_back(
          TextField(batch.bytes.size(), cell.bytes.size(), cell.type == Cell::Type::kBlob));
      batch.bytes.append(cell.bytes);
    }
    const std::size_t width = orders_.size();
    const TupleRef tuple{batch.fields.data() + start, batch.bytes.data()};
    // The tuple before: in this batch, or the last of the full one held back.
    TupleRef before;
    if (start > 0) {
      before = TupleRef{tuple.fields - width, tuple.bytes};
    } else if (full_.has_value()) {
      before = TupleRef{full_->fields.data() + full_->fields.size() - width, full_->bytes.data()};
    }
    const int order = before.fields != nullptr ? CompareTuples(orders_, before, tuple) : -1;
    if (order > 0) Refuse();
    if (order == 0) {  // a key twice (an index that is not unique): once is enough
      batch.fields.resize(start);
      ++repeats_;
      return;
    }
    if (full_.has_value()) {
      if (!Hand(std::move(*full_))) throw Abandon{};
      full_.reset();
    }
    if (batch.fields.size() >= kBatch * width || batch.bytes.size() >= kBatchBytes) {
      full_ = std::move(filling_);
      filling_ = Spare();
    }
  }
  // Append for a key of one text column (a UNIQUE name), as Append does it for any key, in
  // fewer steps: the value compared with the one before while that is still the last in the
  // batch (or in the full one held back), before it is copied in.
  void AppendText(const Cell& cell) {
    if (cell.type == Cell::Type::kNull) return;
    if (cell.type != Cell::Type::kText && cell.type != Cell::Type::kBlob) Refuse();
    if (cell.bytes.size() >= (std::size_t{1} << 31)) Refuse();  // more than SQLite holds
    ++rows_;
    const bool blob = cell.type == Cell::Type::kBlob;
    Batch& batch = filling_;
    const Batch* last = !batch.fields.empty() ? &batch : (full_.has_value() ? &*full_ : nullptr);
    if (last != nullptr) {
      const Field before = last->fields.back();
      const std::string_view bytes = BytesOf(before, last->bytes.data());
      int order = 0;
      if (((before & kBlobBit) != 0) != blob) {
        order = blob ? -1 : 1;  // SQLite: text, then blobs
      } else {
        order = blob ? CompareBytes(bytes, cell.bytes) : CompareText(orders_[0], bytes, cell.bytes);
      }
      if (order > 0) Refuse();
      if (order == 0) {  // a key twice (an index that is not unique): once is enough
        ++repeats_;
        return;
      }
    }
    batch.fields.push_back(TextField(batch.bytes.size(), cell.bytes.size(), blob));
    batch.bytes.append(cell.bytes);
    if (full_.has_value()) {
      if (!Hand(std::move(*full_))) throw Abandon{};
      full_.reset();
    }
    if (batch.fields.size() >= kBatch || batch.bytes.size() >= kBatchBytes) {
      full_ = std::move(filling_);
      filling_ = Spare();
    }
  }

  // Append for a key whose every column is an integer one (WITHOUT ROWID tables, composite
  // keys of ids), the commonest, in far fewer steps. kWidth: the key's columns, known when it
  // is 1 or 2 (0: width_).
  template <std::size_t kWidth>
  void AppendIntegers(std::span<const Cell> record) {
    const std::size_t width = kWidth != 0 ? kWidth : width_;
    if (record.size() != width) Refuse();
    for (std::size_t i = 0; i < width; ++i) {
      if (record[i].type != Cell::Type::kInteger) {
        // A NULL anywhere skips the tuple (never in both), whatever the other columns hold.
        for (const Cell& cell : record) {
          if (cell.type == Cell::Type::kNull) return;
        }
        Refuse();
      }
    }
    AppendIntegerTuple<kWidth>([&](std::size_t i) { return record[i].integer; });
  }

  // The records of a run of integers (IntegersInOrder), each as AppendIntegers appends it.
  void AppendIntegerRun(std::span<const int64_t> values) {
    switch (width_) {
      case 1:
        return AppendRun<1>(values);
      case 2:
        return AppendRun<2>(values);
      default:
        return AppendRun<0>(values);
    }
  }

  // AppendIntegerRun for tuples of kWidth values (0: width_). Each tuple is compared with the
  // one kept before it, in the run itself; the tuples between two repeats are appended as one
  // copy (AppendTuples); last_ is written once, at the run's end. A copy a tuple (a vector
  // insert each) was a seventh of a WITHOUT ROWID check's processor time.
  template <std::size_t kWidth>
  void AppendRun(std::span<const int64_t> values) {
    const std::size_t width = kWidth != 0 ? kWidth : width_;
    const std::size_t tuples = values.size() / width;
    records_ += tuples;
    rows_ += tuples;
    const int64_t* const data = values.data();
    const int64_t* before = any_last_ ? last_ : nullptr;
    std::size_t from = 0;  // the first value not yet appended
    for (std::size_t at = 0; at < values.size(); at += width) {
      const int64_t* const tuple = data + at;
      if (before != nullptr) {
        std::size_t i = 0;  // the first field where the tuple differs from the one before
        while (i < width && tuple[i] == before[i]) ++i;
        if (i < width && tuple[i] < before[i]) Refuse();
        if (i == width) {  // a key twice (an index that is not unique): once is enough
          AppendTuples(data + from, at - from);
          from = at + width;
          ++repeats_;
          continue;
        }
      }
      before = tuple;
    }
    AppendTuples(data + from, values.size() - from);
    if (before != nullptr && before != last_) {
      std::copy(before, before + width, last_);
      any_last_ = true;
    }
  }

  // Appends `count` values (whole tuples) to the batches, each handed over as it is full; a
  // stream read here gives them to on_batch_ where they lie, no copy (after the batch filled).
  void AppendTuples(const int64_t* values, std::size_t count) {
    if (on_batch_ && count != 0) {
      if (!filling_.fields.empty()) Hand(std::exchange(filling_, Spare()));
      on_batch_({reinterpret_cast<const Field*>(values), count}, nullptr);  // Field may alias
      return;
    }
    const std::size_t full = kBatch * width_;
    while (count != 0) {
      std::vector<Field>& fields = filling_.fields;
      const std::size_t n = std::min(count, full - std::min(full, fields.size()));
      fields.insert(fields.end(), values, values + n);
      values += n;
      count -= n;
      if (fields.size() >= full && !Hand(std::exchange(filling_, Spare()))) throw Abandon{};
    }
  }

  // Appends the tuple of value(0), value(1), ...: compared with a copy of the one before as it
  // is stored, a full batch handed over at once.
  template <std::size_t kWidth, typename Value>
  void AppendIntegerTuple(const Value& value) {
    const std::size_t width = kWidth != 0 ? kWidth : width_;
    ++rows_;
    Batch& batch = filling_;
    int64_t* const last = last_;
    int order = any_last_ ? 0 : -1;
    for (std::size_t i = 0; i < width; ++i) {
      const int64_t v = value(i);
      if (order == 0 && v != last[i]) order = last[i] < v ? -1 : 1;
      batch.fields.push_back(static_cast<Field>(v));
    }
    if (order >= 0) {
      if (order > 0) Refuse();
      batch.fields.resize(batch.fields.size() - width);  // a key twice: once is enough
      ++repeats_;
      return;
    }
    any_last_ = true;
    std::copy(batch.fields.end() - static_cast<std::ptrdiff_t>(width), batch.fields.end(), last);
    if (batch.fields.size() >= kBatch * width) {
      if (!Hand(std::exchange(filling_, Spare()))) throw Abandon{};
    }
  }

  // An empty batch to fill: one the merge is done with, else a new one.
  Batch Spare() {
    {
      std::lock_guard lock(mu_);
      if (!spare_.empty()) {
        Batch batch = std::move(spare_.back());
        spare_.pop_back();
        batch.bytes.clear();
        batch.fields.clear();
        return batch;
      }
    }
    return EmptyBatch(width_);
  }

  [[noreturn]] void Refuse() {
    refused_ = true;
    throw Abandon{};
  }

  // Queues `batch`, waiting while the merge is kDepth batches behind; false once stopped. Read
  // here: gives it to on_batch_, then keeps it to fill again.
  bool Hand(Batch batch) {
    if (on_batch_) {
      on_batch_(batch.fields, batch.bytes.data());
      std::lock_guard lock(mu_);
      spare_.push_back(std::move(batch));
      return true;
    }
    std::unique_lock lock(mu_);
    room_.wait(lock, [&] { return queue_.size() < kDepth || stop_; });
    if (stop_) return false;
    queue_.push_back(std::move(batch));
    ready_.notify_one();
    return true;
  }

  const std::span<const Order> orders_;
  const bool integers_;  // every column an integer one: AppendIntegers
  // What one thread writes lies on cache lines the other threads do not write: the reader
  // writes its last tuple for every record, the merge at_ for every tuple, and a line two
  // cores write in turn passes between them at each write. The two streams' objects lie side
  // by side, and their readers' tuples were 16-byte blocks side by side too: together that
  // made a WITHOUT ROWID check twice as slow, or not, as the stack and heap fell (perf).
  const std::size_t width_;
  // AppendIntegers' tuple appended last (width_ values), in last_store_ from its first 64-byte
  // boundary on: on cache lines of its own.
  std::vector<int64_t> last_store_;
  int64_t* last_ = nullptr;
  alignas(64) bool any_last_ = false;
  const OnBatch on_batch_;  // read here: where the batches go
  alignas(64) std::mutex mu_;
  std::condition_variable ready_;  // a batch was queued, or the reader is done
  std::condition_variable room_;   // a batch was taken, or the merge stopped
  std::deque<Batch> queue_;        // guarded by mu_
  std::vector<Batch> spare_;       // guarded by mu_: batches merged, for the reader to fill again
  bool done_ = false;              // guarded by mu_: the reader will queue nothing more
  bool stop_ = false;              // guarded by mu_: the merge wants nothing more
  // Written by the reader only, read after join() (which orders them), or on the reader's own
  // thread when it is the caller's (ReadHere).
  bool read_ = false;
  bool refused_ = false;
  uint64_t records_ = 0;
  uint64_t rows_ = 0;
  uint64_t repeats_ = 0;
  std::exception_ptr error_;
  // The reader's: the batch it fills, and the full one before it, held back until the tuple
  // after its last was checked against that last.
  Batch filling_;
  std::optional<Batch> full_;
  // The merge's side (the calling thread only).
  alignas(64) Batch current_;
  std::size_t at_ = 0;
  std::thread thread_;  // last: it starts once the members above exist
  // Nothing of the next object on this line (padding only: never read).
  [[maybe_unused]] alignas(64) char end_[1] = {};
};

// Merges key `ka` / `kb` of `table` from both inputs, their columns ordered as `orders`; false,
// filling nothing, when the merge cannot be trusted (see the top of the file). Else `records`
// holds each index's records. A's index is read on the calling thread, which merges each batch
// of A's as it is full against B's stream, read on a thread of its own.
bool MergeKey(Source& a, Source& b, const std::string& table, std::span<const Order> orders,
              KeyState& ka, KeyState& kb, uint64_t (&records)[2]) {
  Stream stream_b(b, table, kb, orders);
  KeyState::Merged in_a;
  KeyState::Merged in_b;
  TupleRef y;
  bool started = false;  // y read
  bool has_b = false;
  const bool integers = AllIntegers(orders);
  const std::size_t width = orders.size();
  Stream stream_a(orders, [&](std::span<const Field> fields, const char* bytes) {
    if (!started) {
      has_b = stream_b.Next(y);
      started = true;
    }
    for (std::size_t at = 0; at < fields.size() && has_b; at += width) {
      const TupleRef x{fields.data() + at, bytes};
      int c = 0;
      for (;;) {  // B's tuples below x are in A's no more
        c = integers ? CompareIntegerTuples(width, x.fields, y.fields)
                     : CompareTuples(orders, x, y);
        if (c <= 0) break;
        has_b = stream_b.Next(y);
        if (!has_b) break;
      }
      if (has_b && c == 0) {
        in_a.common.push_back(OwnTuple(orders, x));
        in_b.common.push_back(OwnTuple(orders, y));
        has_b = stream_b.Next(y);
      }
    }
  });
  stream_a.ReadHere(a, table, ka);
  if (stream_a.complete()) {  // else the merge is not used: B's reader is stopped
    // (Read hands its last batch, even an empty one, so B's first tuple was taken.)
    while (has_b) has_b = stream_b.Next(y);  // the rest: read to its end, counted and checked
  }
  stream_b.Finish();
  stream_a.RethrowError();
  stream_b.RethrowError();
  if (!stream_a.complete() || !stream_b.complete()) return false;
  in_a.rows = stream_a.rows();
  in_b.rows = stream_b.rows();
  in_a.repeats = stream_a.repeats();
  in_b.repeats = stream_b.repeats();
  ka.merged = std::move(in_a);
  kb.merged = std::move(in_b);
  records[0] = stream_a.records();
  records[1] = stream_b.records();
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
