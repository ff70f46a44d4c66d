#include "compose/alias_map.h"

#include <cctype>

#include "compose/json_tree.h"
#include "support/error.h"

namespace mimic::compose {
namespace {

constexpr const char* kFormat = "mimic-obfuscation-map";

bool is_token_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

const std::string& AliasMap::alias(const std::string& original, std::string_view kind) {
    std::string key = std::string(kind) + '\0' + original;
    auto found = by_original_.find(key);
    if (found != by_original_.end()) return entries_[found->second].alias;
    uint64_t& next = next_number_[std::string(kind)];
    // Custom ops keep the ns::op form, so every tool still sees an operator.
    std::string made = kind == "op" ? "obf::op_" + std::to_string(++next) : std::string(kind) + "_" + std::to_string(++next);
    entries_.push_back({made, original, std::string(kind)});
    by_original_.emplace(std::move(key), entries_.size() - 1);
    by_alias_.emplace(made, entries_.size() - 1);
    return entries_.back().alias;
}

AliasMap AliasMap::read(const std::string& path) {
    JsonValue root = read_json_file(path);
    const JsonValue* format = root.is_object() ? root.find("format") : nullptr;
    if (!format || !format->is_string() || format->as_string() != kFormat)
        fail({path, -1, -1, "format"}, std::string("not an obfuscation map (format is not \"") + kFormat + "\")");
    const JsonValue* version = root.find("version");
    if (!version || !version->is_integer() || version->as_int() != 1)
        fail({path, -1, -1, "version"}, "obfuscation map version is not 1 (written by a newer mimic?)");
    const JsonValue* aliases = root.find("aliases");
    if (!aliases || !aliases->is_array()) fail({path, -1, -1, "aliases"}, "no aliases list");
    AliasMap map;
    for (const JsonValue& e : aliases->items()) {
        const JsonValue* a = e.is_object() ? e.find("alias") : nullptr;
        const JsonValue* o = e.is_object() ? e.find("original") : nullptr;
        const JsonValue* k = e.is_object() ? e.find("kind") : nullptr;
        if (!a || !o || !k || !a->is_string() || !o->is_string() || !k->is_string())
            fail({path, -1, -1, "aliases"}, "an entry lacks the strings alias, original and kind");
        map.entries_.push_back({a->as_string(), o->as_string(), k->as_string()});
        map.by_original_.emplace(k->as_string() + '\0' + o->as_string(), map.entries_.size() - 1);
        map.by_alias_.emplace(a->as_string(), map.entries_.size() - 1);
        // Continue numbering after the largest alias of the kind.
        size_t us = a->as_string().rfind('_');
        if (us != std::string::npos) {
            uint64_t n = std::strtoull(a->as_string().c_str() + us + 1, nullptr, 10);
            uint64_t& next = map.next_number_[k->as_string()];
            if (n > next) next = n;
        }
    }
    return map;
}

void AliasMap::write(const std::string& path) const {
    JsonValue root = JsonValue::object();
    root["format"] = JsonValue::of_string(kFormat);
    root["version"] = JsonValue::of_int(1);
    JsonValue& list = root["aliases"];
    list = JsonValue::array();
    for (const Entry& e : entries_) {
        JsonValue item = JsonValue::object();
        item["alias"] = JsonValue::of_string(e.alias);
        item["original"] = JsonValue::of_string(e.original);
        item["kind"] = JsonValue::of_string(e.kind);
        list.items().push_back(std::move(item));
    }
    write_json_file(path, root, true);
}

std::string AliasMap::reveal(std::string_view text) const {
    std::string out;
    out.reserve(text.size());
    size_t i = 0;
    while (i < text.size()) {
        // Aliases start a token: "obf::op_3" or "<kind>_<n>".
        if (is_token_char(text[i]) && (i == 0 || !is_token_char(text[i - 1]))) {
            size_t end = i;
            while (end < text.size() && (is_token_char(text[end]) || (text[end] == ':' && end + 1 < text.size() && text[end + 1] == ':')))
                end += text[end] == ':' ? 2 : 1;
            auto found = by_alias_.find(std::string(text.substr(i, end - i)));
            if (found != by_alias_.end()) {
                out += entries_[found->second].original;
                i = end;
                continue;
            }
            out.append(text.substr(i, end - i));
            i = end;
            continue;
        }
        out += text[i++];
    }
    return out;
}

}  // namespace mimic::compose
