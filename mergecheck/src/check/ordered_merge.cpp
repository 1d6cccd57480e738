// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge in index order. Each input's index is read on a thread of its own
// (Source::ReadInIndexOrder), which copies the values into batches of kBatch and hands them over
// a queue at most kDepth batches deep; the calling thread walks both streams as a merge sort's
// merge step does, comparing under the collation the indexes sort by. So the two inputs are
// decoded at once, the comparison costs one string comparison per value, and nothing is held
// but a few batches and the values in both.
//
// Trust: the merge is only right if both streams really are sorted as CompareInIndexOrder
// sorts. So every value is checked against the one before it on its side; a stream out of that
// order (a collation whose order is not the one assumed, a damaged index) or one holding a value
// the merge does not order (a number in a TEXT column) abandons the merge, and the key is
// hashed and sorted as any other (Collector::Undefer). A wrong "no overlap" never comes of it.

#include "check/ordered_merge.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

constexpr std::size_t kBatch = 4096;  // values per batch
constexpr std::size_t kDepth = 4;     // batches a reader may be ahead of the merge

int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

int CompareBytes(std::string_view a, std::string_view b) {
  const std::size_t n = std::min(a.size(), b.size());
  const int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return Sign(c);
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

unsigned char Lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }

// One value of a stream: text or a blob (SQLite sorts every text before every blob).
struct Item {
  std::string_view bytes;
  bool blob = false;
};

int CompareItems(std::string_view collation, const Item& a, const Item& b) {
  if (a.blob != b.blob) return a.blob ? 1 : -1;
  return a.blob ? CompareBytes(a.bytes, b.bytes) : CompareInIndexOrder(collation, a.bytes, b.bytes);
}

struct Batch {
  std::string bytes;
  struct Entry {
    std::size_t offset;
    std::size_t size;
    bool blob;
  };
  std::vector<Entry> entries;
};

// Thrown from the reader's callback to end a read early.
struct Abandon {};

// One input's index read on a thread of its own, its values handed over in batches.
class Stream {
 public:
  Stream(Source& source, const std::string& table, const std::string& column,
         const std::string& collation)
      : thread_([this, &source, table, column, collation] {
          Read(source, table, column, collation);
        }) {}
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { Finish(); }

  // The next value, valid until the next call; false at the end of the stream.
  bool Next(Item& item) {
    while (at_ == current_.entries.size()) {
      std::unique_lock lock(mu_);
      ready_.wait(lock, [&] { return !queue_.empty() || done_; });
      if (queue_.empty()) return false;
      current_ = std::move(queue_.front());
      queue_.pop_front();
      at_ = 0;
      room_.notify_one();
    }
    const Batch::Entry& e = current_.entries[at_++];
    item.bytes = std::string_view(current_.bytes).substr(e.offset, e.size);
    item.blob = e.blob;
    return true;
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
  // After the stream ended: whether it was the whole index, every value text or a blob.
  bool complete() const { return read_ && !other_value_; }

 private:
  void Read(Source& source, const std::string& table, const std::string& column,
            const std::string& collation) {
    Batch batch;
    try {
      read_ = source.ReadInIndexOrder(table, column, collation, [&](const Cell& cell) {
        if (cell.type == Cell::Type::kNull) return;  // never in both
        if (cell.type != Cell::Type::kText && cell.type != Cell::Type::kBlob) {
          other_value_ = true;
          throw Abandon{};
        }
        batch.entries.push_back(
            {batch.bytes.size(), cell.bytes.size(), cell.type == Cell::Type::kBlob});
        batch.bytes.append(cell.bytes);
        if (batch.entries.size() == kBatch) {
          if (!Hand(std::move(batch))) throw Abandon{};
          batch = Batch{};
        }
      });
      Hand(std::move(batch));
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

  // Queues `batch`, waiting while the merge is kDepth batches behind; false once stopped.
  bool Hand(Batch batch) {
    std::unique_lock lock(mu_);
    room_.wait(lock, [&] { return queue_.size() < kDepth || stop_; });
    if (stop_) return false;
    queue_.push_back(std::move(batch));
    ready_.notify_one();
    return true;
  }

  std::mutex mu_;
  std::condition_variable ready_;  // a batch was queued, or the reader is done
  std::condition_variable room_;   // a batch was taken, or the merge stopped
  std::deque<Batch> queue_;        // guarded by mu_
  bool done_ = false;              // guarded by mu_: the reader will queue nothing more
  bool stop_ = false;              // guarded by mu_: the merge wants nothing more
  // Written by the reader thread only, read after join() (which orders them).
  bool read_ = false;
  bool other_value_ = false;
  std::exception_ptr error_;
  // The merge's side (the calling thread only).
  Batch current_;
  std::size_t at_ = 0;
  std::thread thread_;  // last: it starts once the members above exist
};

// One side of the merge: its stream, the value it is at, and the check of its order.
class Side {
 public:
  Side(Stream& stream, std::string_view collation) : stream_(stream), collation_(collation) {}

  // Moves to the next value; false at the end, or when it is out of order (then ordered()).
  bool Advance() {
    if (has_) {
      previous_.assign(item_.bytes);
      previous_blob_ = item_.blob;
    }
    const bool had = has_;
    has_ = stream_.Next(item_);
    if (!has_) return false;
    ++rows_;
    if (had && CompareItems(collation_, Item{previous_, previous_blob_}, item_) > 0) {
      ordered_ = false;
      has_ = false;
    }
    return has_;
  }

  bool has() const { return has_; }
  const Item& item() const { return item_; }
  bool ordered() const { return ordered_; }
  uint64_t rows() const { return rows_; }

 private:
  Stream& stream_;
  std::string_view collation_;
  Item item_;
  bool has_ = false;
  std::string previous_;
  bool previous_blob_ = false;
  bool ordered_ = true;
  uint64_t rows_ = 0;
};

OwnedValue OwnItem(const Item& item) {
  OwnedValue v;
  v.tag = item.blob ? Value::Tag::kBlob : Value::Tag::kText;
  v.bytes.assign(item.bytes);
  return v;
}

// Merges key `lower` of `table` from both inputs; false, filling nothing, when the merge cannot
// be trusted (see the top of the file).
bool MergeKey(Source& a, Source& b, const std::string& table, KeyState& ka, KeyState& kb) {
  const std::string& collation = ka.collation_names[0];
  Stream stream_a(a, table, ka.names[0], collation);
  Stream stream_b(b, table, kb.names[0], kb.collation_names[0]);
  Side sa(stream_a, collation);
  Side sb(stream_b, collation);
  KeyState::Merged in_a;
  KeyState::Merged in_b;
  sa.Advance();
  sb.Advance();
  while (sa.has() && sb.has()) {
    const int c = CompareItems(collation, sa.item(), sb.item());
    if (c < 0) {
      sa.Advance();
    } else if (c > 0) {
      sb.Advance();
    } else {
      in_a.common.push_back({OwnItem(sa.item())});
      in_b.common.push_back({OwnItem(sb.item())});
      // Past every value equal to this one on each side (a unique index holds one).
      const OwnedValue& value = in_a.common.back()[0];
      const Item equal{value.bytes, value.tag == Value::Tag::kBlob};
      while (sa.Advance() && CompareItems(collation, sa.item(), equal) == 0) {
      }
      while (sb.Advance() && CompareItems(collation, sb.item(), equal) == 0) {
      }
    }
  }
  while (sa.has()) sa.Advance();  // the rest: counted, and checked for order
  while (sb.has()) sb.Advance();
  stream_a.Finish();
  stream_b.Finish();
  stream_a.RethrowError();
  stream_b.RethrowError();
  if (!sa.ordered() || !sb.ordered() || !stream_a.complete() || !stream_b.complete()) return false;
  in_a.rows = sa.rows();
  in_b.rows = sb.rows();
  ka.merged = std::move(in_a);
  kb.merged = std::move(in_b);
  return true;
}

}  // namespace

int CompareInIndexOrder(std::string_view name, std::string_view a, std::string_view b) {
  if (EqualsIgnoreCase(name, "NOCASE")) {
    // SQLite's nocaseCollatingFunc: ASCII letters folded, then the shorter first.
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
      const int c =
          Lower(static_cast<unsigned char>(a[i])) - Lower(static_cast<unsigned char>(b[i]));
      if (c != 0) return Sign(c);
    }
    return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  }
  if (EqualsIgnoreCase(name, "RTRIM")) {
    while (!a.empty() && a.back() == ' ') a.remove_suffix(1);
    while (!b.empty() && b.back() == ' ') b.remove_suffix(1);
  }
  return CompareBytes(a, b);
}

void MergeInIndexOrder(Source& a, Collector& ca, Source& b, Collector& cb, const Layout& layout,
                       int64_t cutoff_ms) {
  std::vector<std::pair<std::string, std::vector<std::string>>> back_a;
  std::vector<std::pair<std::string, std::vector<std::string>>> back_b;
  for (const TableState& ta : ca.tables()) {
    if (!ta.selected) continue;
    for (const KeyState& key : ta.keys) {
      if (!key.deferred) continue;
      const std::string& table = ta.table.name;
      KeyState* ka = ca.FindKey(table, key.lower);
      KeyState* kb = cb.FindKey(table, key.lower);
      if (kb == nullptr) continue;  // drift: B has no such key, nothing to compare
      const bool both =
          kb->deferred && EqualsIgnoreCase(ka->collation_names[0], kb->collation_names[0]);
      if (both && MergeKey(a, b, table, *ka, *kb)) continue;
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
  if (!back_a.empty()) ca.Undefer(back_a, layout, cutoff_ms);
  if (!back_b.empty()) cb.Undefer(back_b, layout, cutoff_ms);
}

}  // namespace steadyflake::mergecheck
