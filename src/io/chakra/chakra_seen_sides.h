// The IOInfo sides a Chakra reader has decoded, by their three texts (values,
// shapes, types), so that a side met again is copied rather than parsed.
// Sides repeat: an op and the op it calls take the same inputs, and the same
// short sides ("[[64, 65, 0, 256, 4, 'cuda:0']]") recur all over a trace: in
// Chakra's feeder sample 73% of the long sides' bytes and 68% of the short
// sides repeat an earlier one.
//
// Lookups must cost less than the parse they save (a short side parses in
// ~1 us of instructions): the hash reads a few words of each text, the table
// is open-addressed with a power-of-two mask, and the remembered texts sit in
// big chunks rather than one allocation each.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "trace/trace.h"

namespace mimic {

class ChakraSeenSides {
public:
    // Where the first decoding of a side put its values, tensors and dims
    // (index ranges in the trace's columns) and the side's own range.
    struct Where {
        uint32_t values_begin = 0, values_end = 0, tensors_begin = 0, tensors_end = 0, dims_begin = 0, dims_end = 0;
        ValueRange out;
    };

    // The hash of three texts; equal texts hash equal. Samples at most 32
    // bytes at the start, middle and end of a long text (texts of different
    // tensors differ there: ids are spread over the whole text).
    static uint64_t hash(std::string_view values, std::string_view shapes, std::string_view types);

    // The side with these texts, or nullptr.
    const Where* find(uint64_t hash, std::string_view values, std::string_view shapes, std::string_view types);
    // Remembers a side find() did not know. Bounded: past kMaxBytes of text,
    // or after a lookup met kMaxSameHash sides of its hash (texts that agree
    // where sampled), nothing more is remembered, so no lookup walks far.
    void remember(uint64_t hash, std::string_view values, std::string_view shapes, std::string_view types,
                  const Where& where);

    static constexpr size_t kMaxBytes = size_t(32) << 20;
    static constexpr int kMaxSameHash = 8;

    // Whether to look a side up. A long side (values text of kLongBytes or
    // more) always is: parsing it costs many lookups. For a short one a
    // lookup that misses costs about what parsing it does (hashing, probing,
    // keeping a copy), so short sides pay only where most repeat: Chakra's
    // feeder sample (68% found) reads 15% faster with them, the ResNet ET as
    // mimic converts it (34%: its sides mostly name tensors of their own) 25%
    // slower. Past kTrialLookups short lookups, a trace whose short sides
    // were found less than half of the time stops looking them up.
    bool worth_looking_up(std::string_view values) const { return short_worth_ || values.size() >= kLongBytes; }
    static constexpr size_t kLongBytes = 256;
    static constexpr uint64_t kTrialLookups = 256;

private:
    struct Side {
        uint64_t hash;
        const char* text;  // values, shapes and types, one after the other, in chunks_
        uint32_t values_size, shapes_size, types_size;
        Where where;
    };
    bool same_texts(const Side& s, std::string_view values, std::string_view shapes, std::string_view types) const;
    const char* keep(std::string_view values, std::string_view shapes, std::string_view types);
    // Puts side index `side` in the first free slot from its hash's (linear probing).
    static void place(std::vector<int32_t>& slots, uint64_t hash, size_t side);
    void grow_slots();

    std::vector<Side> sides_;
    std::vector<int32_t> slots_;  // indexes into sides_, -1 empty; size a power of two, at most half full
    std::vector<std::unique_ptr<char[]>> chunks_;
    size_t chunk_used_ = 0, chunk_size_ = 0;
    size_t bytes_ = 0;
    bool crowded_ = false;  // the last find() met kMaxSameHash sides of its hash
    uint64_t short_lookups_ = 0, short_hits_ = 0;
    bool short_worth_ = true;
};

}  // namespace mimic
