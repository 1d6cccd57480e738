// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// PageFile and PageReader: pread(2) of whole pages, in runs when pages come in order.

#include "sqlite/page_file.h"

#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <system_error>
#include <vector>

#include "source/huge_pages.h"

namespace steadyflake::mergecheck {

namespace {

constexpr std::size_t kRunBytes = PageReader::kRunBytes;

// The run buffers of the readers done with them, for the next: a check makes readers by the dozen
// (a walk per read transaction, per key, per structure check), and each new buffer's 64 pages
// faulted in as they were first read into, ~11 us a fault on the 2-core CI machine. New buffers
// come eight at a time from a region of huge pages (huge_pages.h), one fault for the eight where
// the kernel gives a huge page. Kept for the process's life: as many as readers ever ran at once.
class RunBuffers {
 public:
  static RunBuffers& Get() {
    static RunBuffers* const pool = new RunBuffers;  // never destroyed: readers may outlive exit
    return *pool;
  }
  unsigned char* Take() {
    std::lock_guard lock(mu_);
    if (free_.empty()) {
      constexpr std::size_t kRegion = std::size_t{2} << 20;
      auto* region = static_cast<unsigned char*>(ReserveHugeRegion(kRegion));
      if (region == nullptr) return NewReadBuffer(kRunBytes).release();  // on a page
      for (std::size_t at = kRegion; at >= kRunBytes; at -= kRunBytes) {
        free_.push_back(region + at - kRunBytes);
      }
    }
    unsigned char* buffer = free_.back();
    free_.pop_back();
    return buffer;
  }
  void Give(unsigned char* buffer) {
    std::lock_guard lock(mu_);
    free_.push_back(buffer);
  }

 private:
  std::mutex mu_;
  std::vector<unsigned char*> free_;  // guarded by mu_
};

// Reads `size` bytes at `offset`; returns how many were there (fewer at the end of the file).
std::size_t ReadAt(int fd, unsigned char* out, std::size_t size, uint64_t offset) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw DamagedPage(0, std::string("cannot read it: ") + std::strerror(errno));
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

}  // namespace

// By cpuid itself rather than __builtin_cpu_supports and __builtin_cpu_is: kFastBitGather is
// read in a static initializer, which may run before the compiler's own detection (GCC's manual:
// __builtin_cpu_init must be called first there), and those name no Hygon processor.
bool page_file_internal::DetectFastBitGather() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  if ((ebx & (1u << 8)) == 0) return false;  // no BMI2
  __cpuid(0, eax, ebx, ecx, edx);
  constexpr unsigned kAuth = 0x68747541;  // "AuthenticAMD"
  constexpr unsigned kHygo = 0x6f677948;  // "HygonGenuine": Zen 1's
  if (ebx == kHygo) return false;
  if (ebx != kAuth) return true;
  __cpuid(1, eax, ebx, ecx, edx);
  unsigned family = (eax >> 8) & 0xf;
  if (family == 0xf) family += (eax >> 20) & 0xff;
  return family >= 0x19;
#else
  return false;
#endif
}

PageFile::PageFile(int fd) : fd_(fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    throw DamagedPage(0, std::string("cannot read it: ") + std::strerror(errno));
  }
  unsigned char header[100];
  if (info.st_size < 100 || ReadAt(fd, header, sizeof header, 0) < sizeof header) {
    throw DamagedPage(0, "it is shorter than a SQLite header");
  }
  const uint32_t size_field = page_file_internal::Get16(header + 16);
  page_size_ = size_field == 1 ? 65536 : size_field;
  usable_ = page_size_ - header[20];
  if (page_size_ < 512 || (page_size_ & (page_size_ - 1)) != 0 || usable_ < 480) {
    throw DamagedPage(0, "its header gives no valid page size");
  }
  text_encoding_ = page_file_internal::Get32(header + 56);
  const auto pages = static_cast<uint64_t>(info.st_size) / page_size_;
  pages_ = static_cast<uint32_t>(std::min<uint64_t>(pages, UINT32_MAX - 1));
}

void PageFile::Read(uint32_t first, uint32_t count, unsigned char* out) const {
  if (first == 0 || first > pages_ || count > pages_ - first + 1) {
    throw DamagedPage(
        first, "the page is beyond the end of the file (" + std::to_string(pages_) + " pages)");
  }
  const std::size_t size = std::size_t{count} * page_size_;
  const uint64_t offset = uint64_t{first - 1} * page_size_;
  if (ReadAt(fd_, out, size, offset) < size) {
    throw DamagedPage(first, "the file ends before this page: it was truncated while it was read");
  }
}

void PageFile::ReadPages(std::span<const uint32_t> pages, unsigned char* out,
                         ScatteredReads& via) const {
  uint64_t offsets[ScatteredReads::kMaxBatch];
  std::size_t got[ScatteredReads::kMaxBatch];
  if (pages.size() > ScatteredReads::kMaxBatch) throw std::logic_error("too many pages at once");
  for (std::size_t i = 0; i < pages.size(); ++i) {
    if (pages[i] == 0 || pages[i] > pages_) Read(pages[i], 1, out);  // throws
    offsets[i] = uint64_t{pages[i] - 1} * page_size_;
  }
  // One page alone is read by pread: a batch of one costs as much.
  bool batched = false;
  if (pages.size() > 1) {
    try {
      batched = via.Read(fd_, std::span(offsets, pages.size()), page_size_, out, got);
    } catch (const std::system_error& e) {
      throw DamagedPage(0, std::string("cannot read it: ") + std::strerror(e.code().value()));
    }
  }
  for (std::size_t i = 0; i < pages.size(); ++i) {
    if (!batched) {
      Read(pages[i], 1, out + i * page_size_);
    } else if (got[i] < page_size_) {
      throw DamagedPage(pages[i],
                        "the file ends before this page: it was truncated while it was read");
    }
  }
}

PageReader::PageReader(const PageFile& file, bool read_ahead)
    : file_(file),
      // A run is at most the whole file: a small file gets a small buffer.
      window_pages_(read_ahead
                        ? static_cast<uint32_t>(std::max<std::size_t>(
                              1, std::min<std::size_t>(kRunBytes / file.page_size(), file.pages())))
                        : 1),
      batch_max_(static_cast<uint32_t>(std::max<std::size_t>(
          1, std::min(kRunBytes / file.page_size(), ScatteredReads::kMaxBatch)))) {}

void PageReader::Expect(std::span<const uint32_t> pages) {
  expected_.assign(pages.begin(), pages.end());
  expected_at_ = 0;
}

const unsigned char* PageReader::FromBatch(uint32_t number) {
  const std::size_t size = file_.page_size();
  // Looked for from the page expected next on, then from the list's start.
  std::size_t at = expected_.size();
  for (std::size_t n = 0; n < expected_.size(); ++n) {
    const std::size_t i = (expected_at_ + n) % expected_.size();
    if (expected_[i] == number) {
      at = i;
      break;
    }
  }
  if (at == expected_.size()) return nullptr;
  batch_pages_.clear();
  for (std::size_t i = at; i < expected_.size() && batch_pages_.size() < batch_max_; ++i) {
    // A page a little after the one before it will start a run when asked for (Page): the
    // leaves of an index written in order lie so, and a batch would read them twice. A reader
    // with no read-ahead reads such a page alone: the batch takes it.
    const bool in_order = window_pages_ > 1 && i > at && expected_[i] > expected_[i - 1] &&
                          expected_[i] - expected_[i - 1] <= kNearPages;
    if (in_order) break;
    // Pages beyond the end are left to the read alone that throws for them.
    if (expected_[i] != 0 && expected_[i] <= file_.pages()) batch_pages_.push_back(expected_[i]);
  }
  if (batch_pages_.empty() || batch_pages_[0] != number) {
    batch_pages_.clear();
    return nullptr;
  }
  expected_at_ = at + 1;
  if (batch_ == nullptr) batch_.reset(RunBuffers::Get().Take());
  try {
    file_.ReadPages(batch_pages_, batch_.get(), scattered_);
  } catch (...) {
    batch_pages_.clear();
    throw;
  }
  bytes_read_ += batch_pages_.size() * size;
  ++reads_;
  return batch_.get();
}

void PageReader::GiveBack::operator()(unsigned char* buffer) const noexcept {
  RunBuffers::Get().Give(buffer);
}

const unsigned char* PageReader::Held(uint32_t number) const {
  if (first_ != 0 && number >= first_ && number - first_ < count_) {
    return buffer_.get() + std::size_t{number - first_} * file_.page_size();
  }
  if (number == single_page_ && number != 0) return single_.get();
  for (std::size_t i = 0; i < batch_pages_.size(); ++i) {
    if (batch_pages_[i] == number) return batch_.get() + i * file_.page_size();
  }
  return nullptr;
}

const unsigned char* PageReader::Page(uint32_t number) {
  const bool in_order = number > last_ && number - last_ <= kNearPages;
  last_ = number;
  if (const unsigned char* held = Held(number)) return held;
  // Pages asked for in order are read ahead; a page out of order is read alone, so a
  // scattered tree costs no more than its own pages. A run of pages with gaps reads the
  // gaps too: for a table's and its index's pages every other page, half the bytes read
  // are not wanted, but the system calls, ~1.5 us each on the 2-core CI machine against
  // ~0.5 us to copy a page, are 32 times fewer.
  if (!in_order || window_pages_ == 1 || number > file_.pages()) {  // page 0 is never in order
    if (const unsigned char* batched = FromBatch(number)) return batched;
    // Alone, into a buffer of its own: the run stays, for the pages after this one that it
    // holds (an index's leaves come in order but for a step back now and then).
    if (single_ == nullptr) single_ = NewReadBuffer(file_.page_size());
    single_page_ = 0;
    file_.Read(number, 1, single_.get());
    bytes_read_ += file_.page_size();
    ++reads_;
    single_page_ = number;
    return single_.get();
  }
  const uint32_t count = std::min(window_pages_, file_.pages() - number + 1);
  first_ = 0;
  if (buffer_ == nullptr) buffer_.reset(RunBuffers::Get().Take());
  file_.Read(number, count, buffer_.get());
  bytes_read_ += uint64_t{count} * file_.page_size();
  ++reads_;
  first_ = number;
  count_ = count;
  return buffer_.get();
}

}  // namespace steadyflake::mergecheck
