#include "link/link_report.h"

#include <fmt/format.h>

namespace mimic {

namespace {
double percent(size_t part, size_t whole) { return whole ? 100.0 * double(part) / double(whole) : 0.0; }
}  // namespace

std::vector<std::pair<std::string, double>> link_stats_fields(const LinkStats& s) {
    return {
        {"linkable_nodes", double(s.linkable)},
        {"linked_nodes", double(s.linked)},
        {"operators", double(s.operators)},
        {"operators_linked", double(s.operators_linked)},
        {"by_record_function_id", double(s.by_record_function_id)},
        {"by_sequence_number", double(s.by_sequence_number)},
        {"in_order", double(s.in_order)},
        {"rf_id_name_mismatches", double(s.rf_id_name_mismatches)},
        {"nesting_conflicts", double(s.nesting_conflicts)},
        {"profile_host_events", double(s.profile_host_events)},
        {"profile_host_events_linked", double(s.profile_host_events_linked)},
        {"profile_device_events", double(s.profile_device_events)},
        {"kernels_attached", double(s.kernels_attached)},
        {"memcpys_attached", double(s.memcpys_attached)},
        {"memsets_attached", double(s.memsets_attached)},
        {"profiled_iterations", double(s.profiled_iterations)},
        {"nodes_with_repeats", double(s.nodes_with_repeats)},
    };
}

void write_link_stats(JsonWriter& out, const LinkStats& s) {
    out.begin_object();
    out.field("et_nodes", s.et_nodes);
    out.field("linkable", s.linkable);
    out.field("linked", s.linked);
    out.field("unlinked", s.unlinked);
    out.field("link_rate", s.link_rate());
    out.field("operators", s.operators);
    out.field("operators_linked", s.operators_linked);
    out.key("by_method").begin_object();
    out.field("record_function_id", s.by_record_function_id);
    out.field("sequence_number", s.by_sequence_number);
    out.field("in_order", s.in_order);
    out.end_object();
    out.field("rf_id_name_mismatches", s.rf_id_name_mismatches);
    out.field("nesting_conflicts", s.nesting_conflicts);
    out.field("profile_host_events", s.profile_host_events);
    out.field("profile_host_events_linked", s.profile_host_events_linked);
    out.field("profiled_iterations", s.profiled_iterations);
    out.field("nodes_with_repeats", s.nodes_with_repeats);
    out.key("device").begin_object();
    out.field("profile_events", s.profile_device_events);
    out.field("kernels_attached", s.kernels_attached);
    out.field("memcpys_attached", s.memcpys_attached);
    out.field("memsets_attached", s.memsets_attached);
    out.field("without_launch", s.device_without_launch);
    out.field("outside_et", s.device_outside_et);
    out.end_object();
    out.key("threads").begin_array();
    for (const ThreadPairing& t : s.threads) {
        out.begin_object();
        out.field("et_tid", t.et_tid);
        out.field("profile_pid", t.profile_pid);
        out.field("profile_tid", t.profile_tid);
        out.field("et_nodes", t.et_nodes);
        out.field("profile_events", t.profile_events);
        out.field("linked", t.linked);
        out.end_object();
    }
    out.end_array();
    out.end_object();
}

std::string format_link_stats(const LinkStats& s) {
    std::string out;
    out += fmt::format("ET nodes               {:>10}\n", s.et_nodes);
    out += fmt::format("linkable (not root/thread) {:>6}\n", s.linkable);
    out += fmt::format("linked                 {:>10}  ({:.1f}%)\n", s.linked, percent(s.linked, s.linkable));
    out += fmt::format("  by record function id{:>10}\n", s.by_record_function_id);
    out += fmt::format("  by sequence number   {:>10}\n", s.by_sequence_number);
    out += fmt::format("  in order by name     {:>10}\n", s.in_order);
    out += fmt::format("unlinked               {:>10}\n", s.unlinked);
    out += fmt::format("operators linked       {:>10} of {} ({:.1f}%)\n", s.operators_linked, s.operators,
                       percent(s.operators_linked, s.operators));
    if (s.rf_id_name_mismatches)
        out += fmt::format("rf id found, name differs {:>7}  (not linked)\n", s.rf_id_name_mismatches);
    if (s.nesting_conflicts)
        out += fmt::format("dropped: not nested in their parent's event {:>5}\n", s.nesting_conflicts);
    out += fmt::format("profile host ops used  {:>10} of {}\n", s.profile_host_events_linked, s.profile_host_events);
    if (s.profiled_iterations > 1)
        out += fmt::format("profiled iterations    {:>10}  (durations of {} linked nodes are medians over them)\n",
                           s.profiled_iterations, s.nodes_with_repeats);
    out += fmt::format("device work attached   {:>10} of {}  (kernels {}, memcpys {}, memsets {})\n",
                       s.kernels_attached + s.memcpys_attached + s.memsets_attached, s.profile_device_events,
                       s.kernels_attached, s.memcpys_attached, s.memsets_attached);
    if (s.device_without_launch)
        out += fmt::format("  no launch found      {:>10}\n", s.device_without_launch);
    if (s.device_outside_et)
        out += fmt::format("  launched outside the ET {:>7}\n", s.device_outside_et);
    for (const ThreadPairing& t : s.threads)
        out += fmt::format("thread: ET tid {} <-> profile {}/{}: {} of {} nodes linked ({} profiler ops)\n", t.et_tid,
                           t.profile_pid, t.profile_tid, t.linked, t.et_nodes, t.profile_events);
    return out;
}

}  // namespace mimic
