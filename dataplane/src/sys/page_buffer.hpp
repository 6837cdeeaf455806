#pragma once
// A page-aligned byte buffer, allocated once at open(): the kernel copies to and from whole
// pages, and the hot loops never allocate.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace spiral {

class PageBuffer {
 public:
  PageBuffer() = default;
  explicit PageBuffer(size_t bytes, unsigned char fill = 0x5a)
      : size_(bytes), data_(static_cast<char*>(std::aligned_alloc(kPage, round_up(bytes)))) {
    if (!data_) throw std::bad_alloc();
    std::memset(data_.get(), fill, round_up(bytes));  // touch every page before the run, not during it
  }
  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  static constexpr size_t kPage = 4096;
  static size_t round_up(size_t n) { return (n + kPage - 1) / kPage * kPage + (n == 0 ? kPage : 0); }
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  size_t size_ = 0;
  std::unique_ptr<char, Free> data_;
};

}  // namespace spiral
