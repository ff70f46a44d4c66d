#include <array>
#include <functional>
#include <string_view>

#include "compose/obfuscate.h"
#include "compose/obfuscate_names.h"
#include "compose/owner_names.h"

namespace mimic::compose {
namespace {

// Device activity: kernels and copies, named by the libraries that run them.
constexpr std::array<std::string_view, 10> kDeviceCategories = {
    "kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "Kernel", "Memcpy", "Memset", "Runtime", "ac2g"};

// Arguments whose strings are PyTorch's words, not the owner's.
constexpr std::array<std::string_view, 5> kPlainArgs = {"Input type", "Collective name", "dtype", "kind", "Trace name"};

// Top-level fields of a profile that describe the profiler and devices.
constexpr std::array<std::string_view, 6> kPlainTopLevel = {"schemaVersion", "displayTimeUnit", "producer",
                                                            "deviceProperties", "baseTimeNanoseconds", "traceEvents"};

}  // namespace

ObfuscateStats obfuscate_profile(JsonValue& profile, AliasMap& map, const ObfuscateOptions& options,
                                 const std::string& path) {
    ObfuscateStats stats;
    OwnerNames names(map, options.keep_regex, path);
    JsonValue* events = profile.is_object() ? profile.find("traceEvents") : nullptr;
    auto rename = [&](JsonValue& s, std::string_view kind) {
        if (s.as_string().empty() || all_digits(s.as_string())) return;
        s.mutable_string() = map.alias(s.as_string(), kind);
        ++stats.renamed_strings;
    };
    if (events && events->is_array()) {
        for (JsonValue& e : events->items())
            if (const JsonValue* n = e.is_object() ? e.find("name") : nullptr; n && n->is_string()) names.learn_op(n->as_string());
        for (JsonValue& e : events->items()) {
            if (!e.is_object()) continue;
            ++stats.nodes;
            const JsonValue* cat = e.find("cat");
            const JsonValue* ph = e.find("ph");
            bool device = cat && cat->is_string() && contains(kDeviceCategories, cat->as_string());
            bool metadata = ph && ph->is_string() && ph->as_string() == "M";
            bool pytorch = true;
            if (JsonValue* name = e.find("name"); name && name->is_string() && !device && !metadata) {
                NameVerdict verdict = names.rewrite(*name);
                pytorch = verdict == NameVerdict::Kept;
                if (!pytorch) ++stats.renamed_names;
            }
            JsonValue* args = e.find("args");
            if (!args || !args->is_object()) continue;
            for (JsonValue::Member& a : args->members()) {
                if (metadata) {
                    // Thread names say "thread 7"; process names carry the script.
                    visit_strings(a.second, [&](JsonValue& s) {
                        if (s.as_string().rfind("thread ", 0) != 0) rename(s, "str");
                    });
                    continue;
                }
                if (contains(kPlainArgs, a.first) || device) continue;
                if (a.first == "Concrete Inputs" && pytorch) continue;
                visit_strings(a.second, [&](JsonValue& s) { rename(s, a.first.find("Process Group") == 0 ? "pg" : "str"); });
            }
        }
    }
    if (profile.is_object())
        for (JsonValue::Member& m : profile.members()) {
            if (contains(kPlainTopLevel, m.first)) continue;
            if (m.first == "distributedInfo") {
                visit_strings(m.second, [&](JsonValue& s) {
                    if (s.as_string() != "nccl" && s.as_string() != "gloo" && s.as_string() != "default_pg") rename(s, "pg");
                });
                continue;
            }
            visit_strings(m.second, [&](JsonValue& s) { rename(s, "str"); });
        }
    return stats;
}

ObfuscateStats obfuscate_meta(JsonValue& meta, AliasMap& map) {
    ObfuscateStats stats;
    // Which fields name the owner's things; every path does too.
    constexpr std::array<std::string_view, 5> kOwnerKeys = {"hostname", "python_executable", "pg_desc", "desc", "script"};
    std::function<void(JsonValue&, std::string_view)> walk = [&](JsonValue& v, std::string_view key) {
        if (v.is_string()) {
            const std::string& s = v.as_string();
            bool owner = contains(kOwnerKeys, key) || s.find('/') != std::string::npos ||
                         (key == "workload" && s.rfind("script:", 0) == 0);
            if (owner && !s.empty()) {
                v.mutable_string() = map.alias(s, key == "workload" || s.find('/') != std::string::npos ? "file" : "str");
                ++stats.renamed_strings;
            }
            return;
        }
        for (JsonValue& item : v.items()) walk(item, key);
        for (JsonValue::Member& m : v.members()) walk(m.second, m.first);
    };
    walk(meta, "");
    return stats;
}

}  // namespace mimic::compose
