// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// ScatteredReads (scattered_reads.h).

#include "sqlite/scattered_reads.h"

#include <liburing.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <system_error>

#if defined(__SANITIZE_THREAD__)
#define STEADYFLAKE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STEADYFLAKE_TSAN 1
#endif
#endif
#ifdef STEADYFLAKE_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace steadyflake::mergecheck {

namespace {

// liburing maps a ring's memory and unmaps it by system calls of its own, which ThreadSanitizer
// does not see: it keeps what it knew of an unmapped ring and takes a ring mapped later at the
// same address by another thread for a race with the old one (a CI run failed so). The kernel
// orders the unmapping before the new mapping; each page of a ring is released as the ring ends
// and acquired as a ring starts, which tells ThreadSanitizer that order. Nothing in other builds.
enum class RingOrder { kStart, kEnd };

void TellSanitizer([[maybe_unused]] const io_uring& ring, [[maybe_unused]] RingOrder order) {
#ifdef STEADYFLAKE_TSAN
  constexpr std::size_t kPage = 4096;
  const auto each_page = [order](void* start, std::size_t size) {
    auto* const bytes = static_cast<unsigned char*>(start);
    for (std::size_t at = 0; start != nullptr && at < size; at += kPage) {
      if (order == RingOrder::kStart) {
        __tsan_acquire(bytes + at);
      } else {
        __tsan_release(bytes + at);
      }
    }
  };
  each_page(ring.sq.ring_ptr, ring.sq.ring_sz);
  each_page(ring.cq.ring_ptr, ring.cq.ring_sz);
  each_page(ring.sq.sqes, std::size_t{ring.sq.ring_entries} * sizeof(io_uring_sqe));
#endif
}

}  // namespace

struct ScatteredReads::Ring {
  io_uring ring;
};

void ScatteredReads::EndRing::operator()(Ring* ring) const noexcept {
  TellSanitizer(ring->ring, RingOrder::kEnd);
  io_uring_queue_exit(&ring->ring);
  delete ring;
}

bool ScatteredReads::Read(int fd, std::span<const uint64_t> offsets, std::size_t size,
                          unsigned char* out, std::span<std::size_t> got) {
  if (unavailable_ || offsets.size() > kMaxBatch || got.size() < offsets.size()) return false;
  if (offsets.empty()) return true;
  if (ring_ == nullptr) {
    auto ring = std::make_unique<Ring>();
    if (io_uring_queue_init(kMaxBatch, &ring->ring, 0) < 0) {
      unavailable_ = true;
      return false;
    }
    TellSanitizer(ring->ring, RingOrder::kStart);
    ring_.reset(ring.release());
  }
  io_uring* const ring = &ring_->ring;
  std::size_t queued = 0;
  for (; queued < offsets.size(); ++queued) {
    io_uring_sqe* const sqe = io_uring_get_sqe(ring);
    if (sqe == nullptr) break;  // the ring is kMaxBatch deep and empty between calls: never
    io_uring_prep_read(sqe, fd, out + queued * size, static_cast<unsigned>(size), offsets[queued]);
    io_uring_sqe_set_data64(sqe, queued);
  }
  // Submitted and waited for together; every read submitted is reaped before Read returns, so
  // that none lands in `out` after it.
  std::size_t submitted = 0;
  for (;;) {
    const int n = io_uring_submit_and_wait(ring, static_cast<unsigned>(queued - submitted));
    if (n == -EINTR) continue;
    if (n < 0 && submitted == 0) {  // nothing in flight: the caller reads alone
      unavailable_ = true;
      return false;
    }
    if (n > 0) submitted += static_cast<std::size_t>(n);
    if (n <= 0 || submitted == queued) break;
  }
  int error = 0;
  for (std::size_t reaped = 0; reaped < submitted;) {
    io_uring_cqe* cqe = nullptr;
    const int w = io_uring_wait_cqe(ring, &cqe);
    if (w == -EINTR) continue;
    if (w < 0) throw std::system_error(-w, std::generic_category(), "io_uring_wait_cqe");
    const auto i = static_cast<std::size_t>(io_uring_cqe_get_data64(cqe));
    if (cqe->res < 0 && error == 0) error = -cqe->res;
    if (cqe->res >= 0 && i < offsets.size()) got[i] = static_cast<std::size_t>(cqe->res);
    io_uring_cqe_seen(ring, cqe);
    ++reaped;
  }
  if (error != 0) throw std::system_error(error, std::generic_category(), "read");
  return submitted == offsets.size();
}

}  // namespace steadyflake::mergecheck
