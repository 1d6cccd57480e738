// Copyright 2026 The steadyflake Authors.
//
// RowidReader: the read-only memory map and the page lookup.

#include "rowid_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace steadyflake::mergecheck {

RowidReader::RowidReader(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Fail(0, std::string("cannot open it: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || info.st_size < 100) {
    ::close(fd);
    Fail(0, "it is shorter than a SQLite header");
  }
  size_ = static_cast<std::size_t>(info.st_size);
  void* map = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) Fail(0, std::string("cannot map it: ") + std::strerror(errno));
  data_ = static_cast<const unsigned char*>(map);
  ::madvise(map, size_, MADV_SEQUENTIAL);
  const uint32_t size_field = rowid_reader_internal::Get16(data_ + 16);
  page_size_ = size_field == 1 ? 65536 : size_field;
  usable_ = page_size_ - data_[20];
  if (page_size_ < 512 || (page_size_ & (page_size_ - 1)) != 0 || usable_ < 480) {
    ::munmap(map, size_);
    data_ = nullptr;
    Fail(0, "its header gives no valid page size");
  }
  pages_ = static_cast<uint32_t>(size_ / page_size_);
}

RowidReader::~RowidReader() {
  if (data_ != nullptr) ::munmap(const_cast<unsigned char*>(data_), size_);
}

const unsigned char* RowidReader::Page(uint32_t number) const {
  if (number == 0 || number > pages_) {
    Fail(number, "the page is beyond the end of the file (" + std::to_string(pages_) + " pages)");
  }
  return data_ + static_cast<std::size_t>(number - 1) * page_size_;
}

}  // namespace steadyflake::mergecheck
