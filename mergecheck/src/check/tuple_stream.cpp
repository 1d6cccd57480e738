// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Stream and Channel (tuple_stream.h). Trust: the merge is only right if both streams really
// are sorted as CompareTuples sorts, so every tuple is checked against the one before it; a
// stream out of that order, or holding a value the merge does not order (a text or a real in
// an integer column, a number in a text column: SQLite sorts those among the others by type
// first), is refused. A tuple with a NULL is skipped (never in both), and so is a tuple equal
// to the one before (a key set holds each value once too): dropping tuples from a sorted stream
// leaves it sorted.

#include "check/tuple_stream.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace steadyflake::mergecheck::ordered_merge_internal {

Stream::Stream(std::span<const Order> orders, OnBatch on_batch)
    : orders_(orders),
      integers_(AllIntegers(orders)),
      width_(orders.size()),
      last_store_(width_ + 16),
      last_(OnLines(last_store_, width_)),
      on_batch_(std::move(on_batch)),
      filling_(EmptyBatch(orders.size())) {}

void Stream::Read(Source& source, const std::string& table, const KeyState& key) {
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
    if (full_.has_value()) Hand(*std::exchange(full_, std::nullopt));
    Hand(std::move(filling_));
  } catch (const Abandon&) {
    // The merge has what it needs, or will not use this stream.
    read_ = false;
  } catch (...) {
    error_ = std::current_exception();
  }
}

// Appends the tuple `record` to the batch being filled, unless it holds a NULL (never in both)
// or equals the tuple before it; hands a full batch over once the tuple after its last was
// checked against it (AppendIntegers, keeping a copy of that last, at once). Throws Abandon on
// a value the merge does not order or a tuple out of order.
void Stream::Append(std::span<const Cell> record) {
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
    if (!AppendField(orders_[i], record[i], batch)) Refuse();
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
  if (full_.has_value()) Hand(*std::exchange(full_, std::nullopt));
  if (batch.fields.size() >= kBatch * width || batch.bytes.size() >= kBatchBytes) {
    full_ = std::move(filling_);
    filling_ = Spare();
  }
}

// Append for a key of one text column (a UNIQUE name), as Append does it for any key, in fewer
// steps: the value compared with the one before while that is still the last in the batch (or
// in the full one held back), before it is copied in.
void Stream::AppendText(const Cell& cell) {
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
  if (full_.has_value()) Hand(*std::exchange(full_, std::nullopt));
  if (batch.fields.size() >= kBatch || batch.bytes.size() >= kBatchBytes) {
    full_ = std::move(filling_);
    filling_ = Spare();
  }
}

// Append for a key whose every column is an integer one (WITHOUT ROWID tables, composite keys
// of ids), the commonest, in far fewer steps. kWidth: the key's columns, known when it is 1 or
// 2 (0: width_).
template <std::size_t kWidth>
void Stream::AppendIntegers(std::span<const Cell> record) {
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
void Stream::AppendIntegerRun(std::span<const int64_t> values) {
  switch (width_) {
    case 1:
      return AppendRun<1>(values);
    case 2:
      return AppendRun<2>(values);
    default:
      return AppendRun<0>(values);
  }
}

// AppendIntegerRun for tuples of kWidth values (0: width_). Each tuple is compared with the one
// kept before it, in the run itself; the tuples between two repeats are appended as one copy
// (AppendTuples); last_ is written once, at the run's end. A copy a tuple (a vector insert
// each) was a seventh of a WITHOUT ROWID check's processor time.
template <std::size_t kWidth>
void Stream::AppendRun(std::span<const int64_t> values) {
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

// Gives `count` values (whole tuples) to on_batch_ where they lie, no copy (after the batch
// being filled, if any).
void Stream::AppendTuples(const int64_t* values, std::size_t count) {
  if (count == 0) return;
  if (!filling_.fields.empty()) Hand(std::exchange(filling_, Spare()));
  on_batch_({reinterpret_cast<const Field*>(values), count}, nullptr, nullptr);  // may alias
}

// Appends the tuple of value(0), value(1), ...: compared with a copy of the one before as it is
// stored, a full batch handed over at once.
template <std::size_t kWidth, typename Value>
void Stream::AppendIntegerTuple(const Value& value) {
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
  if (batch.fields.size() >= kBatch * width) Hand(std::exchange(filling_, Spare()));
}

void Stream::Hand(Batch batch) {
  on_batch_(batch.fields, batch.bytes.data(), &batch);
  spare_.push_back(std::move(batch));
}

Batch Stream::Spare() { return TakeSpare(spare_, width_); }

void Stream::Refuse() {
  refused_ = true;
  throw Abandon{};
}

void Channel::Hand(Batch batch) {
  std::unique_lock lock(mu_);
  room_.wait(lock, [&] { return queued_bytes_ < depth_ || stopped_; });
  if (stopped_) throw Abandon{};
  queued_bytes_ += BytesHeld(batch);
  queue_.push_back(std::move(batch));
  ready_.notify_one();
}

Batch Channel::Spare() {
  std::lock_guard lock(mu_);
  return TakeSpare(spare_, width_);
}

void Channel::Pass(uint32_t part) {
  {
    std::lock_guard lock(mu_);
    passed_ = std::max(passed_, part);
  }
  ready_.notify_one();
}

void Channel::Stop() {
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
  }
  ready_.notify_one();
  room_.notify_one();
}

void Channel::Drain(uint32_t part) {
  at_ = current_.fields.size();
  while (Refill(true, part) == Took::kTuple) at_ = current_.fields.size();
}

Channel::Took Channel::Refill(bool wait, uint32_t part) {
  while (at_ == current_.fields.size()) {
    std::unique_lock lock(mu_);
    if (wait) ready_.wait(lock, [&] { return !queue_.empty() || passed_ > part || stopped_; });
    if (stopped_) throw Abandon{};
    if (queue_.empty() || queue_.front().part > part) {
      return queue_.empty() && passed_ <= part ? Took::kNotYet : Took::kEnd;
    }
    // Each part is taken to its end before the next: a batch of an earlier one is a giver that
    // mislabelled it (its tuples would be merged as another part's, or dropped).
    if (queue_.front().part < part) throw std::logic_error("a batch handed after its part");
    // The batch taken last goes back to the giver, its memory with it (TakeSpare).
    if (current_.fields.capacity() != 0) spare_.push_back(std::move(current_));
    current_ = std::move(queue_.front());
    queue_.pop_front();
    queued_bytes_ -= BytesHeld(current_);
    at_ = 0;
    room_.notify_one();
  }
  return Took::kTuple;
}

}  // namespace steadyflake::mergecheck::ordered_merge_internal
