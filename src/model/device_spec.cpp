#include "model/device_spec.h"

#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/error.h"
#include "support/json_file.h"

namespace mimic::model {
namespace {

double required_number(simdjson::dom::object o, const char* key, const std::string& source) {
    simdjson::dom::element e;
    if (o[key].get(e) != simdjson::SUCCESS) fail({source, -1, -1, key}, "missing");
    return json_number(e, source, key);
}

}  // namespace

double DeviceSpec::peak_flops_per_s(const std::string& dtype) const {
    if (dtype.find("Half") != std::string::npos || dtype == "half") return fp16_tflops * 1e12;
    if (dtype.find("BFloat16") != std::string::npos || dtype == "bfloat16") return bf16_tflops * 1e12;
    return fp32_tflops * 1e12;  // float (TF32 only where a trace says it was allowed: not recorded)
}

DeviceSpec parse_device_spec(const std::string& text, const std::string& source) {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(text);
    simdjson::dom::object o;
    if (parser.parse(padded).get(o) != simdjson::SUCCESS) fail({source, -1, -1, ""}, "not a JSON object");
    DeviceSpec s;
    s.source = source;
    std::string_view name;
    if (o["name"].get(name) != simdjson::SUCCESS) fail({source, -1, -1, "name"}, "missing");
    s.name = std::string(name);
    simdjson::dom::array match;
    if (o["match"].get(match) != simdjson::SUCCESS) fail({source, -1, -1, "match"}, "missing list");
    for (auto m : match) {
        std::string_view v;
        if (m.get(v) != simdjson::SUCCESS) fail({source, -1, -1, "match"}, "expected strings");
        s.match.emplace_back(v);
    }
    simdjson::dom::object peaks;
    if (o["peak_tflops"].get(peaks) != simdjson::SUCCESS) fail({source, -1, -1, "peak_tflops"}, "missing object");
    s.fp32_tflops = required_number(peaks, "fp32", source);
    s.tf32_tflops = required_number(peaks, "tf32", source);
    s.fp16_tflops = required_number(peaks, "fp16", source);
    s.bf16_tflops = required_number(peaks, "bf16", source);
    if (s.fp32_tflops <= 0) fail({source, -1, -1, "peak_tflops.fp32"}, "must be above 0");
    if (s.tf32_tflops < 0 || s.fp16_tflops < 0 || s.bf16_tflops < 0) fail({source, -1, -1, "peak_tflops"}, "must not be negative");
    s.memory_GBps = required_number(o, "memory_bandwidth_GBps", source);
    if (s.memory_GBps <= 0) fail({source, -1, -1, "memory_bandwidth_GBps"}, "must be above 0");
    s.achievable_compute = required_number(o, "achievable_compute", source);
    s.achievable_bandwidth = required_number(o, "achievable_bandwidth", source);
    if (!(s.achievable_compute > 0 && s.achievable_compute <= 1)) fail({source, -1, -1, "achievable_compute"}, "must be in (0, 1]");
    if (!(s.achievable_bandwidth > 0 && s.achievable_bandwidth <= 1)) fail({source, -1, -1, "achievable_bandwidth"}, "must be in (0, 1]");
    s.kernel_overhead_us = required_number(o, "kernel_overhead_us", source);
    if (s.kernel_overhead_us < 0) fail({source, -1, -1, "kernel_overhead_us"}, "must not be negative");
    s.interconnect_GBps = required_number(o, "interconnect_GBps", source);
    if (s.interconnect_GBps <= 0) fail({source, -1, -1, "interconnect_GBps"}, "must be above 0");
    return s;
}

DeviceSpec read_device_spec(const std::string& path) {
    std::ifstream in(path);
    if (!in) fail({path, -1, -1, ""}, "cannot open the device spec");
    std::stringstream text;
    text << in.rdbuf();
    return parse_device_spec(text.str(), path);
}

std::vector<DeviceSpec> read_device_specs(const std::string& dir) {
    std::vector<DeviceSpec> specs;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.path().extension() == ".json") specs.push_back(read_device_spec(entry.path().string()));
    return specs;
}

const DeviceSpec* match_device(const std::vector<DeviceSpec>& specs, const std::string& device_name) {
    const DeviceSpec* best = nullptr;
    size_t best_len = 0;
    for (const DeviceSpec& s : specs)
        for (const std::string& m : s.match)
            if (!m.empty() && device_name.find(m) != std::string::npos && m.size() > best_len) {
                best = &s;
                best_len = m.size();
            }
    return best;
}

}  // namespace mimic::model
