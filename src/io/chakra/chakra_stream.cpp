#include "io/chakra/chakra_stream.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/message_lite.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "support/error.h"

namespace mimic {

namespace {
constexpr size_t kReadChunk = 1 << 20;

// Decodes a varint32 from [p, end). Returns the number of bytes used, 0 when
// the input ends inside the varint, -1 when it is longer than 5 bytes or
// overflows 32 bits.
int decode_varint32(const unsigned char* p, const unsigned char* end, uint32_t& value) {
    uint64_t result = 0;
    for (int i = 0; i < 5; ++i) {
        if (p + i >= end) return 0;
        const unsigned char byte = p[i];
        result |= uint64_t(byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) {
            if (result > UINT32_MAX) return -1;
            value = static_cast<uint32_t>(result);
            return i + 1;
        }
    }
    return -1;
}
}  // namespace

ChakraFrameReader::ChakraFrameReader(const std::string& path) : source_(path) {
    if (source_.is_gzip() || source_.file_size() == 0) return;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;  // ByteSource opened it; fall back to reading through it
    void* p = ::mmap(nullptr, source_.file_size(), PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) return;
    ::madvise(p, source_.file_size(), MADV_SEQUENTIAL);
    map_ = static_cast<const char*>(p);
    map_size_ = source_.file_size();
    eof_ = true;
}

ChakraFrameReader::~ChakraFrameReader() {
    if (map_) ::munmap(const_cast<char*>(map_), map_size_);
}

bool ChakraFrameReader::ensure(size_t want) {
    if (map_) return map_size_ - pos_ >= want;
    while (buf_.size() - pos_ < want && !eof_) {
        // Drop consumed bytes before growing, so the buffer holds at most one
        // message plus one chunk.
        if (pos_ > 0) {
            buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(pos_));
            base_offset_ += pos_;
            pos_ = 0;
        }
        // Fixed-size reads: ByteSource sizes its output by the request, so
        // asking for a claimed length at once would allocate it unchecked.
        if (source_.read(buf_, kReadChunk) == 0) eof_ = true;
    }
    return buf_.size() - pos_ >= want;
}

void ChakraFrameReader::release_consumed() {
    // The previous message is done with (its views end here): hand the pages
    // behind it back, so a mapped file of many GB is not all resident.
    constexpr size_t kRelease = size_t(64) << 20;
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t upto = pos_ / page * page;
    if (upto - released_ < kRelease) return;
    ::madvise(const_cast<char*>(map_) + released_, upto - released_, MADV_DONTNEED);
    released_ = upto;
}

bool ChakraFrameReader::next(std::string_view& message, uint64_t& offset) {
    if (map_) release_consumed();
    offset = position();
    if (!ensure(1)) return false;
    ensure(5);
    const auto* p = reinterpret_cast<const unsigned char*>(data() + pos_);
    const auto* end = p + available();
    uint32_t length = 0;
    int used = decode_varint32(p, end, length);
    const int64_t at = static_cast<int64_t>(offset);
    if (used == 0) fail({path(), -1, at, "length"}, "file ends inside a message's length prefix (truncated file)");
    if (used < 0) fail({path(), -1, at, "length"}, "bad varint length prefix (over 5 bytes or above 2^32)");
    if (length > kMaxMessageBytes)
        fail({path(), -1, at, "length"},
             "message length " + std::to_string(length) + " bytes exceeds the 1 GiB limit (corrupt length prefix?)");
    const uint64_t body_offset = offset + static_cast<uint64_t>(used);
    // A plain file's size is known: reject an impossible length before
    // reading anything, instead of reading to the end first.
    if (!source_.is_gzip() && source_.file_size() > 0 && body_offset + length > source_.file_size())
        fail({path(), -1, at, "length"},
             "message length " + std::to_string(length) + " runs past the end of the file (" +
                 std::to_string(source_.file_size() - body_offset) + " bytes left)");
    if (!ensure(static_cast<size_t>(used) + length))
        fail({path(), -1, at, "length"},
             "message length " + std::to_string(length) + " runs past the end of the file (" +
                 std::to_string(available() - static_cast<size_t>(used)) + " bytes left)");
    message = std::string_view(data() + pos_ + static_cast<size_t>(used), length);
    pos_ += static_cast<size_t>(used) + length;
    return true;
}

ChakraFrameWriter::ChakraFrameWriter(const std::string& path) : path_(path), temp_path_(path + ".partial") {
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail({path, -1, -1, ""}, std::string("cannot create: ") + std::strerror(errno));
    file_ = std::make_unique<google::protobuf::io::FileOutputStream>(fd_, 1 << 20);
    coded_ = std::make_unique<google::protobuf::io::CodedOutputStream>(file_.get());
}

ChakraFrameWriter::~ChakraFrameWriter() {
    // Not closed: the write failed or was abandoned, so the partial file goes.
    // Errors surface through close(); here only release and remove.
    if (!file_) return;
    coded_.reset();
    file_->Close();
    ::unlink(temp_path_.c_str());
}

void ChakraFrameWriter::write(const google::protobuf::MessageLite& message) {
    const size_t size = message.ByteSizeLong();
    if (size > ChakraFrameReader::kMaxMessageBytes)
        fail({path_, -1, -1, ""}, "message of " + std::to_string(size) + " bytes is over the 1 GiB limit");
    coded_->WriteVarint32(static_cast<uint32_t>(size));
    message.SerializeWithCachedSizes(coded_.get());
}

void ChakraFrameWriter::write_bytes(std::string_view message) {
    coded_->WriteVarint32(static_cast<uint32_t>(message.size()));
    coded_->WriteRaw(message.data(), static_cast<int>(message.size()));
}

uint64_t ChakraFrameWriter::bytes_written() const {
    return coded_ ? static_cast<uint64_t>(coded_->ByteCount()) : written_;
}

void ChakraFrameWriter::close() {
    if (!file_) return;
    const bool coded_ok = !coded_->HadError();
    written_ = static_cast<uint64_t>(coded_->ByteCount());
    coded_.reset();  // flushes into file_
    const bool flushed = file_->Close();
    const int err = file_->GetErrno();
    file_.reset();
    if (!coded_ok || !flushed) {
        ::unlink(temp_path_.c_str());
        fail({path_, -1, -1, ""}, std::string("write failed: ") + (err ? std::strerror(err) : "stream error"));
    }
    // Only a complete file appears under the final name.
    if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
        const int rename_err = errno;
        ::unlink(temp_path_.c_str());
        fail({path_, -1, -1, ""}, std::string("cannot rename the finished file into place: ") + std::strerror(rename_err));
    }
}

}  // namespace mimic
