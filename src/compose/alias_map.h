// The consistent renaming behind `mimic obfuscate`: each original string gets
// one alias of its kind (label_3, op_2, file_1, ...), the same in every trace
// obfuscated with the same map, so several ranks' traces still agree and
// the owner can translate a report on the shared trace back.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mimic::compose {

class AliasMap {
public:
    // The alias of `original` as a `kind` ("label", "op", "fn", "file", "pg", "str", "class", "type").
    const std::string& alias(const std::string& original, std::string_view kind);
    size_t size() const { return entries_.size(); }

    // JSON: {"format": "mimic-obfuscation-map", "version": 1, "aliases": [{alias, original, kind}]}.
    // Throws mimic::Error naming the file on anything else.
    static AliasMap read(const std::string& path);
    void write(const std::string& path) const;

    // `text` with every alias this map made replaced by its original (whole
    // tokens only: label_1 is not the start of label_12).
    std::string reveal(std::string_view text) const;

    struct Entry {
        std::string alias;
        std::string original;
        std::string kind;
    };
    const std::vector<Entry>& entries() const { return entries_; }

private:
    std::vector<Entry> entries_;
    std::unordered_map<std::string, size_t> by_original_;  // kind + '\0' + original -> entry
    std::unordered_map<std::string, size_t> by_alias_;
    std::map<std::string, uint64_t, std::less<>> next_number_;  // per kind
};

}  // namespace mimic::compose
