// A byte buffer that grows without zero-filling and drops consumed bytes from
// its front: the input window of the streaming readers, where std::vector's
// value-initialisation on resize showed up as 8% of reading time.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>

namespace mimic {

class GrowBuffer {
public:
    char* data() { return data_.get(); }
    const char* data() const { return data_.get(); }
    size_t size() const { return size_; }
    char& operator[](size_t i) { return data_[i]; }
    char operator[](size_t i) const { return data_[i]; }

    // Makes room for `extra` more bytes after size() and returns where they go;
    // commit() then says how many were written.
    char* prepare(size_t extra) {
        if (size_ + extra > capacity_) {
            size_t cap = capacity_ ? capacity_ : 4096;
            while (cap < size_ + extra) cap *= 2;
            std::unique_ptr<char[]> bigger(new char[cap]);
            if (size_) std::memcpy(bigger.get(), data_.get(), size_);
            data_ = std::move(bigger);
            capacity_ = cap;
        }
        return data_.get() + size_;
    }
    void commit(size_t n) { size_ += n; }

    void append(const char* p, size_t n) {
        std::memcpy(prepare(n), p, n);
        size_ += n;
    }
    void push_back(char c) {
        *prepare(1) = c;
        ++size_;
    }
    void clear() { size_ = 0; }
    // Keeps the first n bytes (n <= size()).
    void truncate(size_t n) { size_ = n < size_ ? n : size_; }
    // Drops the first n bytes.
    void erase_front(size_t n) {
        if (n < size_) std::memmove(data_.get(), data_.get() + n, size_ - n);
        size_ = n < size_ ? size_ - n : 0;
    }

private:
    std::unique_ptr<char[]> data_;
    size_t size_ = 0;
    size_t capacity_ = 0;
};

}  // namespace mimic
