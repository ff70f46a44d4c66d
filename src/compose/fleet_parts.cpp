#include "compose/fleet_parts.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "compose/fleet_signature_json.h"
#include "support/error.h"
#include "support/json_file.h"
#include "support/json_writer.h"

namespace mimic::fleet {
namespace {

constexpr const char* kPartFormat = "mimic-fleet-part";
constexpr int kPartVersion = 1;

std::string hex(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

uint64_t unsigned_field(simdjson::dom::object o, const char* key, const std::string& path) {
    uint64_t v;
    if (o[key].get(v) != simdjson::SUCCESS) fail({path, -1, -1, key}, "expected a non-negative integer");
    return v;
}

std::string string_field(simdjson::dom::object o, const char* key, const std::string& path) {
    std::string_view v;
    if (o[key].get(v) != simdjson::SUCCESS) fail({path, -1, -1, key}, "expected a string");
    return std::string(v);
}

}  // namespace

std::string part_to_json(const FleetPart& part) {
    JsonWriter w(1);
    w.begin_object().field("format", kPartFormat).field("version", kPartVersion);
    w.field("shard", part.shard).field("shards", part.shards).field("members", static_cast<unsigned long long>(part.members));
    w.field("listing_digest", hex(part.listing_digest)).field("time_model", part.time_model);
    w.key("items").begin_array();
    for (const FleetItem& it : part.items) {
        w.begin_object().field("index", static_cast<unsigned long long>(it.index)).field("path", it.path);
        if (it.ok) {
            w.key("signature");
            write_signature(w, it.signature);
        } else {
            w.field("unreadable", it.reason);
        }
        w.end_object();
    }
    w.end_array().end_object();
    return w.str() + "\n";
}

FleetPart read_part(const std::string& path) {
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    const simdjson::dom::object o = parse_json_object_file(path, parser, text);
    FleetPart part;
    if (string_field(o, "format", path) != kPartFormat) fail({path, -1, -1, "format"}, std::string("not a fleet part (expected \"") + kPartFormat + "\")");
    if (unsigned_field(o, "version", path) != kPartVersion)
        fail({path, -1, -1, "version"}, "written by another version of mimic fleet (this one reads version " + std::to_string(kPartVersion) + ")");
    part.shard = static_cast<int>(unsigned_field(o, "shard", path));
    part.shards = static_cast<int>(unsigned_field(o, "shards", path));
    part.members = unsigned_field(o, "members", path);
    const std::string digest = string_field(o, "listing_digest", path);
    char* end = nullptr;
    part.listing_digest = std::strtoull(digest.c_str(), &end, 16);
    if (digest.empty() || *end) fail({path, -1, -1, "listing_digest"}, "expected hex digits, got '" + digest + "'");
    part.time_model = string_field(o, "time_model", path);
    simdjson::dom::array items;
    if (o["items"].get(items) != simdjson::SUCCESS) fail({path, -1, -1, "items"}, "expected a list");
    for (simdjson::dom::element e : items) {
        simdjson::dom::object io;
        if (e.get(io) != simdjson::SUCCESS) fail({path, -1, -1, "items"}, "expected objects");
        FleetItem it;
        it.index = unsigned_field(io, "index", path);
        it.path = string_field(io, "path", path);
        simdjson::dom::element sig;
        if (io["signature"].get(sig) == simdjson::SUCCESS) {
            it.signature = read_signature(sig, path);
            it.ok = true;
        } else {
            it.reason = string_field(io, "unreadable", path);
        }
        part.items.push_back(std::move(it));
    }
    return part;
}

std::vector<FleetItem> merge_parts(const std::vector<FleetPart>& parts, const std::vector<std::string>& paths, std::string* time_model) {
    if (parts.empty()) fail({"fleet merge", -1, -1, ""}, "no parts given");
    const FleetPart& first = parts.front();
    std::vector<int> shard_seen(static_cast<size_t>(std::max(first.shards, 1)), -1);
    for (size_t p = 0; p < parts.size(); ++p) {
        const FleetPart& part = parts[p];
        if (part.shards != first.shards || part.members != first.members || part.listing_digest != first.listing_digest)
            fail({paths[p], -1, -1, ""}, "is a part of another run than " + paths[0] + " (shards, member count or listing differ)");
        if (part.time_model != first.time_model)
            fail({paths[p], -1, -1, "time_model"}, "timed untimed traces with '" + part.time_model + "', " + paths[0] + " with '" +
                                                       first.time_model + "'");
        if (part.shard < 0 || part.shard >= part.shards) fail({paths[p], -1, -1, "shard"}, "out of range");
        int& seen = shard_seen[static_cast<size_t>(part.shard)];
        if (seen >= 0) fail({paths[p], -1, -1, "shard"}, "shard " + std::to_string(part.shard) + " is also " + paths[static_cast<size_t>(seen)]);
        seen = static_cast<int>(p);
    }
    std::string missing;
    for (size_t s = 0; s < shard_seen.size(); ++s)
        if (shard_seen[s] < 0) missing += (missing.empty() ? "" : ", ") + std::to_string(s) + "/" + std::to_string(first.shards);
    if (!missing.empty()) fail({"fleet merge", -1, -1, ""}, "missing shards: " + missing);

    std::vector<FleetItem> all;
    all.reserve(first.members);
    for (const FleetPart& part : parts) all.insert(all.end(), part.items.begin(), part.items.end());
    std::sort(all.begin(), all.end(), [](const FleetItem& a, const FleetItem& b) { return a.index < b.index; });
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i].index != i) fail({"fleet merge", -1, -1, ""}, "member " + std::to_string(i) + " of the listing is in no part, or in two");
    if (all.size() != first.members)
        fail({"fleet merge", -1, -1, ""}, "the parts hold " + std::to_string(all.size()) + " members of " + std::to_string(first.members));
    if (time_model) *time_model = first.time_model;
    return all;
}

}  // namespace mimic::fleet
