// The rewriting commands on real traces: the JSON document gives back what it
// read, obfuscation leaves no owner string and changes nothing else a tool
// reads, a cut is a valid ET of the same schema holding exactly its region.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "compose/alias_map.h"
#include "compose/cut.h"
#include "compose/et_document.h"
#include "compose/obfuscate.h"
#include "compose/obfuscate_names.h"
#include "io/trace_loader.h"
#include "support/byte_source.h"
#include "test_support.h"

namespace mimic {
namespace {

using compose::EtDocument;
using compose::JsonValue;

const std::vector<std::string> kEts = {
    "pytorch/linear_et.json.gz",          "pytorch/chakra_sample_1.0.2.json.gz",  "pytorch/resnet_1gpu_et_1.0.3.json.gz",
    "pytorch/resnet_et.json.gz",          "pytorch/resnet_1gpu_et_1.1.1.json.gz", "pytorch/pt2/pt2_et.json"};

std::string scratch(const std::string& name) { return testing::scratch_dir("compose_rewrite") + "/" + name; }

// What the readers make of a trace, as one comparable text: every node's
// name, parent, and its inputs' and outputs' kinds and shapes.
std::string digest(const Trace& t, bool names = true) {
    std::string out = t.schema_version + "\n";
    for (NodeIndex i : t.execution_order()) {
        const Node& n = t.nodes[i.value];
        out += std::to_string(n.id.value) + " " + (names ? std::string(t.name(n)) : "") + " p" +
               std::to_string(t.parent_of(i) == kNoNode ? 0 : t.nodes[t.parent_of(i).value].id.value) + " [";
        for (ValueRange r : {n.inputs, n.outputs}) {
            for_each_tensor_index(t, r, [&](uint32_t k) {
                const TensorMeta& tm = t.tensors[k];
                out += "(";
                for (uint32_t d = 0; d < tm.rank; ++d) out += std::to_string(t.shape(tm)[d]) + ",";
                out += ")";
            });
            out += "|";
        }
        out += "]\n";
    }
    return out;
}

void collect_strings(const JsonValue& v, std::set<std::string>& out) {
    if (v.is_string()) out.insert(v.as_string());
    for (const JsonValue& item : v.items()) collect_strings(item, out);
    for (const JsonValue::Member& m : v.members()) collect_strings(m.second, out);
}

TEST(ComposeJson, EveryRealEtReadsBackTheSameAfterAWrite) {
    for (const std::string& rel : kEts) {
        MIMIC_REQUIRE_TRACE(rel);
        EtDocument doc = EtDocument::read(testing::trace_path(rel));
        std::string out = scratch("roundtrip.json.gz");
        doc.write(out);
        Trace before = load_trace(testing::trace_path(rel));
        Trace after = load_trace(out);
        EXPECT_EQ(digest(before), digest(after)) << rel;
        EXPECT_EQ(before.values.size(), after.values.size()) << rel;
        // Writing what was read gives the same text again.
        EXPECT_EQ(compose::to_json_text(doc.root()), compose::to_json_text(EtDocument::read(out).root())) << rel;
    }
}

TEST(ComposeObfuscate, NamesFollowTheirKind) {
    using compose::classify_name;
    using compose::NameKind;
    EXPECT_EQ(classify_name("aten::addmm"), NameKind::FrameworkOp);
    EXPECT_EQ(classify_name("c10d::allreduce_"), NameKind::FrameworkOp);
    EXPECT_EQ(classify_name("ProfilerStep#13"), NameKind::FrameworkLabel);
    EXPECT_EQ(classify_name("gloo:all_reduce"), NameKind::FrameworkLabel);
    EXPECT_EQ(classify_name("[memory]"), NameKind::FrameworkLabel);
    EXPECT_EQ(classify_name("autograd::engine::evaluate_function: AddmmBackward0"), NameKind::AutogradNode);
    EXPECT_EQ(classify_name("Optimizer.step#AcmeOpt.step"), NameKind::OptimizerLabel);
    EXPECT_EQ(classify_name("acme_ops::fused_scale"), NameKind::CustomOp);
    EXPECT_EQ(classify_name("## forward ##"), NameKind::UserLabel);
    EXPECT_EQ(classify_name("nn.Module: AcmeEncoder"), NameKind::UserLabel);
    // Complex dtypes are written as templates; renaming them left the replay
    // a list where the op wants a tensor.
    EXPECT_TRUE(compose::is_plain_type("Tensor(c10::complex<float>)"));
    EXPECT_TRUE(compose::is_plain_type("GenericList[Tensor(c10::complex<double>),Tensor(c10::Half)]"));
    EXPECT_FALSE(compose::is_plain_type("__torch__.acme.Block"));
    std::unordered_set<std::string> ops = {"addmm", "maxpool2dwithindices"};
    EXPECT_TRUE(compose::autograd_function_is_builtin("AddmmBackward0", ops));
    EXPECT_TRUE(compose::autograd_function_is_builtin("MaxPool2DWithIndicesBackward0", ops));
    EXPECT_TRUE(compose::autograd_function_is_builtin("torch::autograd::AccumulateGrad", ops));
    EXPECT_FALSE(compose::autograd_function_is_builtin("AcmeScaleFunctionBackward", ops));
    EXPECT_EQ(compose::anonymize_schema("acme::fused(Tensor(a!) self, int[2] acme_dims=[1, 2], *, float? eps=None) -> (Tensor values, Tensor idx)",
                                        "obf::op_1"),
              "obf::op_1(Tensor(a!) arg0, int[2] arg1, *, float? arg2) -> (Tensor out0, Tensor out1)");
}

// The strings PyTorch itself writes, which may stay: ATen/c10d/prim operator
// names, schemas, type strings, the arguments of those operators, devices
// and placeholders, and labels of PyTorch's own code.
bool pytorch_string(const std::string& s, const std::set<std::string>& operator_strings) {
    if (operator_strings.count(s)) return true;
    for (const char* prefix : {"ProfilerStep#", "[pytorch|profiler|", "autograd::engine::evaluate_function: ", "gloo:", "nccl:",
                               "Optimizer.step#SGD", "Optimizer.zero_grad#SGD", "torch::autograd::", "Torch-Compiled Region"})
        if (s.rfind(prefix, 0) == 0) return true;
    return s.empty() || s == "cpu" || s.rfind("cuda", 0) == 0 || (s.front() == '<' && s.back() == '>') ||
           compose::is_plain_type(s);
}

std::set<std::string> operator_strings(const EtDocument& doc) {
    std::set<std::string> out;
    for (const JsonValue& node : doc.nodes()) {
        std::string name(EtDocument::name(node));
        compose::NameKind kind = compose::classify_name(name);
        bool op = kind == compose::NameKind::FrameworkOp;
        if (!op && kind != compose::NameKind::FrameworkLabel) continue;
        out.insert(name);
        if (const JsonValue* schema = EtDocument::field(node, "op_schema"); schema && schema->is_string())
            out.insert(schema->as_string());
        for (const char* side : {"inputs", "outputs"})
            if (const JsonValue* v = node.find(side)) collect_strings(*v, out);
    }
    // The attrs' own names and types, and the values PyTorch writes in them.
    for (const JsonValue& node : doc.nodes()) {
        const JsonValue* attrs = node.find("attrs");
        if (!attrs) continue;
        for (const JsonValue& a : attrs->items()) {
            for (const char* key : {"name", "type"})
                if (const JsonValue* v = a.find(key); v && v->is_string()) out.insert(v->as_string());
            const JsonValue* name = a.find("name");
            const JsonValue* value = a.find("value");
            if (!name || !value || !value->is_string()) continue;
            for (const char* plain : {"kernel_backend", "collective_name", "dtype", "in_split_size", "out_split_size", "tensor_range"})
                if (name->as_string() == plain) out.insert(value->as_string());
            if (value->as_string() == "default_pg" || (!value->as_string().empty() && value->as_string().find_first_not_of("0123456789") == std::string::npos))
                out.insert(value->as_string());
        }
    }
    return out;
}

TEST(ComposeObfuscate, NoOwnerStringOfARealEtSurvivesAndToolsReadTheSameGraph) {
    for (const std::string& rel : kEts) {
        MIMIC_REQUIRE_TRACE(rel);
        const std::string in = testing::trace_path(rel);
        EtDocument original = EtDocument::read(in);
        EtDocument doc = EtDocument::read(in);
        compose::AliasMap map;
        compose::obfuscate_trace(doc, map);
        std::string out = scratch("obfuscated.json.gz");
        doc.write(out);
        const std::string text = read_whole_file(out);
        std::set<std::string> strings;
        collect_strings(original.root(), strings);
        const std::set<std::string> allowed = operator_strings(original);
        for (const std::string& s : strings) {
            if (pytorch_string(s, allowed) || s == original.schema()) continue;
            if (const JsonValue* t = original.root().find("time"); t && t->is_string() && t->as_string() == s) continue;
            EXPECT_EQ(text.find(compose::to_json_text(JsonValue::of_string(s))), std::string::npos)
                << rel << ": '" << s << "' is still in the obfuscated trace";
        }
        // Same graph, same shapes; only names of renamed nodes differ.
        EXPECT_EQ(digest(load_trace(in), false), digest(load_trace(out), false)) << rel;
        // The map translates every alias back.
        for (const compose::AliasMap::Entry& e : map.entries()) EXPECT_EQ(map.reveal("x " + e.alias + " y"), "x " + e.original + " y");
    }
}

TEST(ComposeObfuscate, SharedMapKeepsAliasesAcrossTracesAndRefusesASecondPass) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    MIMIC_REQUIRE_TRACE("pytorch/resnet_1gpu_et_1.0.3.json.gz");
    compose::AliasMap map;
    EtDocument a = EtDocument::read(testing::trace_path("pytorch/resnet_et.json.gz"));
    compose::obfuscate_trace(a, map);
    const std::string map_path = scratch("map.json");
    map.write(map_path);
    compose::AliasMap again = compose::AliasMap::read(map_path);
    EtDocument b = EtDocument::read(testing::trace_path("pytorch/resnet_1gpu_et_1.0.3.json.gz"));
    compose::obfuscate_trace(b, again);
    EXPECT_EQ(again.size(), map.size());  // "## forward ##" and the others: the same aliases
    std::string twice = testing::error_message_of([&] { compose::obfuscate_trace(a, map); });
    EXPECT_NE(twice.find("obfuscated already"), std::string::npos) << twice;
    EtDocument c = EtDocument::read(testing::trace_path("pytorch/resnet_et.json.gz"));
    std::string bad = testing::error_message_of([&] { compose::obfuscate_trace(c, map, {"(["}); });
    EXPECT_NE(bad.find("--keep"), std::string::npos) << bad;
    std::string not_map = testing::error_message_of([&] { compose::AliasMap::read(testing::trace_path("pytorch/pt2/pt2_et.json")); });
    EXPECT_NE(not_map.find("not an obfuscation map"), std::string::npos) << not_map;
}

TEST(ComposeCut, ASubtreeIsAValidEtOfTheSameSchemaWithExactlyItsRegion) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    const std::string in = testing::trace_path("pytorch/resnet_et.json.gz");
    Trace full = load_trace(in);
    EtDocument doc = EtDocument::read(in);
    compose::CutStats s = compose::cut_trace(doc, {compose::CutSelection::Mode::Subtree, "## forward ##"});
    const std::string out = scratch("forward.json.gz");
    doc.write(out);
    Trace cut = load_trace(out);
    cut.finalize(Trace::ParentLinks::Fail);  // every parent link names a node of the cut
    EXPECT_EQ(cut.schema_version, full.schema_version);
    // The region: the first "## forward ##" and everything below it, plus the roots above it.
    NodeIndex label = kNoNode;
    for (NodeIndex i : full.execution_order())
        if (full.name(full.nodes[i.value]) == "## forward ##") {
            label = i;
            break;
        }
    ASSERT_NE(label, kNoNode);
    size_t below = 0;
    std::vector<NodeIndex> stack{label};
    while (!stack.empty()) {
        NodeIndex n = stack.back();
        stack.pop_back();
        ++below;
        for (const NodeIndex* c = full.children_begin(n); c != full.children_end(n); ++c) stack.push_back(*c);
    }
    size_t roots = 0;
    for (const Node& n : cut.nodes) roots += compose::is_root_label(cut.name(n)) ? 1 : 0;
    EXPECT_EQ(cut.nodes.size(), below + roots);
    EXPECT_EQ(s.nodes_after, cut.nodes.size());
    EXPECT_GT(s.external_tensors, 0u);  // the parameters and the input batch
    // The forward's activations that backward reads after it: listed, and read back for replay.
    EXPECT_GT(s.live_out_tensors, 0u);
    EXPECT_EQ(cut.live_out_tensors.size(), s.live_out_tensors);
    std::set<std::pair<uint64_t, uint64_t>> made_in_cut;
    for (const Node& n : cut.nodes)
        for_each_tensor_index(cut, n.outputs, [&](uint32_t k) {
            made_in_cut.insert({cut.tensors[k].tensor_id, cut.tensors[k].storage_id});
        });
    for (const auto& t : cut.live_out_tensors) EXPECT_TRUE(made_in_cut.count(t)) << t.first;
}

TEST(ComposeCut, OpsRangesAndIterationsSelectWhatTheySay) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_1gpu_et_1.1.1.json.gz");
    const std::string in = testing::trace_path("pytorch/resnet_1gpu_et_1.1.1.json.gz");
    EtDocument doc = EtDocument::read(in);
    compose::CutStats s = compose::cut_trace(doc, {compose::CutSelection::Mode::Ops, "^aten::conv2d$"});
    for (const JsonValue& n : doc.nodes()) {
        std::string name(EtDocument::name(n));
        EXPECT_TRUE(compose::is_root_label(name) || name.find("conv") != std::string::npos ||
                    name.find("convolution") != std::string::npos || name.rfind("aten::", 0) == 0)
            << name;
    }
    EXPECT_GT(s.regions, 10u);
    EtDocument range = EtDocument::read(in);
    std::vector<int64_t> ids;
    for (const JsonValue& n : range.nodes()) ids.push_back(EtDocument::id(n));
    std::sort(ids.begin(), ids.end());
    ASSERT_GT(ids.size(), 300u);
    const int64_t first = ids[200], last = ids[300];
    compose::cut_trace(range, {compose::CutSelection::Mode::Nodes, std::to_string(first) + ".." + std::to_string(last)});
    size_t in_range = 0;
    for (const JsonValue& n : range.nodes()) {
        if (compose::is_root_label(EtDocument::name(n))) continue;
        EXPECT_GE(EtDocument::id(n), first);
        in_range += EtDocument::id(n) <= last ? 1 : 0;
    }
    EXPECT_EQ(in_range, 101u);  // every id of the range, and below them only later ids
    EtDocument step = EtDocument::read(in);
    compose::CutStats it = compose::cut_trace(step, {compose::CutSelection::Mode::Iteration, "0"});
    EXPECT_EQ(it.description, "iteration ProfilerStep#6");  // the first of ProfilerStep#6..#8
    EtDocument none = EtDocument::read(in);
    std::string e = testing::error_message_of([&] { compose::cut_trace(none, {compose::CutSelection::Mode::Iteration, "99"}); });
    EXPECT_NE(e.find("no iteration '99' (the trace has 3 ProfilerStep labels)"), std::string::npos) << e;
    if (std::filesystem::exists(testing::trace_path("pytorch/linear_et.json.gz"))) {
        EtDocument unlabelled = EtDocument::read(testing::trace_path("pytorch/linear_et.json.gz"));
        e = testing::error_message_of([&] { compose::cut_trace(unlabelled, {compose::CutSelection::Mode::Iteration, "0"}); });
        EXPECT_NE(e.find("no ProfilerStep"), std::string::npos) << e;
    }
    e = testing::error_message_of([&] { compose::cut_trace(none, {compose::CutSelection::Mode::Nodes, "9..3"}); });
    EXPECT_NE(e.find("A <= B"), std::string::npos) << e;
    e = testing::error_message_of([&] { compose::cut_trace(none, {compose::CutSelection::Mode::Subtree, "## nothing ##"}); });
    EXPECT_NE(e.find("no node is named"), std::string::npos) << e;
}

TEST(ComposeCut, ATensorWithNoProducerAndNoShapeIsRefusedNamingItsNode) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    EtDocument doc = EtDocument::read(testing::trace_path("pytorch/linear_et.json.gz"));
    // Lose the shapes of the first aten::addmm, as a damaged trace would.
    int64_t victim = -1;
    for (JsonValue& n : doc.nodes())
        if (EtDocument::name(n) == "aten::addmm") {
            *doc.inputs(n).shapes = JsonValue::of_string("");
            victim = EtDocument::id(n);
            break;
        }
    ASSERT_GE(victim, 0);
    std::string e = testing::error_message_of(
        [&] { compose::cut_trace(doc, {compose::CutSelection::Mode::Subtree, std::to_string(victim)}); });
    EXPECT_NE(e.find("node " + std::to_string(victim)), std::string::npos) << e;
    EXPECT_NE(e.find("orphan"), std::string::npos) << e;
}

// cut, scale and obfuscate rewrite an ET's JSON: a Chakra file is named as one.
// tests/data/observer_failures_1.13: torch 1.13's observer failed on a TransformerEncoder's
// nested-tensor ops (records of id 0, calls naming parents it never wrote). The JSON document
// mends it as the reader does, so a rewrite is a clean ET of the same tree, and a cut works.
TEST(ComposeDocument, ATraceTheObserverBrokeIsMendedAsTheReaderMendsIt) {
    const std::string path = std::string(MIMIC_SOURCE_DIR) + "/tests/data/observer_failures_1.13/et.json.gz";
    EtDocument doc = EtDocument::read(path);
    ASSERT_EQ(doc.warnings().size(), 1u);
    EXPECT_NE(doc.warnings()[0].find("3 not written at all"), std::string::npos) << doc.warnings()[0];
    const std::string out = scratch("mended.json");
    doc.write(out);
    const Trace read_mended = load_trace(path);
    const Trace rewritten = load_trace(out);
    EXPECT_TRUE(rewritten.warnings.empty()) << rewritten.warnings.front().message;
    EXPECT_EQ(digest(rewritten), digest(read_mended));
    EtDocument again = EtDocument::read(path);
    const compose::CutStats s = compose::cut_trace(again, {compose::CutSelection::Mode::Ops, "^aten::addmm$"});
    EXPECT_GT(s.regions, 0u);
}

// tests/data/observer_open_at_stop_1.13: the observer stopped inside the label
// around the step, which it therefore never wrote; a cut of the step works.
TEST(ComposeDocument, ATraceStoppedInsideALabelIsMendedAsTheReaderMendsIt) {
    const std::string path = std::string(MIMIC_SOURCE_DIR) + "/tests/data/observer_open_at_stop_1.13/label_et.json.gz";
    EtDocument doc = EtDocument::read(path);
    ASSERT_EQ(doc.warnings().size(), 1u);
    const std::string out = scratch("open_at_stop.json");
    doc.write(out);
    const Trace rewritten = load_trace(out);
    EXPECT_TRUE(rewritten.warnings.empty()) << rewritten.warnings.front().message;
    EXPECT_EQ(digest(rewritten), digest(load_trace(path)));
    EtDocument again = EtDocument::read(path);
    const compose::CutStats s = compose::cut_trace(again, {compose::CutSelection::Mode::Ops, "^aten::linear$"});
    EXPECT_GT(s.regions, 0u);
}

TEST(ComposeDocument, AChakraFileIsRefusedAsOne) {
    MIMIC_REQUIRE_TRACE("chakra/feeder_sample.0.et");
    const std::string e = testing::error_message_of([] { compose::EtDocument::read(testing::trace_path("chakra/feeder_sample.0.et")); });
    EXPECT_NE(e.find("feeder_sample.0.et: a Chakra protobuf trace, not an execution trace"), std::string::npos) << e;
}

}  // namespace
}  // namespace mimic
