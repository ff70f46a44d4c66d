#include "io/chakra/chakra_convert.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "io/chakra/chakra_flops.h"
#include "io/chakra/chakra_values.h"
#include "trace/op_owner.h"

namespace mimic {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

uint64_t whole_us(double us) { return us > 0 ? static_cast<uint64_t>(std::llround(us)) : 0; }

struct TensorKey {
    uint64_t tensor_id, storage_id;
    bool operator==(const TensorKey& o) const { return tensor_id == o.tensor_id && storage_id == o.storage_id; }
};
struct TensorKeyHash {
    size_t operator()(const TensorKey& k) const noexcept {
        return std::hash<uint64_t>()(k.tensor_id * 0x9e3779b97f4a7c15ULL ^ k.storage_id);
    }
};

bool contains_nccl(std::string_view name) {
    for (size_t i = 0; i + 4 <= name.size(); ++i) {
        const char* p = name.data() + i;
        if ((p[0] | 0x20) == 'n' && (p[1] | 0x20) == 'c' && (p[2] | 0x20) == 'c' && (p[3] | 0x20) == 'l') return true;
    }
    return false;
}

class Planner {
public:
    explicit Planner(const Trace& trace) : trace_(trace), comm_(trace) {}

    ChakraPlan run() {
        mark_owners();
        plan_index_.assign(trace_.nodes.size(), kNone);
        std::vector<uint32_t> hosts;
        for (NodeIndex i : trace_.execution_order()) {
            if (owner_[i.value] == i.value && trace_.find(trace_.nodes[i.value].id) == i) {
                hosts.push_back(i.value);
                host_ids_.insert(trace_.nodes[i.value].id.value);
            } else {
                ++plan_.et_nodes_skipped;
            }
        }
        mark_kernel_collectives();
        mark_waited_collectives(hosts);
        for (uint32_t i : hosts) add_host_node(i);
        add_device_events();
        return std::move(plan_);
    }

private:
    bool is_candidate(const Node& n) const {
        if (n.kind == NodeKind::Operator) return true;
        if (record_param_comms_.value != 0 && n.name == record_param_comms_) return true;
        if (kernel_backend_.value == 0) return false;
        for (uint32_t a = 0; a < n.attrs.count; ++a) {
            const Attr& at = trace_.attrs[n.attrs.begin + a];
            if (at.name == kernel_backend_ && at.value.kind == ValueKind::String && at.value.payload.str.value != 0)
                return true;
        }
        return false;
    }

    // owner_[i]: the top-level candidate whose work node i is (kNone if
    // none), by the rule analysis and replay use; a node is a Chakra node
    // exactly when it owns itself.
    void mark_owners() {
        OwnerRules rules;
        rules.is_operator = [&](NodeIndex i) { return is_candidate(trace_.nodes[i.value]); };
        rules.is_communication = [&](NodeIndex i) {
            const Node& n = trace_.nodes[i.value];
            const std::string_view name = trace_.str(n.name);
            return n.name == record_param_comms_ || name.rfind("gloo:", 0) == 0 || name.rfind("nccl:", 0) == 0 ||
                   comm_.classify(n).kind != CommKind::None;
        };
        const std::vector<NodeIndex> owners = top_level_owners(trace_, parents_first_order(trace_), rules);
        owner_.resize(owners.size());
        for (size_t i = 0; i < owners.size(); ++i) owner_[i] = owners[i] == kNoNode ? kNone : owners[i].value;
    }

    // FLOPs and communication facts of a top-level node and everything under it.
    void summarise(uint32_t top, ChakraPlanNode& out) {
        CommInfo comm;
        int64_t flops = 0;
        bool have_flops = false;
        stack_.clear();
        stack_.push_back({top, false});
        while (!stack_.empty()) {
            auto [idx, inside_counted] = stack_.back();
            stack_.pop_back();
            const Node& node = trace_.nodes[idx];
            // A gloo:* label under an op that does no communication of its own
            // is Gloo running a collective issued earlier (DDP's allreduce
            // inside a backward op): that c10d op is already its own node.
            const bool replayed_label = idx != top && trace_.str(node.name).rfind("gloo:", 0) == 0 &&
                                        comm_.classify(trace_.nodes[top]).kind == CommKind::None;
            if (!replayed_label) CommClassifier::merge(comm, comm_.classify(node));
            bool counted = inside_counted;
            if (!counted) {
                // The outermost op with a FLOP formula counts; its children
                // (addmm under linear) are its own implementation.
                const int64_t f = op_flops(trace_, node);
                if (f >= 0) {
                    flops += f;
                    have_flops = true;
                    counted = true;
                }
            }
            // A child the observer misfiled here is another op's work.
            const NodeIndex self(idx);
            for (const NodeIndex* c = trace_.children_begin(self); c != trace_.children_end(self); ++c)
                if (owner_[c->value] == top) stack_.push_back({c->value, counted});
        }
        out.comm = comm;
        out.num_ops = have_flops ? flops : -1;
        switch (comm.kind) {
            case CommKind::Collective: out.type = ChakraNodeType::CommColl; break;
            case CommKind::Send: out.type = ChakraNodeType::CommSend; break;
            case CommKind::Recv: out.type = ChakraNodeType::CommRecv; break;
            default: out.type = ChakraNodeType::Comp; break;
        }
    }

    // Top-level ops one of whose device events is an NCCL kernel: that kernel
    // is their collective, so the op is not split (add_device_events moves the
    // COMM type onto the kernel).
    void mark_kernel_collectives() {
        launches_kernel_.assign(trace_.nodes.size(), 0);
        for (const DeviceEvent& ev : trace_.device_events) {
            if (ev.launcher == kNoNode || ev.launcher.value >= owner_.size()) continue;
            const uint32_t owner = owner_[ev.launcher.value];
            if (owner != kNone && contains_nccl(trace_.str(ev.name))) launches_kernel_[owner] = 1;
        }
    }

    // Collective calls their thread waited on. A synchronous dist.all_reduce
    // returns only when Gloo's work is done (in work.wait(), which is no op);
    // DDP's calls return at once and the backward runs beside Gloo. The k-th
    // Gloo call pairs with the k-th gloo:* label (Gloo's queue runs them in
    // order); where the counts differ, or a label starts before its call,
    // nothing is marked. With the profile: the thread's next op starts only
    // as the label ends. With the ET alone (waited_by_et): see there.
    void mark_waited_collectives(const std::vector<uint32_t>& hosts) {
        waited_.assign(trace_.nodes.size(), 0);
        std::vector<uint32_t> labels;
        for (uint32_t i = 0; i < trace_.nodes.size(); ++i)
            if (is_async_backend_label(trace_, trace_.nodes[i])) labels.push_back(i);
        if (labels.empty()) return;
        std::sort(labels.begin(), labels.end(),
                  [&](uint32_t a, uint32_t b) { return trace_.nodes[a].id.value < trace_.nodes[b].id.value; });
        std::vector<uint32_t> calls;
        std::unordered_map<uint64_t, uint32_t> last_on_thread;
        std::vector<uint32_t> next_on_thread(trace_.nodes.size(), kNone);
        for (uint32_t h : hosts) {
            auto [last, fresh] = last_on_thread.try_emplace(trace_.nodes[h].tid, h);
            if (!fresh) {
                next_on_thread[last->second] = h;
                last->second = h;
            }
            if (!launches_kernel_[h] && calls_gloo(h)) calls.push_back(h);
        }
        if (calls.size() != labels.size()) return;
        const bool timed = trace_.timing.size() == trace_.nodes.size();
        for (size_t k = 0; k < calls.size(); ++k) {
            const uint32_t call = calls[k], label = labels[k], next = next_on_thread[call];
            if (trace_.nodes[label].id.value < trace_.nodes[call].id.value) return;
            if (next == kNone) continue;
            if (timed && trace_.timing[label].linked() && trace_.timing[next].linked()) {
                // A few percent of slack: the wait's return and the next op's
                // start are microseconds apart, a queued call's next op ends
                // long before its collective.
                const NodeTiming& done = trace_.timing[label];
                const double end_us = done.start_us + done.duration_us;
                waited_[call] = trace_.timing[next].start_us >= end_us - 0.05 * done.duration_us - 1.0;
            } else {
                waited_[call] = waited_by_et(call, label, next);
            }
        }
    }

    // Without times, where the observer filed things says it. Ids are
    // handed out as ops start, and the ET files a label under the op open
    // on the observing thread when it starts. A thread waiting on its call
    // has no op open and starts its next op only after Gloo began (and
    // ended) the work: the label sits at the top level (or under the call,
    // if Gloo began before the call returned) with an id below the next
    // op's. A call from inside the autograd engine is DDP's (a gradient
    // hook): the backward goes on, whatever the label's place.
    bool waited_by_et(uint32_t call, uint32_t label, uint32_t next) const {
        if (trace_.nodes[label].id.value > trace_.nodes[next].id.value) return false;
        for (NodeIndex p = trace_.parent_of(NodeIndex(call)); p != kNoNode; p = trace_.parent_of(p)) {
            const Node& n = trace_.nodes[p.value];
            if (n.kind == NodeKind::Root || n.kind == NodeKind::Thread) break;
            if (n.kind == NodeKind::Autograd || n.kind == NodeKind::Operator) return false;
        }
        for (NodeIndex p = trace_.parent_of(NodeIndex(label)); p != kNoNode; p = trace_.parent_of(p)) {
            if (p.value == call) return true;
            const Node& n = trace_.nodes[p.value];
            if (n.kind == NodeKind::Root || n.kind == NodeKind::Thread) break;
            if (n.kind == NodeKind::Operator || n.kind == NodeKind::Autograd) return false;
        }
        return true;
    }

    // A top-level op that issues a collective (Gloo runs one gloo:* label
    // for it), by what classify sees on it or under it.
    bool calls_gloo(uint32_t top) const {
        stack_.clear();
        stack_.push_back({top, false});
        while (!stack_.empty()) {
            const uint32_t idx = stack_.back().first;
            stack_.pop_back();
            const Node& node = trace_.nodes[idx];
            if (!is_async_backend_label(trace_, node) && comm_.classify(node).kind == CommKind::Collective) return true;
            const NodeIndex self(idx);
            for (const NodeIndex* c = trace_.children_begin(self); c != trace_.children_end(self); ++c)
                if (owner_[c->value] == top) stack_.push_back({c->value, false});
        }
        return false;
    }

    bool has_tensor(const Node& node) const {
        bool any = false;
        for_each_tensor(trace_, node.inputs, [&](const TensorMeta&) { any = true; });
        for_each_tensor(trace_, node.outputs, [&](const TensorMeta&) { any = true; });
        return any;
    }

    // A collective the c10d call only queues (see the header): no kernel of
    // its own, tensors to wait on, and a free id right after the call's.
    // Only that id keeps collectives in the order their calls issued them
    // (ready nodes issue in id order, one collective at a time, and ranks
    // pair collectives in issue order): a later id could let the next call's
    // collective overtake this one on one rank and not on another.
    bool queues_collective(uint32_t idx, const ChakraPlanNode& pn) const {
        return pn.type == ChakraNodeType::CommColl && pn.comm.type != CollectiveType::Barrier && !launches_kernel_[idx] &&
               !waited_[idx] && host_ids_.count(pn.id + 1) == 0 && has_tensor(trace_.nodes[idx]);
    }

    void add_edge_unique(uint32_t begin, uint64_t id) {
        for (size_t k = begin; k < plan_.edges.size(); ++k)
            if (plan_.edges[k] == id) return;
        plan_.edges.push_back(id);
    }

    void add_host_node(uint32_t idx) {
        const Node& node = trace_.nodes[idx];
        ChakraPlanNode pn;
        pn.id = node.id.value;
        pn.source = idx;
        summarise(idx, pn);
        // Communication runs on the device and network side, never as a CPU
        // op: ASTRA-sim hangs on a COMM node marked is_cpu_op.
        pn.is_cpu_op = pn.type == ChakraNodeType::Comp;
        if (trace_.timing.size() == trace_.nodes.size() && trace_.timing[idx].linked()) {
            pn.start_us = whole_us(trace_.timing[idx].start_us);
            pn.duration_us = whole_us(trace_.timing[idx].duration_us);
        } else {
            pn.start_us = node.chakra_start_us;
            pn.duration_us = node.chakra_duration_us;
        }
        pn.tensor_size = tensor_bytes(trace_, node.inputs) + tensor_bytes(trace_, node.outputs);
        const uint32_t self = static_cast<uint32_t>(plan_.nodes.size());

        // Program order on the node's thread.
        pn.ctrl_begin = static_cast<uint32_t>(plan_.edges.size());
        auto [last, fresh] = last_on_thread_.try_emplace(node.tid, self);
        if (!fresh) {
            plan_.edges.push_back(plan_.nodes[last->second].id);
            last->second = self;
        }
        pn.ctrl_count = static_cast<uint32_t>(plan_.edges.size()) - pn.ctrl_begin;

        // Tensors this node reads that an earlier node wrote.
        pn.data_begin = static_cast<uint32_t>(plan_.edges.size());
        for_each_tensor(trace_, node.inputs, [&](const TensorMeta& t) {
            auto it = last_writer_.find(TensorKey{t.tensor_id, t.storage_id});
            if (it != last_writer_.end()) add_edge_unique(pn.data_begin, plan_.nodes[it->second].id);
        });
        pn.data_count = static_cast<uint32_t>(plan_.edges.size()) - pn.data_begin;

        plan_index_[idx] = self;
        if (!queues_collective(idx, pn)) {
            for_each_tensor(trace_, node.outputs,
                            [&](const TensorMeta& t) { last_writer_[TensorKey{t.tensor_id, t.storage_id}] = self; });
            plan_.nodes.push_back(pn);
            return;
        }
        ChakraPlanNode collective = pn;
        pn.type = ChakraNodeType::Comp;
        pn.is_cpu_op = true;
        plan_.nodes.push_back(pn);

        collective.id = pn.id + 1;
        collective.is_cpu_op = false;
        collective.num_ops = -1;
        collective.queued_collective = true;
        collective.ctrl_begin = static_cast<uint32_t>(plan_.edges.size());
        collective.ctrl_count = 0;
        collective.data_begin = collective.ctrl_begin;
        plan_.edges.push_back(pn.id);
        collective.data_count = 1;
        const uint32_t twin = static_cast<uint32_t>(plan_.nodes.size());
        auto written = [&](const TensorMeta& t) { last_writer_[TensorKey{t.tensor_id, t.storage_id}] = twin; };
        for_each_tensor(trace_, node.inputs, written);
        for_each_tensor(trace_, node.outputs, written);
        plan_.nodes.push_back(collective);
    }

    void add_device_events() {
        const auto& events = trace_.device_events;
        if (events.empty()) return;
        uint64_t next_id = 0;
        for (const Node& n : trace_.nodes) next_id = std::max(next_id, n.id.value);
        for (const ChakraPlanNode& p : plan_.nodes) next_id = std::max(next_id, p.id);  // a collective after the last op
        ++next_id;
        std::vector<uint32_t> order(events.size());
        for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t a, uint32_t b) { return events[a].start_us < events[b].start_us; });
        std::unordered_map<uint64_t, uint32_t> last_on_stream;  // (device, stream) -> plan index
        std::vector<uint8_t> comm_moved(plan_.nodes.size(), 0);
        for (uint32_t k : order) {
            const DeviceEvent& ev = events[k];
            const uint32_t owner = ev.launcher == kNoNode || ev.launcher.value >= owner_.size()
                                       ? kNone
                                       : owner_[ev.launcher.value];
            const uint32_t host = owner == kNone ? kNone : plan_index_[owner];
            if (host == kNone) {
                ++plan_.unlinked_events;
                continue;
            }
            ChakraPlanNode pn;
            pn.id = next_id++;
            pn.device_event = k;
            pn.is_cpu_op = false;
            pn.start_us = whole_us(ev.start_us);
            pn.duration_us = whole_us(ev.duration_us);
            ChakraPlanNode& launcher = plan_.nodes[host];
            if (contains_nccl(trace_.str(ev.name)) && launcher.comm.kind != CommKind::None &&
                launcher.comm.kind != CommKind::Wait && !comm_moved[host]) {
                // The kernel does the transfer: it is the COMM node, its host op only launches it.
                pn.type = launcher.type;
                pn.comm = launcher.comm;
                launcher.type = ChakraNodeType::Comp;
                comm_moved[host] = 1;
            }
            const uint32_t self = static_cast<uint32_t>(plan_.nodes.size());
            const uint64_t stream_key = (static_cast<uint64_t>(ev.device) << 32) ^ static_cast<uint64_t>(ev.stream);
            pn.ctrl_begin = static_cast<uint32_t>(plan_.edges.size());
            auto [last, fresh] = last_on_stream.try_emplace(stream_key, self);
            if (!fresh) {
                plan_.edges.push_back(plan_.nodes[last->second].id);
                last->second = self;
            }
            pn.ctrl_count = static_cast<uint32_t>(plan_.edges.size()) - pn.ctrl_begin;
            pn.data_begin = static_cast<uint32_t>(plan_.edges.size());
            plan_.edges.push_back(plan_.nodes[host].id);
            pn.data_count = 1;
            plan_.nodes.push_back(pn);
        }
    }

    const Trace& trace_;
    CommClassifier comm_;
    StrId record_param_comms_ = trace_.strings.find("record_param_comms");
    StrId kernel_backend_ = trace_.strings.find("kernel_backend");
    ChakraPlan plan_;
    std::vector<uint32_t> owner_;
    std::vector<uint32_t> plan_index_;
    mutable std::vector<std::pair<uint32_t, bool>> stack_;
    std::unordered_map<uint64_t, uint32_t> last_on_thread_;
    std::unordered_set<uint64_t> host_ids_;  // ids of the ET's top-level ops
    std::vector<uint8_t> launches_kernel_;
    std::vector<uint8_t> waited_;  // collective calls whose thread waited for them
    std::unordered_map<TensorKey, uint32_t, TensorKeyHash> last_writer_;
};

}  // namespace

ChakraPlan plan_chakra_nodes(const Trace& trace) { return Planner(trace).run(); }

std::string_view plan_node_name(const Trace& trace, const ChakraPlanNode& node) {
    if (node.device_event != UINT32_MAX) return trace.str(trace.device_events[node.device_event].name);
    return node.source != UINT32_MAX ? trace.str(trace.nodes[node.source].name) : std::string_view();
}

}  // namespace mimic
