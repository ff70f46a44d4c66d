// PyTorch ET -> Chakra: the real traces converted and read back with the
// Chakra reader, and small hand-built traces for what the shared traces do
// not hold (NCCL kernels, send/recv, several threads).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "io/chakra/chakra_convert.h"
#include "io/chakra/chakra_flops.h"
#include "io/chakra/chakra_reader.h"
#include "io/chakra/chakra_writer.h"
#include "io/kineto/kineto_reader.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "test_support.h"

namespace mimic {
namespace {

std::string scratch_prefix(const std::string& name) { return testing::scratch_dir("chakra_convert") + "/" + name; }

Trace read_back(const ChakraWriteStats& stats) {
    ChakraReadOptions options;
    options.progress = false;
    return read_chakra(stats.path, options);
}

ChakraWriteStats write(const Trace& t, const std::string& name) {
    ChakraWriteOptions options;
    options.progress = false;
    return write_chakra(t, scratch_prefix(name), options);
}

const Attr* attr(const Trace& t, const Node& n, std::string_view name) { return t.find_attr(n, name); }
int64_t int_attr(const Trace& t, const Node& n, std::string_view name) {
    const Attr* a = attr(t, n, name);
    return a ? a->value.payload.i : INT64_MIN;
}
bool bool_attr(const Trace& t, const Node& n, std::string_view name) {
    const Attr* a = attr(t, n, name);
    return a && a->value.kind == ValueKind::Bool && a->value.payload.b;
}

bool has_kernel_backend(const Trace& t, const Node& n) {
    const Attr* a = attr(t, n, "kernel_backend");
    return a && a->value.kind == ValueKind::String && !t.str(a->value.payload.str).empty();
}

// Every dependency names a node of the trace that comes earlier (so the
// graph is acyclic), and Kahn's algorithm visits every node.
void expect_valid_dag(const Trace& t) {
    std::map<uint64_t, size_t> index;
    for (size_t i = 0; i < t.nodes.size(); ++i) index[t.nodes[i].id.value] = i;
    ASSERT_EQ(index.size(), t.nodes.size()) << "duplicate node ids";
    std::vector<size_t> indegree(t.nodes.size(), 0);
    std::vector<std::vector<size_t>> users(t.nodes.size());
    for (size_t i = 0; i < t.nodes.size(); ++i) {
        const Node& n = t.nodes[i];
        for (ValueRange r : {n.deps, n.data_deps}) {
            for (uint32_t k = 0; k < r.count; ++k) {
                const uint64_t dep = t.edges[r.begin + k].value;
                auto it = index.find(dep);
                ASSERT_NE(it, index.end()) << "node " << n.id.value << " depends on missing " << dep;
                EXPECT_LT(dep, n.id.value) << "node " << n.id.value;
                ++indegree[i];
                users[it->second].push_back(i);
            }
        }
    }
    std::vector<size_t> ready;
    for (size_t i = 0; i < indegree.size(); ++i)
        if (indegree[i] == 0) ready.push_back(i);
    size_t visited = 0;
    while (!ready.empty()) {
        const size_t i = ready.back();
        ready.pop_back();
        ++visited;
        for (size_t u : users[i])
            if (--indegree[u] == 0) ready.push_back(u);
    }
    EXPECT_EQ(visited, t.nodes.size()) << "dependency cycle";
}

struct EtCase {
    const char* file;
    size_t comm_coll;
};

class ConvertRealEt : public ::testing::TestWithParam<EtCase> {};

TEST_P(ConvertRealEt, ReadsBackAsAValidChakraTrace) {
    const EtCase& c = GetParam();
    MIMIC_REQUIRE_TRACE(c.file);
    const Trace et = load_trace(testing::trace_path(c.file));
    const ChakraWriteStats stats = write(et, std::string("real_") + std::to_string(std::hash<std::string>()(c.file)));
    const Trace out = read_back(stats);
    EXPECT_TRUE(out.warnings.empty()) << out.warnings.front().message;
    ASSERT_EQ(out.nodes.size(), stats.nodes);
    ASSERT_GT(out.nodes.size(), 0u);
    expect_valid_dag(out);

    // Header: the ET's schema and pid in the metadata.
    EXPECT_EQ(out.schema_version, kChakraSchemaVersion);
    ASSERT_FALSE(out.metadata_attrs.empty());
    EXPECT_EQ(out.str(out.metadata_attrs[0].name), "schema");
    EXPECT_EQ(out.str(out.metadata_attrs[0].value.payload.str), et.schema_version);
    EXPECT_EQ(out.pid, et.pid);

    size_t coll = 0;
    std::set<uint64_t> emitted;
    for (const Node& n : out.nodes) {
        EXPECT_TRUE(n.chakra_type == ChakraNodeType::Comp || n.chakra_type == ChakraNodeType::CommColl ||
                    n.chakra_type == ChakraNodeType::CommSend || n.chakra_type == ChakraNodeType::CommRecv)
            << "node " << n.id.value;
        // No profile: host ops only, and communication is never a CPU op (ASTRA-sim hangs on one).
        EXPECT_EQ(bool_attr(out, n, "is_cpu_op"), n.chakra_type == ChakraNodeType::Comp) << "node " << n.id.value;
        EXPECT_NE(attr(out, n, "tensor_size"), nullptr);
        coll += n.chakra_type == ChakraNodeType::CommColl;
        if (n.chakra_type == ChakraNodeType::CommColl) {
            EXPECT_GE(int_attr(out, n, "comm_type"), 0) << "node " << n.id.value;
            EXPECT_GE(int_attr(out, n, "comm_size"), 0) << "node " << n.id.value;
        }
        // Same name and schema as the ET node of that id; a collective the
        // c10d call before it queued takes the id after the call's.
        NodeIndex src = et.find(n.id);
        ASSERT_NE(src, kNoNode);
        if (n.chakra_type == ChakraNodeType::CommColl && out.name(n) != et.name(et.nodes[src.value])) {
            ASSERT_EQ(n.data_deps.count, 1u) << "node " << n.id.value;
            EXPECT_EQ(out.edges[n.data_deps.begin].value, n.id.value - 1) << "node " << n.id.value;
            EXPECT_EQ(n.deps.count, 0u) << "node " << n.id.value;
            src = et.find(NodeId(n.id.value - 1));
            ASSERT_NE(src, kNoNode);
        }
        emitted.insert(et.nodes[src.value].id.value);
        EXPECT_EQ(out.name(n), et.name(et.nodes[src.value]));
        EXPECT_EQ(out.str(n.op_schema), et.str(et.nodes[src.value].op_schema));
    }
    EXPECT_EQ(coll, c.comm_coll);

    // The cut: no Chakra node lies inside another, and every ET operator is
    // a Chakra node or inside one.
    for (uint32_t i = 0; i < et.nodes.size(); ++i) {
        bool inside = false;
        for (NodeIndex p = et.parent_of(NodeIndex(i)); p != kNoNode; p = et.parent_of(p))
            inside = inside || emitted.count(et.nodes[p.value].id.value);
        const bool is_chakra = emitted.count(et.nodes[i].id.value) > 0;
        if (is_chakra) {
            EXPECT_FALSE(inside) << "node " << et.nodes[i].id.value << " is inside another Chakra node";
        }
        if (et.nodes[i].kind == NodeKind::Operator) {
            EXPECT_TRUE(is_chakra || inside) << et.nodes[i].id.value;
        }
        if (et.nodes[i].kind == NodeKind::Label || et.nodes[i].kind == NodeKind::Thread ||
            et.nodes[i].kind == NodeKind::Root) {
            EXPECT_TRUE(!is_chakra || et.name(et.nodes[i]) == "record_param_comms" ||
                        has_kernel_backend(et, et.nodes[i]))
                << et.name(et.nodes[i]);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Shared, ConvertRealEt,
                         ::testing::Values(EtCase{"pytorch/linear_et.json.gz", 0}, EtCase{"pytorch/resnet_et.json.gz", 21},
                                           EtCase{"pytorch/resnet_1gpu_et_1.0.3.json.gz", 21},
                                           EtCase{"pytorch/resnet_1gpu_et_1.1.1.json.gz", 21},
                                           EtCase{"pytorch/chakra_sample_1.0.2.json.gz", 10},
                                           EtCase{"pytorch/pt2/pt2_et.json", 0}));

const Node& node_by_id(const Trace& t, uint64_t id) {
    const NodeIndex i = t.find(NodeId(id));
    if (i == kNoNode) throw std::runtime_error("no node " + std::to_string(id));
    return t.nodes[i.value];
}

TEST(ConvertRealEt, ResnetCollectivesHaveTypeSizeAndGroup) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    const Trace out = read_back(write(load_trace(testing::trace_path("pytorch/resnet_et.json.gz")), "resnet"));
    // c10d::broadcast_ of 53120 floats on process group "0". The ET alone
    // has no kernel for it, so the call (436) is a COMP node in program order
    // and the collective the next id, after it and outside program order.
    const Node& call = node_by_id(out, 436);
    EXPECT_EQ(call.chakra_type, ChakraNodeType::Comp);
    const Node& bc = node_by_id(out, 437);
    EXPECT_EQ(out.name(bc), "c10d::broadcast_");
    ASSERT_EQ(bc.chakra_type, ChakraNodeType::CommColl);
    EXPECT_EQ(bc.deps.count, 0u);
    ASSERT_EQ(bc.data_deps.count, 1u);
    EXPECT_EQ(out.edges[bc.data_deps.begin].value, 436u);
    EXPECT_EQ(int_attr(out, bc, "comm_type"), 5);
    EXPECT_EQ(int_attr(out, bc, "comm_size"), 53120 * 4);
    EXPECT_EQ(out.str(attr(out, bc, "pg_name")->value.payload.str), "0");
    // c10d::allreduce_ of 2049000 floats: size from record_param_comms's in_msg_nelems and dtype
    const Node& ar = node_by_id(out, 3248);
    EXPECT_EQ(out.name(ar), "c10d::allreduce_");
    ASSERT_EQ(ar.chakra_type, ChakraNodeType::CommColl);
    EXPECT_EQ(int_attr(out, ar, "comm_type"), 0);
    EXPECT_EQ(int_attr(out, ar, "comm_size"), 2049000 * 4);
    size_t allreduce = 0, broadcast = 0;
    for (const Node& n : out.nodes) {
        if (n.chakra_type != ChakraNodeType::CommColl) continue;
        allreduce += int_attr(out, n, "comm_type") == 0;
        broadcast += int_attr(out, n, "comm_type") == 5;
    }
    EXPECT_EQ(allreduce, 15u);
    EXPECT_EQ(broadcast, 6u);
    // record_param_comms "wait" markers at top level are work, not transfers.
    for (const Node& n : out.nodes)
        if (out.name(n) == "record_param_comms") {
            EXPECT_EQ(n.chakra_type, ChakraNodeType::Comp);
        }
}

TEST(ConvertRealEt, AllGatherSizeIsTheInputMessage) {
    MIMIC_REQUIRE_TRACE("pytorch/chakra_sample_1.0.2.json.gz");
    const Trace out =
        read_back(write(load_trace(testing::trace_path("pytorch/chakra_sample_1.0.2.json.gz")), "chakra_sample"));
    const Node& ag = node_by_id(out, 25);  // c10d::allgather_ (24) of one float per rank, queued
    EXPECT_EQ(out.name(ag), "c10d::allgather_");
    ASSERT_EQ(ag.chakra_type, ChakraNodeType::CommColl);
    EXPECT_EQ(int_attr(out, ag, "comm_type"), 2);
    EXPECT_EQ(int_attr(out, ag, "comm_size"), 4);
}

TEST(ConvertRealEt, LinearFlopsAndTensorDependencies) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    const Trace out = read_back(write(load_trace(testing::trace_path("pytorch/linear_et.json.gz")), "linear"));
    // aten::linear(input [512,1024], weight [1024,1024], bias [1024]): 2*512*1024*1024
    const Node& lin = node_by_id(out, 9);
    EXPECT_EQ(out.name(lin), "aten::linear");
    EXPECT_EQ(int_attr(out, lin, "num_ops"), int64_t(2) * 512 * 1024 * 1024);
    EXPECT_EQ(int_attr(out, lin, "tensor_size"), (512 * 1024 + 1024 * 1024 + 1024 + 512 * 1024) * 4);
    // aten::relu(20) reads the linear's output: a data dep, and program order as a ctrl dep.
    const Node& relu = node_by_id(out, 20);
    std::vector<uint64_t> data, ctrl;
    for (uint32_t k = 0; k < relu.data_deps.count; ++k) data.push_back(out.edges[relu.data_deps.begin + k].value);
    for (uint32_t k = 0; k < relu.deps.count; ++k) ctrl.push_back(out.edges[relu.deps.begin + k].value);
    EXPECT_NE(std::find(data.begin(), data.end(), 9u), data.end());
    EXPECT_EQ(ctrl, std::vector<uint64_t>{9});
    EXPECT_EQ(attr(out, relu, "num_ops"), nullptr);  // no formula for relu
}

TEST(ConvertRealEt, TritonKernelsAreComputeNodes) {
    MIMIC_REQUIRE_TRACE("pytorch/pt2/pt2_et.json");
    const Trace out = read_back(write(load_trace(testing::trace_path("pytorch/pt2/pt2_et.json")), "pt2"));
    ASSERT_EQ(out.nodes.size(), 4u);  // aten::mm and the fused Triton kernel, two iterations
    const Node& triton = node_by_id(out, 16);
    EXPECT_EQ(out.name(triton), "triton_poi_fused_add_cos_neg_sin_0");
    EXPECT_EQ(out.str(attr(out, triton, "kernel_backend")->value.payload.str), "triton");
    ASSERT_EQ(triton.data_deps.count, 1u);
    EXPECT_EQ(out.edges[triton.data_deps.begin].value, 13u);  // it reads aten::mm's output
    EXPECT_EQ(int_attr(out, node_by_id(out, 13), "num_ops"), 128);
}

TEST(ConvertRealEt, LinkedProfileAddsKernelsAndDurations) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    MIMIC_REQUIRE_TRACE("pytorch/linear_kineto.json.gz");
    Trace et = load_trace(testing::trace_path("pytorch/linear_et.json.gz"));
    KinetoReadOptions ko;
    ko.progress = false;
    const LinkStats link = link_profile(et, read_kineto_trace(testing::trace_path("pytorch/linear_kineto.json.gz"), ko));
    ASSERT_GT(link.kernels_attached, 0u);
    const ChakraWriteStats stats = write(et, "linear_linked");
    const Trace out = read_back(stats);
    EXPECT_TRUE(out.warnings.empty());
    expect_valid_dag(out);
    size_t device = 0, timed_host = 0, host = 0;
    for (const Node& n : out.nodes) {
        if (bool_attr(out, n, "is_cpu_op")) {
            ++host;
            timed_host += n.chakra_duration_us > 0;
            continue;
        }
        ++device;
        // A kernel depends on the op that launched it.
        ASSERT_EQ(n.data_deps.count, 1u);
        const Node& launcher = node_by_id(out, out.edges[n.data_deps.begin].value);
        EXPECT_TRUE(bool_attr(out, launcher, "is_cpu_op"));
        EXPECT_NE(attr(out, n, "stream"), nullptr);
    }
    EXPECT_EQ(device, stats.device_nodes);
    EXPECT_GT(device, 0u);
    EXPECT_EQ(device + stats.unlinked_events, et.device_events.size());
    EXPECT_GT(timed_host, host / 2) << "most host ops carry their profiled duration";
}

// ---- hand-built traces ----

class Builder {
public:
    Builder() {
        t.schema_version = "1.1.1-chakra.0.0.4";
        add(1, 1, "[pytorch|profiler|execution_trace|process]", "");
        add(2, 1, "[pytorch|profiler|execution_trace|thread]", "");
    }
    Value tensor(uint64_t tensor_id, uint64_t storage_id, uint64_t numel, std::vector<int64_t> shape = {}) {
        TensorMeta m;
        m.tensor_id = tensor_id;
        m.storage_id = storage_id;
        m.numel = numel;
        m.itemsize = 4;
        m.dtype = t.strings.intern("float");
        m.device = t.strings.intern("cuda:0");
        m.dims_begin = static_cast<uint32_t>(t.dims.size());
        m.rank = static_cast<uint16_t>(shape.size());
        t.dims.insert(t.dims.end(), shape.begin(), shape.end());
        Value v;
        v.kind = ValueKind::Tensor;
        v.type = t.strings.intern("Tensor(float)");
        v.payload.index = static_cast<uint32_t>(t.tensors.size());
        t.tensors.push_back(m);
        return v;
    }
    Value list(std::vector<Value> items) {
        Value v;
        v.kind = ValueKind::List;
        v.type = t.strings.intern("GenericList[Tensor(float)]");
        v.payload.range = {static_cast<uint32_t>(t.values.size()), static_cast<uint32_t>(items.size())};
        t.values.insert(t.values.end(), items.begin(), items.end());
        return v;
    }
    static Value integer(int64_t i) {
        Value v;
        v.kind = ValueKind::Int;
        v.payload.i = i;
        return v;
    }
    static Value object() {
        Value v;
        v.kind = ValueKind::Object;
        return v;
    }
    Node& add(uint64_t id, uint64_t parent, const std::string& name, const std::string& schema,
              std::vector<Value> inputs = {}, std::vector<Value> outputs = {}, uint64_t tid = 1) {
        Node n;
        n.id = NodeId(id);
        n.parent = NodeId(parent);
        n.name = t.strings.intern(name);
        n.op_schema = t.strings.intern(schema);
        n.kind = classify_node(name, schema, 0);
        n.tid = tid;
        n.inputs = {static_cast<uint32_t>(t.values.size()), static_cast<uint32_t>(inputs.size())};
        t.values.insert(t.values.end(), inputs.begin(), inputs.end());
        n.outputs = {static_cast<uint32_t>(t.values.size()), static_cast<uint32_t>(outputs.size())};
        t.values.insert(t.values.end(), outputs.begin(), outputs.end());
        n.attrs = {static_cast<uint32_t>(t.attrs.size()), 0};
        t.nodes.push_back(n);
        return t.nodes.back();
    }
    void attr(uint64_t node_id, const std::string& name, Value v) {
        // Attributes of the node added last only (ranges stay contiguous).
        Node& n = t.nodes.back();
        EXPECT_EQ(n.id.value, node_id);
        Attr a;
        a.name = t.strings.intern(name);
        a.value = v;
        t.attrs.push_back(a);
        ++n.attrs.count;
    }
    Value str(const std::string& s) {
        Value v;
        v.kind = ValueKind::String;
        v.payload.str = t.strings.intern(s);
        return v;
    }
    void kernel(const std::string& name, uint64_t launcher_id, double start_us, double duration_us, int64_t stream = 7) {
        t.finalize();
        DeviceEvent e;
        e.name = t.strings.intern(name);
        e.category = t.strings.intern("kernel");
        e.launcher = t.find(NodeId(launcher_id));
        e.start_us = start_us;
        e.duration_us = duration_us;
        e.device = 0;
        e.stream = stream;
        t.device_events.push_back(e);
    }
    Trace t;
};

TEST(ConvertBuilt, NcclKernelCarriesTheCollective) {
    Builder b;
    const Value grads = b.list({b.tensor(10, 11, 1000, {1000})});
    b.add(3, 2, "c10d::allreduce_", "c10d::allreduce_(Tensor[] tensors, ...) -> (Tensor[], Work)", {grads, Builder::object()});
    b.add(4, 3, "record_param_comms", "", {b.list({b.tensor(10, 11, 1000, {1000})})});
    b.attr(4, "collective_name", b.str("allreduce"));
    b.attr(4, "dtype", b.str("Float"));
    b.attr(4, "in_msg_nelems", Builder::integer(1000));
    b.attr(4, "pg_name", b.str("pg0"));
    b.add(5, 4, "nccl:all_reduce", "", {b.tensor(10, 11, 1000, {1000})});
    b.add(6, 2, "aten::mm", "aten::mm(Tensor self, Tensor mat2) -> Tensor",
          {b.tensor(20, 21, 6, {2, 3}), b.tensor(22, 23, 12, {3, 4})}, {b.tensor(24, 25, 8, {2, 4})});
    b.kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", 5, 100, 30, 9);
    b.kernel("void gemm_kernel<float>()", 6, 140, 5);
    b.kernel("void gemm_kernel<float>()", 6, 150, 5);
    b.t.finalize();

    const ChakraWriteStats stats = write(b.t, "nccl");
    EXPECT_EQ(stats.device_nodes, 3u);
    const Trace out = read_back(stats);
    expect_valid_dag(out);
    ASSERT_EQ(out.nodes.size(), 5u);  // allreduce_, mm, three kernels
    const Node& host = node_by_id(out, 3);
    EXPECT_EQ(host.chakra_type, ChakraNodeType::Comp) << "the kernel does the transfer";
    const Node& nccl = node_by_id(out, 7);  // kernel ids follow the largest ET id, in start order
    EXPECT_EQ(nccl.chakra_type, ChakraNodeType::CommColl);
    EXPECT_FALSE(bool_attr(out, nccl, "is_cpu_op"));
    EXPECT_EQ(int_attr(out, nccl, "comm_type"), 0);
    EXPECT_EQ(int_attr(out, nccl, "comm_size"), 4000);
    EXPECT_EQ(out.str(attr(out, nccl, "pg_name")->value.payload.str), "pg0");
    EXPECT_EQ(nccl.chakra_duration_us, 30u);
    ASSERT_EQ(nccl.data_deps.count, 1u);
    EXPECT_EQ(out.edges[nccl.data_deps.begin].value, 3u);  // launched inside the allreduce_
    const Node& gemm1 = node_by_id(out, 8);
    const Node& gemm2 = node_by_id(out, 9);
    EXPECT_EQ(gemm1.chakra_type, ChakraNodeType::Comp);
    EXPECT_EQ(out.edges[gemm1.data_deps.begin].value, 6u);
    EXPECT_EQ(gemm1.deps.count, 0u);  // first on stream 7
    ASSERT_EQ(gemm2.deps.count, 1u);  // stream order
    EXPECT_EQ(out.edges[gemm2.deps.begin].value, 8u);
    EXPECT_EQ(int_attr(out, node_by_id(out, 6), "num_ops"), 2 * 2 * 3 * 4);
}

TEST(ConvertBuilt, HostCollectiveWithoutKernelsIsQueuedWork) {
    // DDP on Gloo: the backward queues a bucket's all-reduce and goes on; the
    // op that reads the bucket waits for it, the next op on the thread does not.
    Builder b;
    b.add(3, 2, "aten::mul", "aten::mul(Tensor self, Tensor other) -> Tensor", {b.tensor(1, 2, 8)}, {b.tensor(30, 31, 8)}, 1);
    b.add(4, 2, "c10d::allreduce_", "c10d::allreduce_(Tensor[] tensors, ...)", {b.list({b.tensor(30, 31, 8)}), Builder::object()},
          {}, 1);
    b.add(6, 2, "aten::mm", "aten::mm(Tensor self, Tensor mat2) -> Tensor", {b.tensor(7, 8, 8)}, {b.tensor(9, 10, 8)}, 1);
    b.add(7, 2, "aten::copy_", "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
          {b.tensor(11, 12, 8), b.tensor(30, 31, 8)}, {b.tensor(11, 12, 8)}, 1);
    b.t.finalize();
    const Trace out = read_back(write(b.t, "gloo"));
    expect_valid_dag(out);
    ASSERT_EQ(out.nodes.size(), 5u);
    const Node& call = node_by_id(out, 4);
    const Node& coll = node_by_id(out, 5);
    EXPECT_EQ(call.chakra_type, ChakraNodeType::Comp);
    EXPECT_TRUE(bool_attr(out, call, "is_cpu_op"));
    ASSERT_EQ(coll.chakra_type, ChakraNodeType::CommColl);
    EXPECT_FALSE(bool_attr(out, coll, "is_cpu_op"));
    EXPECT_EQ(int_attr(out, coll, "comm_type"), 0);
    EXPECT_EQ(int_attr(out, coll, "comm_size"), 32);
    ASSERT_EQ(coll.data_deps.count, 1u);
    EXPECT_EQ(out.edges[coll.data_deps.begin].value, 4u);
    const Node& mm = node_by_id(out, 6);
    ASSERT_EQ(mm.deps.count, 1u);
    EXPECT_EQ(out.edges[mm.deps.begin].value, 4u);  // after the call, not the collective
    const Node& copy = node_by_id(out, 7);
    ASSERT_EQ(copy.data_deps.count, 1u);
    EXPECT_EQ(out.edges[copy.data_deps.begin].value, 5u);  // reads the reduced bucket
}

TEST(ConvertBuilt, CollectiveWithoutAFreeIdOrTensorIsWaitedOn) {
    // The next id is another op's, and a barrier has nothing to wait on: each
    // stays one COMM node in program order.
    Builder b;
    b.add(3, 2, "c10d::allgather_", "c10d::allgather_(Tensor[][] output_tensors, Tensor[] input_tensors, ...)",
          {b.list({b.list({b.tensor(30, 31, 8), b.tensor(32, 33, 8)})}), b.list({b.tensor(34, 35, 8)}), Builder::object()});
    b.add(4, 2, "aten::relu", "aten::relu(Tensor self) -> Tensor", {b.tensor(1, 2, 4)}, {b.tensor(3, 4, 4)}, 1);
    b.add(5, 2, "c10d::barrier", "c10d::barrier(...)", {Builder::object()});
    b.add(7, 2, "aten::neg", "aten::neg(Tensor self) -> Tensor", {b.tensor(5, 6, 4)}, {b.tensor(7, 8, 4)}, 1);
    b.t.finalize();
    const Trace out = read_back(write(b.t, "gloo"));
    ASSERT_EQ(out.nodes.size(), 4u);
    const Node& ag = node_by_id(out, 3);
    EXPECT_EQ(ag.chakra_type, ChakraNodeType::CommColl);
    EXPECT_EQ(int_attr(out, ag, "comm_type"), 2);
    EXPECT_EQ(int_attr(out, ag, "comm_size"), 32);  // the input list, not the gathered output
    const Node& relu = node_by_id(out, 4);
    ASSERT_EQ(relu.deps.count, 1u);
    EXPECT_EQ(out.edges[relu.deps.begin].value, 3u);
    const Node& barrier = node_by_id(out, 5);
    EXPECT_EQ(barrier.chakra_type, ChakraNodeType::CommColl);
    EXPECT_EQ(int_attr(out, barrier, "comm_type"), 9);
    const Node& neg = node_by_id(out, 7);
    ASSERT_EQ(neg.deps.count, 1u);
    EXPECT_EQ(out.edges[neg.deps.begin].value, 5u);
}

TEST(ConvertBuilt, CollectivesIssuedBackToBackKeepTheirCallsOrder) {
    // Ranks pair collectives in the order they issue, and ready nodes issue
    // in id order: the first gather (the id after it is the second call's)
    // stays with its call, the second is queued under id 5, so the first is
    // issued first on every rank.
    Builder b;
    b.add(3, 2, "c10d::allgather_", "c10d::allgather_(Tensor[][] output_tensors, Tensor[] input_tensors, ...)",
          {b.list({b.list({b.tensor(30, 31, 8), b.tensor(32, 33, 8)})}), b.list({b.tensor(34, 35, 8)}), Builder::object()});
    b.add(4, 2, "c10d::allgather_", "c10d::allgather_(Tensor[][] output_tensors, Tensor[] input_tensors, ...)",
          {b.list({b.list({b.tensor(40, 41, 8), b.tensor(42, 43, 8)})}), b.list({b.tensor(44, 45, 8)}), Builder::object()});
    b.add(9, 2, "aten::neg", "aten::neg(Tensor self) -> Tensor", {b.tensor(40, 41, 8)}, {b.tensor(7, 8, 8)}, 1);
    b.t.finalize();
    const Trace out = read_back(write(b.t, "gloo_back_to_back"));
    ASSERT_EQ(out.nodes.size(), 4u);
    expect_valid_dag(out);
    EXPECT_EQ(node_by_id(out, 3).chakra_type, ChakraNodeType::CommColl);
    EXPECT_EQ(node_by_id(out, 4).chakra_type, ChakraNodeType::Comp);
    const Node& queued = node_by_id(out, 5);
    EXPECT_EQ(queued.chakra_type, ChakraNodeType::CommColl);
    EXPECT_EQ(queued.deps.count, 0u);  // outside program order
    ASSERT_EQ(queued.data_deps.count, 1u);
    EXPECT_EQ(out.edges[queued.data_deps.begin].value, 4u);
    const Node& neg = node_by_id(out, 9);  // after the second call, and on its gather
    ASSERT_EQ(neg.data_deps.count, 1u);
    EXPECT_EQ(out.edges[neg.data_deps.begin].value, 5u);
}

TEST(ConvertBuilt, SendAndRecvNamePeersAndTags) {
    Builder b;
    b.t.rank = 1;
    b.add(3, 2, "c10d::send", "c10d::send(Tensor[] tensors, ProcessGroup process_group, int dstRank, int tag) -> Work",
          {b.list({b.tensor(40, 41, 10)}), Builder::object(), Builder::integer(3), Builder::integer(7)});
    b.add(4, 2, "c10d::recv_", "c10d::recv_(Tensor[] tensors, ProcessGroup process_group, int srcRank, int tag) -> Work",
          {b.list({b.tensor(42, 43, 10)}), Builder::object(), Builder::integer(0), Builder::integer(8)});
    b.t.finalize();
    const ChakraWriteStats stats = write(b.t, "p2p");
    EXPECT_EQ(stats.path, scratch_prefix("p2p") + ".1.et");
    const Trace out = read_back(stats);
    const Node& send = node_by_id(out, 3);
    EXPECT_EQ(send.chakra_type, ChakraNodeType::CommSend);
    EXPECT_EQ(int_attr(out, send, "comm_src"), 1);
    EXPECT_EQ(int_attr(out, send, "comm_dst"), 3);
    EXPECT_EQ(int_attr(out, send, "comm_tag"), 7);
    EXPECT_EQ(int_attr(out, send, "comm_size"), 40);
    EXPECT_EQ(out.str(attr(out, send, "comm_tag")->value.type), "int32");
    const Node& recv = node_by_id(out, 4);
    EXPECT_EQ(recv.chakra_type, ChakraNodeType::CommRecv);
    EXPECT_EQ(int_attr(out, recv, "comm_src"), 0);
    EXPECT_EQ(int_attr(out, recv, "comm_dst"), 1);
    EXPECT_EQ(int_attr(out, recv, "comm_tag"), 8);
}

TEST(ConvertBuilt, ProgramOrderPerThreadAndTensorIdentity) {
    Builder b;
    b.add(10, 2, "aten::relu", "aten::relu(Tensor self) -> Tensor", {b.tensor(1, 2, 4)}, {b.tensor(3, 4, 4)}, 1);
    b.add(11, 2, "aten::neg", "aten::neg(Tensor self) -> Tensor", {b.tensor(5, 6, 4)}, {b.tensor(7, 8, 4)}, 2);
    // Same tensor and storage as 10's output: depends on it.
    b.add(12, 2, "aten::abs", "aten::abs(Tensor self) -> Tensor", {b.tensor(3, 4, 4)}, {b.tensor(9, 10, 4)}, 2);
    // Same tensor id, another storage: a different tensor, no dependency.
    b.add(13, 2, "aten::exp", "aten::exp(Tensor self) -> Tensor", {b.tensor(3, 99, 4)}, {}, 1);
    // A label with an op inside: the op is the Chakra node, the label is not.
    b.add(14, 2, "ProfilerStep#1", "");
    b.add(15, 14, "aten::sin", "aten::sin(Tensor self) -> Tensor", {b.tensor(9, 10, 4)}, {}, 1);
    b.t.finalize();
    const Trace out = read_back(write(b.t, "order"));
    expect_valid_dag(out);
    auto deps = [&](uint64_t id, bool data) {
        const Node& n = node_by_id(out, id);
        const ValueRange r = data ? n.data_deps : n.deps;
        std::vector<uint64_t> v;
        for (uint32_t k = 0; k < r.count; ++k) v.push_back(out.edges[r.begin + k].value);
        return v;
    };
    EXPECT_EQ(out.nodes.size(), 5u);
    EXPECT_EQ(out.find(NodeId(14)), kNoNode);
    EXPECT_EQ(deps(11, false), std::vector<uint64_t>{});     // first on thread 2
    EXPECT_EQ(deps(12, false), std::vector<uint64_t>{11});   // program order on thread 2
    EXPECT_EQ(deps(13, false), std::vector<uint64_t>{10});   // program order on thread 1
    EXPECT_EQ(deps(15, false), std::vector<uint64_t>{13});
    EXPECT_EQ(deps(12, true), std::vector<uint64_t>{10});    // producer on another thread
    EXPECT_EQ(deps(13, true), std::vector<uint64_t>{});      // other storage
    EXPECT_EQ(deps(15, true), std::vector<uint64_t>{12});
}

TEST(ChakraFlops, MatmulAndConvolutionFormulas) {
    Builder b;
    Node& bmm = b.add(3, 2, "aten::bmm", "s", {b.tensor(1, 1, 0, {8, 2, 3}), b.tensor(2, 2, 0, {8, 3, 5})});
    EXPECT_EQ(op_flops(b.t, bmm), 2 * 8 * 2 * 3 * 5);
    Node& mm = b.add(4, 2, "aten::matmul", "s", {b.tensor(1, 1, 0, {4, 1, 2, 3}), b.tensor(2, 2, 0, {6, 3, 5})});
    EXPECT_EQ(op_flops(b.t, mm), 2 * 4 * 6 * 2 * 3 * 5);  // batch dims broadcast to [4, 6]
    Node& conv = b.add(5, 2, "aten::conv2d", "s", {b.tensor(1, 1, 0, {32, 1024, 14, 14}), b.tensor(2, 2, 0, {256, 1024, 1, 1})},
                       {b.tensor(3, 3, 0, {32, 256, 14, 14})});
    EXPECT_EQ(op_flops(b.t, conv), int64_t(2) * 32 * 256 * 14 * 14 * 1024);
    Node& relu = b.add(6, 2, "aten::relu", "s", {b.tensor(1, 1, 0, {4})});
    EXPECT_EQ(op_flops(b.t, relu), -1);
    Node& no_shape = b.add(7, 2, "aten::mm", "s", {b.tensor(1, 1, 6), b.tensor(2, 2, 6)});
    EXPECT_EQ(op_flops(b.t, no_shape), -1);
}

}  // namespace
}  // namespace mimic
