#include "compose/obfuscate.h"

#include <array>
#include <unordered_set>

#include "compose/obfuscate_names.h"
#include "compose/owner_names.h"
#include "support/error.h"

namespace mimic::compose {
namespace {

// Node fields that hold ids, numbers or PyTorch's own words.
constexpr std::array<std::string_view, 16> kKnownNodeKeys = {
    "id", "name", "parent", "ctrl_deps", "fw_parent", "seq_id", "scope", "tid", "fw_tid", "rf_id",
    "op_schema", "inputs", "outputs", "attrs", "input_shapes", "output_shapes"};

// String attributes whose values are PyTorch's vocabulary, not the owner's.
constexpr std::array<std::string_view, 6> kPlainStringAttrs = {"op_schema", "kernel_backend", "tensor_range",
                                                               "collective_name", "dtype", "in_split_size"};

// "cpu", "cuda:0", "<None>", "<Object>": device strings and the observer's placeholders.
bool is_placeholder(std::string_view s) {
    if (s.empty()) return true;
    if (s.size() > 2 && s.front() == '<' && s.back() == '>') return true;
    for (std::string_view dev : {"cpu", "cuda", "meta", "mps", "xpu", "hip", "mtia", "lazy"}) {
        if (s.substr(0, dev.size()) != dev) continue;
        std::string_view rest = s.substr(dev.size());
        if (rest.empty() || (rest[0] == ':' && all_digits(rest.substr(1)))) return true;
    }
    return false;
}

class Obfuscator {
public:
    Obfuscator(EtDocument& doc, AliasMap& map, const ObfuscateOptions& options)
        : doc_(doc), map_(map), names_(map, options.keep_regex, doc.path()) {}

    ObfuscateStats run() {
        if (doc_.root().find(kObfuscatedMarker))
            fail({doc_.path(), -1, -1, kObfuscatedMarker},
                 "this trace is obfuscated already (obfuscate the original, with --map to keep the same aliases)");
        collect_aten_ops();
        collect_process_group_strings();
        for (JsonValue& node : doc_.nodes()) rewrite_node(node);
        rewrite_header();
        JsonValue marker = JsonValue::object();
        marker["version"] = JsonValue::of_int(1);
        doc_.root()[kObfuscatedMarker] = std::move(marker);
        stats_.nodes = doc_.nodes().size();
        return stats_;
    }

private:
    void collect_aten_ops() {
        for (const JsonValue& node : doc_.nodes()) names_.learn_op(EtDocument::name(node));
    }

    // Group descriptions name the owner's parallelism ("tp_group_of_team_x");
    // PyTorch's defaults and numeric group names say nothing.
    void note_group_string(const std::string& s) {
        if (!s.empty() && !all_digits(s) && s != "default_pg" && s != "undefined") group_strings_.insert(s);
    }

    void collect_process_group_strings() {
        for (JsonValue& node : doc_.nodes()) {
            for (std::string_view key : {"pg_desc", "pg_name"})
                if (const JsonValue* v = EtDocument::field(node, key); v && v->is_string()) note_group_string(v->as_string());
            if (EtDocument::name(node) != "## process_group:init ##") continue;
            visit_strings(doc_.inputs(node).values, [&](JsonValue& s) {
                if (!looks_like_json(s.as_string())) return;
                try {
                    JsonValue config = parse_json_text(s.as_string(), doc_.path());
                    walk_group_config(config, [&](JsonValue& v) { note_group_string(v.as_string()); });
                } catch (const Error&) {
                    // Not JSON after all: treated as any string argument.
                }
            });
        }
    }

    static bool looks_like_json(const std::string& s) { return !s.empty() && (s.front() == '[' || s.front() == '{'); }

    // Calls fn on each pg_name / pg_desc string of a process-group config.
    template <typename Fn>
    static void walk_group_config(JsonValue& v, Fn&& fn) {
        if (v.is_array())
            for (JsonValue& item : v.items()) walk_group_config(item, fn);
        if (!v.is_object()) return;
        for (JsonValue::Member& m : v.members()) {
            if ((m.first == "pg_desc" || m.first == "pg_name") && m.second.is_string()) fn(m.second);
            else walk_group_config(m.second, fn);
        }
    }

    template <typename Fn>
    static void visit_strings(JsonValue* v, Fn&& fn) {
        if (v) compose::visit_strings(*v, fn);
    }

    void rename(JsonValue& s, std::string_view kind, bool is_name = false) {
        std::string aliased = map_.alias(s.as_string(), kind);
        s.mutable_string() = std::move(aliased);
        ++(is_name ? stats_.renamed_names : stats_.renamed_strings);
    }

    // A string a PyTorch operator received: kept, but for group descriptions.
    void rewrite_kept_string(JsonValue& s) {
        if (group_strings_.count(s.as_string())) {
            rename(s, "pg");
            return;
        }
        if (!looks_like_json(s.as_string())) return;
        try {
            JsonValue config = parse_json_text(s.as_string(), doc_.path());
            bool changed = false;
            walk_group_config(config, [&](JsonValue& v) {
                if (!group_strings_.count(v.as_string())) return;
                v.mutable_string() = map_.alias(v.as_string(), "pg");
                changed = true;
            });
            if (changed) {
                s.mutable_string() = to_json_text(config);
                ++stats_.renamed_strings;
            }
        } catch (const Error&) {
            // A string argument that only starts like JSON: left as it is.
        }
    }

    // Returns whether the node is PyTorch's (its arguments then stay).
    bool rewrite_name(JsonValue& node) {
        JsonValue* name_value = node.find("name");
        if (!name_value || !name_value->is_string()) return false;
        NameVerdict verdict = names_.rewrite(*name_value);
        if (verdict == NameVerdict::Renamed || verdict == NameVerdict::RenamedCustomOp) ++stats_.renamed_names;
        if (verdict == NameVerdict::RenamedCustomOp) {
            if (JsonValue* schema = EtDocument::field(node, "op_schema"); schema && schema->is_string() &&
                                                                        !schema->as_string().empty()) {
                schema->mutable_string() = anonymize_schema(schema->as_string(), name_value->as_string());
                ++stats_.rewritten_schemas;
            }
        }
        return verdict == NameVerdict::Kept;
    }

    void rewrite_side(const EtValues& side, bool pytorch_node) {
        visit_strings(side.values, [&](JsonValue& s) {
            if (is_placeholder(s.as_string())) return;
            if (pytorch_node) rewrite_kept_string(s);
            else rename(s, "str");
        });
        visit_strings(side.types, [&](JsonValue& s) {
            if (!is_plain_type(s.as_string())) rename(s, "type");
        });
    }

    void rewrite_attrs(JsonValue& node) {
        JsonValue* attrs = node.find("attrs");
        if (!attrs || !attrs->is_array()) return;
        for (JsonValue& attr : attrs->items()) {
            const JsonValue* attr_name = attr.is_object() ? attr.find("name") : nullptr;
            JsonValue* value = attr.is_object() ? attr.find("value") : nullptr;
            if (!attr_name || !attr_name->is_string() || !value) continue;
            const std::string& key = attr_name->as_string();
            if (key == "op_schema" || contains(kPlainStringAttrs, key) || key == "out_split_size") continue;
            visit_strings(value, [&](JsonValue& s) {
                if (s.as_string().empty() || (key == "pg_name" && all_digits(s.as_string()))) return;
                if (key == "pg_desc" || key == "pg_name") rewrite_kept_string(s);
                else rename(s, key == "kernel_file" ? "file" : "str");
            });
        }
    }

    void rewrite_node(JsonValue& node) {
        bool pytorch_node = rewrite_name(node);
        rewrite_side(doc_.inputs(node), pytorch_node);
        rewrite_side(doc_.outputs(node), pytorch_node);
        rewrite_attrs(node);
        // Fields of newer or patched observers (a stack, a module path): unknown, so renamed.
        for (JsonValue::Member& m : node.members()) {
            if (contains(kKnownNodeKeys, m.first) || m.first.rfind("input_", 0) == 0 || m.first.rfind("output_", 0) == 0)
                continue;
            visit_strings(&m.second, [&](JsonValue& s) {
                if (!s.as_string().empty()) rename(s, "str");
            });
        }
    }

    void rewrite_header() {
        for (JsonValue::Member& m : doc_.root().members()) {
            if (m.first == "nodes" || m.first == "schema" || m.first == "time") continue;
            visit_strings(&m.second, [&](JsonValue& s) {
                if (!s.as_string().empty()) rename(s, "str");
            });
        }
    }

    EtDocument& doc_;
    AliasMap& map_;
    OwnerNames names_;
    std::unordered_set<std::string> group_strings_;
    ObfuscateStats stats_;
};

}  // namespace

ObfuscateStats obfuscate_trace(EtDocument& doc, AliasMap& map, const ObfuscateOptions& options) {
    return Obfuscator(doc, map, options).run();
}

}  // namespace mimic::compose
