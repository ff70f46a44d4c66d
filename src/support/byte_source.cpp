#include "support/byte_source.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "support/error.h"

namespace mimic {

namespace {
constexpr size_t kCompressedChunk = 1 << 20;
}

struct ByteSource::Inflater {
    z_stream stream{};
    std::vector<unsigned char> in;
    bool initialised = false;
    ~Inflater() {
        if (initialised) inflateEnd(&stream);
    }
};

ByteSource::ByteSource(const std::string& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) fail({path, -1, -1, ""}, std::string("cannot open: ") + std::strerror(errno));
    if (std::fseek(file_, 0, SEEK_END) == 0) {
        long size = std::ftell(file_);
        if (size > 0) file_size_ = static_cast<uint64_t>(size);
        std::fseek(file_, 0, SEEK_SET);
    }
    unsigned char magic[2] = {0, 0};
    size_t got = std::fread(magic, 1, 2, file_);
    std::fseek(file_, 0, SEEK_SET);
    gzip_ = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (gzip_) {
        inflater_ = std::make_unique<Inflater>();
        // No bigger than the file: small inputs (tests, fuzzing) need no 1 MiB buffer.
        inflater_->in.resize(file_size_ > 0 && file_size_ < kCompressedChunk ? file_size_ : kCompressedChunk);
        // 16 + MAX_WBITS: gzip wrapper only, so a zlib or raw stream is rejected.
        if (inflateInit2(&inflater_->stream, 16 + MAX_WBITS) != Z_OK)
            fail({path, -1, -1, ""}, "cannot initialise gzip decoder");
        inflater_->initialised = true;
    }
}

ByteSource::~ByteSource() {
    if (file_) std::fclose(file_);
}

size_t ByteSource::read(std::vector<char>& out, size_t max_bytes) {
    // resize() zero-fills: for a plain file, never beyond what is left of it
    // (+1 to see the end), so small inputs do not pay for a 1 MiB window.
    if (!gzip_ && file_size_ > 0) {
        uint64_t left = file_size_ - std::min(file_size_, consumed_);
        if (left + 1 < max_bytes) max_bytes = static_cast<size_t>(left + 1);
    }
    size_t old = out.size();
    out.resize(old + max_bytes);
    size_t got = gzip_ ? read_gzip(out.data() + old, max_bytes) : read_plain(out.data() + old, max_bytes);
    out.resize(old + got);
    produced_ += got;
    return got;
}

size_t ByteSource::read_into(char* dst, size_t max_bytes) {
    size_t got = gzip_ ? read_gzip(dst, max_bytes) : read_plain(dst, max_bytes);
    produced_ += got;
    return got;
}

size_t ByteSource::read_plain(char* dst, size_t n) {
    size_t got = std::fread(dst, 1, n, file_);
    if (got == 0 && std::ferror(file_)) fail({path_, -1, static_cast<int64_t>(consumed_), ""}, "read error");
    consumed_ += got;
    return got;
}

size_t ByteSource::read_gzip(char* dst, size_t n) {
    z_stream& zs = inflater_->stream;
    zs.next_out = reinterpret_cast<Bytef*>(dst);
    zs.avail_out = static_cast<uInt>(n);
    while (zs.avail_out > 0 && !gzip_done_) {
        if (zs.avail_in == 0) {
            size_t got = std::fread(inflater_->in.data(), 1, inflater_->in.size(), file_);
            consumed_ += got;
            if (got == 0) {
                fail({path_, -1, static_cast<int64_t>(produced_ + (n - zs.avail_out)), ""},
                     "truncated gzip stream (file ends before the end of the compressed data)");
            }
            zs.next_in = inflater_->in.data();
            zs.avail_in = static_cast<uInt>(got);
        }
        int rc = inflate(&zs, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            // Concatenated gzip members are legal; continue with the next one if any.
            if (zs.avail_in == 0) {
                int c = std::fgetc(file_);
                if (c == EOF) {
                    gzip_done_ = true;
                    break;
                }
                std::ungetc(c, file_);
            }
            inflateReset(&zs);
            continue;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            fail({path_, -1, static_cast<int64_t>(produced_ + (n - zs.avail_out)), ""},
                 std::string("corrupt gzip data: ") + (zs.msg ? zs.msg : "inflate failed"));
        }
    }
    return n - zs.avail_out;
}

std::string read_whole_file(const std::string& path) {
    ByteSource src(path);
    std::vector<char> buf;
    while (src.read(buf, 1 << 20) > 0) {
    }
    return std::string(buf.begin(), buf.end());
}

std::string read_file_head(const std::string& path, size_t max_bytes) {
    ByteSource src(path);
    std::vector<char> head;
    while (head.size() < max_bytes && src.read(head, max_bytes - head.size()) > 0) {
    }
    return std::string(head.begin(), head.end());
}

bool file_is_gzip(const std::string& path) {
    ByteSource src(path);
    return src.is_gzip();
}

}  // namespace mimic
