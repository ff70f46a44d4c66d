#include "compose/fleet_signature_json.h"

#include "support/error.h"
#include "support/json_file.h"

namespace mimic::fleet {
namespace {

void write_buckets(JsonWriter& w, const char* key, const std::array<double, kBuckets>& a) {
    w.key(key).begin_object();
    for (size_t b = 0; b < kBuckets; ++b) w.field(bucket_name(b), a[b]);
    w.end_object();
}

void write_hist(JsonWriter& w, const char* key, const std::array<uint64_t, kHistBuckets>& h) {
    w.key(key).begin_array();
    for (uint64_t v : h) w.value(static_cast<unsigned long long>(v));
    w.end_array();
}

simdjson::dom::element member(simdjson::dom::object o, const char* key, const std::string& file) {
    simdjson::dom::element e;
    if (o[key].get(e) != simdjson::SUCCESS) fail({file, -1, -1, key}, "missing from a signature");
    return e;
}

std::string text(simdjson::dom::object o, const char* key, const std::string& file) {
    std::string_view v;
    if (member(o, key, file).get(v) != simdjson::SUCCESS) fail({file, -1, -1, key}, "expected a string");
    return std::string(v);
}

uint64_t count(simdjson::dom::element e, const std::string& file, const char* key) {
    uint64_t v;
    if (e.get(v) != simdjson::SUCCESS) fail({file, -1, -1, key}, "expected a non-negative integer");
    return v;
}

void read_buckets(simdjson::dom::object o, const char* key, const std::string& file, std::array<double, kBuckets>& out) {
    simdjson::dom::object b;
    if (member(o, key, file).get(b) != simdjson::SUCCESS) fail({file, -1, -1, key}, "expected an object of families");
    for (size_t i = 0; i < kBuckets; ++i) {
        simdjson::dom::element e;
        if (b[bucket_name(i)].get(e) != simdjson::SUCCESS)
            fail({file, -1, -1, std::string(key) + "." + bucket_name(i)}, "missing from a signature");
        out[i] = json_number(e, file, std::string(key) + "." + bucket_name(i));
    }
}

void read_hist(simdjson::dom::object o, const char* key, const std::string& file, std::array<uint64_t, kHistBuckets>& out) {
    simdjson::dom::array a;
    if (member(o, key, file).get(a) != simdjson::SUCCESS || a.size() != kHistBuckets)
        fail({file, -1, -1, key}, "expected a list of " + std::to_string(kHistBuckets) + " counts");
    size_t i = 0;
    for (simdjson::dom::element e : a) out[i++] = count(e, file, key);
}

}  // namespace

void write_signature(JsonWriter& w, const Signature& s) {
    w.begin_object();
    w.field("format", s.format).field("schema", s.schema).field("time_source", s.time_source);
    w.field("ops", static_cast<unsigned long long>(s.ops)).field("collectives", static_cast<unsigned long long>(s.collectives));
    write_buckets(w, "time_us", s.time_us);
    write_buckets(w, "flops", s.flops);
    write_buckets(w, "bytes", s.bytes);
    write_hist(w, "gemm_flops_log2_hist", s.gemm_flops_hist);
    write_hist(w, "tensor_bytes_log2_hist", s.tensor_bytes_hist);
    w.end_object();
}

Signature read_signature(simdjson::dom::element e, const std::string& file) {
    simdjson::dom::object o;
    if (e.get(o) != simdjson::SUCCESS) fail({file, -1, -1, "signature"}, "expected an object");
    Signature s;
    s.format = text(o, "format", file);
    s.schema = text(o, "schema", file);
    s.time_source = text(o, "time_source", file);
    s.ops = count(member(o, "ops", file), file, "ops");
    s.collectives = count(member(o, "collectives", file), file, "collectives");
    read_buckets(o, "time_us", file, s.time_us);
    read_buckets(o, "flops", file, s.flops);
    read_buckets(o, "bytes", file, s.bytes);
    read_hist(o, "gemm_flops_log2_hist", file, s.gemm_flops_hist);
    read_hist(o, "tensor_bytes_log2_hist", file, s.tensor_bytes_hist);
    return s;
}

}  // namespace mimic::fleet
