#include "support/machine_info.h"

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "support/error.h"
#include "support/json_file.h"
#include "support/json_writer.h"
#include "support/text.h"

namespace mimic {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Calls `f(line)` for each line of `text`.
template <typename F>
void each_line(std::string_view text, F&& f) {
    while (!text.empty()) {
        const size_t nl = text.find('\n');
        f(text.substr(0, nl));
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
}

// A procfs file: its size reads as 0, so it is read to its end.
std::string read_proc_file(const char* path) {
    std::ifstream in(path);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

// A mapped file's BLAS library from its name; "libblas" for a libblas.so
// whose provider only its directory tells; "" for anything else.
std::string library_of_file(std::string_view path) {
    const size_t slash = path.find_last_of('/');
    const std::string name = lower(path.substr(slash == std::string_view::npos ? 0 : slash + 1));
    if (name.find("openblas") != std::string::npos) return "openblas";
    if (starts_with(name, "libblis")) return "blis";
    if (starts_with(name, "libmkl")) return "mkl";
    if (starts_with(name, "libatlas") || starts_with(name, "libsatlas") || starts_with(name, "libtatlas")) return "atlas";
    if (starts_with(name, "libflexiblas")) return "flexiblas";
    if (starts_with(name, "libblas.so") || starts_with(name, "libblas64.so")) return "libblas";
    return "";
}

// A libblas.so named by the directory update-alternatives (or a distribution) put it in.
std::string library_of_libblas_dir(std::string_view path) {
    const size_t slash = path.find_last_of('/');
    if (slash == std::string_view::npos || slash == 0) return "libblas";
    std::string_view dir = path.substr(0, slash);
    const std::string name = lower(dir.substr(dir.find_last_of('/') + 1));
    if (name.find("openblas") != std::string::npos) return "openblas";
    if (name.find("blis") != std::string::npos) return "blis";
    if (name.find("atlas") != std::string::npos) return "atlas";
    if (name.find("mkl") != std::string::npos) return "mkl";
    if (name == "blas" || name == "blas64" || name == "netlib") return "reference";
    return "libblas";
}

// Bundled copies that torch never calls (numpy's and scipy's wheels ship their own OpenBLAS).
bool bundled_elsewhere(std::string_view path) {
    return path.find("numpy.libs/") != std::string_view::npos || path.find("scipy.libs/") != std::string_view::npos ||
           path.find("/numpy/.libs/") != std::string_view::npos || path.find("/scipy/.libs/") != std::string_view::npos;
}

// "1.13.0a0+git..." -> "1.13.0": the release number alone.
std::string release_number(std::string_view v) {
    size_t n = 0;
    while (n < v.size() && (std::isdigit(static_cast<unsigned char>(v[n])) || v[n] == '.')) ++n;
    std::string_view r = v.substr(0, n);
    while (!r.empty() && r.back() == '.') r.remove_suffix(1);
    return r.empty() ? std::string(v) : std::string(r);
}

std::string env_value(const std::optional<std::string>& v) { return v ? *v : "unset"; }

// The library's own answers, asked through the handle of the file already mapped.
void ask_the_library(BlasInfo& b) {
    if (b.path.empty()) return;
    void* h = ::dlopen(b.path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!h) return;
    auto sym = [&](const char* name) { return ::dlsym(h, name); };
    if (b.library == "openblas") {
        if (auto f = reinterpret_cast<char* (*)()>(sym("openblas_get_config"))) b.config = std::string(trim(f()));
        if (auto f = reinterpret_cast<int (*)()>(sym("openblas_get_num_threads"))) b.threads = f();
    } else if (b.library == "blis") {
        if (auto f = reinterpret_cast<const char* (*)()>(sym("bli_info_get_version_str"))) b.config = "BLIS " + std::string(f());
        if (auto f = reinterpret_cast<int64_t (*)()>(sym("bli_thread_get_num_threads"))) b.threads = f();
    } else if (b.library == "mkl") {
        if (auto f = reinterpret_cast<int (*)()>(sym("mkl_get_max_threads"))) b.threads = f();
    }
    ::dlclose(h);
}

// Typed reads of a JSON object's fields; a wrong type is an error naming prefix + key.
struct FieldReader {
    simdjson::dom::object obj;
    const std::string& path;
    std::string prefix;

    bool has(const char* key) const {
        simdjson::dom::element e;
        return obj[key].get(e) == simdjson::SUCCESS;
    }
    std::string text(const char* key) const {
        simdjson::dom::element e;
        if (obj[key].get(e) || e.is_null()) return "";
        std::string_view v;
        if (e.get_string().get(v)) fail({path, -1, -1, prefix + key}, "expected a string or null");
        return std::string(v);
    }
    std::optional<std::string> optional_text(const char* key) const {
        simdjson::dom::element e;
        if (obj[key].get(e) || e.is_null()) return std::nullopt;
        std::string_view v;
        if (e.get_string().get(v)) fail({path, -1, -1, prefix + key}, "expected a string or null");
        return std::string(v);
    }
    std::optional<int64_t> count(const char* key) const {
        simdjson::dom::element e;
        if (obj[key].get(e) || e.is_null()) return std::nullopt;
        int64_t v = 0;
        if (e.get_int64().get(v) || v < 0) fail({path, -1, -1, prefix + key}, "expected a non-negative integer or null");
        return v;
    }
};

}  // namespace

std::string cpu_model_from_cpuinfo(std::string_view cpuinfo) {
    std::string model;
    each_line(cpuinfo, [&](std::string_view line) {
        if (!model.empty()) return;
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) return;
        const std::string_view key = trim(line.substr(0, colon));
        if (key == "model name" || key == "Model" || key == "cpu model") model = std::string(trim(line.substr(colon + 1)));
    });
    return model;
}

std::optional<int64_t> physical_cores_from_cpuinfo(std::string_view cpuinfo) {
    std::set<std::pair<std::string, std::string>> cores;
    std::string package = "0", core;
    bool any = false;
    auto end_block = [&] {
        if (!core.empty()) cores.emplace(package, core);
        package = "0";
        core.clear();
    };
    each_line(cpuinfo, [&](std::string_view line) {
        if (trim(line).empty()) return end_block();
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) return;
        const std::string_view key = trim(line.substr(0, colon));
        if (key == "physical id") package = std::string(trim(line.substr(colon + 1)));
        if (key == "core id") {
            core = std::string(trim(line.substr(colon + 1)));
            any = true;
        }
    });
    end_block();
    if (!any) return std::nullopt;
    return int64_t(cores.size());
}

BlasInfo blas_from_maps(std::string_view maps) {
    // libtorch links libblas.so.3 (Debian's, through update-alternatives): the
    // one mapped is the GEMM's provider, even when OpenBLAS is mapped too (for
    // liblapack.so.3, whose alternative can still be OpenBLAS's when libblas's
    // is the reference). A library's own file only without one (pip wheels).
    static const char* const kPreference[] = {"libblas", "openblas", "blis", "mkl", "atlas", "flexiblas"};
    std::map<std::string, std::string> found;  // library -> its first path in name order
    each_line(maps, [&](std::string_view line) {
        // address perms offset dev inode path (the path may hold spaces)
        const size_t slash = line.find('/');
        if (slash == std::string_view::npos) return;
        std::string_view path = trim(line.substr(slash));
        constexpr std::string_view kDeleted = " (deleted)";
        if (path.size() > kDeleted.size() && path.substr(path.size() - kDeleted.size()) == kDeleted)
            path.remove_suffix(kDeleted.size());
        if (bundled_elsewhere(path)) return;
        const std::string lib = library_of_file(path);
        if (lib.empty()) return;
        auto [it, added] = found.emplace(lib, std::string(path));
        if (!added && std::string(path) < it->second) it->second = std::string(path);
    });
    BlasInfo b;
    for (const char* lib : kPreference) {
        auto it = found.find(lib);
        if (it == found.end()) continue;
        b.path = it->second;
        b.library = lib == std::string("libblas") ? library_of_libblas_dir(b.path) : lib;
        break;
    }
    return b;
}

std::string blas_from_torch_config(std::string_view config) {
    constexpr std::string_view kKey = "BLAS_INFO=";
    const size_t at = config.find(kKey);
    if (at == std::string_view::npos) return "";
    std::string_view v = config.substr(at + kKey.size());
    const size_t end = v.find_first_of(", \n");
    return std::string(trim(v.substr(0, end)));
}

MachineInfo describe_this_process() {
    MachineInfo m;
    char host[256] = {};
    if (::gethostname(host, sizeof(host) - 1) == 0) m.hostname = host;
    const std::string cpuinfo = read_proc_file("/proc/cpuinfo");
    m.cpu_model = cpu_model_from_cpuinfo(cpuinfo);
    m.physical_cores = physical_cores_from_cpuinfo(cpuinfo);
    if (const unsigned n = std::thread::hardware_concurrency()) m.logical_cores = int64_t(n);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof(set), &set) == 0) m.usable_cores = CPU_COUNT(&set);
    m.blas = blas_from_maps(read_proc_file("/proc/self/maps"));
    if (!m.blas.path.empty()) {
        std::error_code ec;
        const std::filesystem::path real = std::filesystem::canonical(m.blas.path, ec);
        if (!ec) m.blas.path = real.string();
        ask_the_library(m.blas);
    }
    m.env_known = true;
    for (const char* var : kMachineEnvVars) {
        const char* v = std::getenv(var);
        m.env[var] = v ? std::optional<std::string>(v) : std::nullopt;
    }
    return m;
}

std::optional<MachineInfo> machine_from_json(const simdjson::dom::element& machine, const std::string& path) {
    simdjson::dom::object obj;
    if (machine.get_object().get(obj)) fail({path, -1, -1, "machine"}, "expected an object");
    const FieldReader r{obj, path, "machine."};
    MachineInfo m;
    m.hostname = r.text("hostname");
    m.cpu_model = r.text("cpu_model");
    m.logical_cores = r.count("logical_cores");
    m.physical_cores = r.count("physical_cores");
    m.usable_cores = r.count("usable_cores");
    m.torch_version = r.text("torch_version");
    m.intra_op_threads = r.count("intra_op_threads");
    m.inter_op_threads = r.count("inter_op_threads");
    simdjson::dom::element e;
    if (!obj["blas"].get(e) && !e.is_null()) {
        simdjson::dom::object blas;
        if (e.get_object().get(blas)) fail({path, -1, -1, "machine.blas"}, "expected an object or null");
        const FieldReader b{blas, path, "machine.blas."};
        m.blas.library = b.text("library");
        m.blas.path = b.text("path");
        m.blas.config = b.text("config");
        m.blas.threads = b.count("threads");
    }
    if (!obj["env"].get(e) && !e.is_null()) {
        simdjson::dom::object env;
        if (e.get_object().get(env)) fail({path, -1, -1, "machine.env"}, "expected an object or null");
        const FieldReader v{env, path, "machine.env."};
        m.env_known = true;
        for (const char* var : kMachineEnvVars) m.env[var] = v.optional_text(var);
    }
    return m;
}

std::optional<MachineInfo> machine_from_meta(const simdjson::dom::object& meta, const std::string& path) {
    simdjson::dom::element machine;
    if (!meta["machine"].get(machine) && !machine.is_null()) return machine_from_json(machine, path);
    // Schema 1: a few of these at the top level.
    const FieldReader r{meta, path, ""};
    if (!r.has("cpu_model") && !r.has("torch_version") && !r.has("intra_op_threads")) return std::nullopt;
    MachineInfo m;
    m.hostname = r.text("hostname");
    m.cpu_model = r.text("cpu_model");
    m.logical_cores = r.count("cpu_count");
    m.usable_cores = r.count("cpu_affinity_count");
    m.torch_version = r.text("torch_version");
    m.intra_op_threads = r.count("intra_op_threads");
    m.inter_op_threads = r.count("inter_op_threads");
    return m;
}

std::optional<MachineInfo> read_machine_from_meta(const std::string& meta_path) {
    if (meta_path.empty()) return std::nullopt;
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    const simdjson::dom::object doc = parse_json_object_file(meta_path, parser, text);
    return machine_from_meta(doc, meta_path);
}

std::vector<MachineDifference> compare_machines(const MachineInfo& a, const MachineInfo& b) {
    std::vector<MachineDifference> out;
    auto text = [&](const char* field, const std::string& x, const std::string& y) {
        if (!x.empty() && !y.empty() && x != y) out.push_back({field, x, y});
    };
    auto count = [&](const char* field, const std::optional<int64_t>& x, const std::optional<int64_t>& y) {
        if (x && y && *x != *y) out.push_back({field, std::to_string(*x), std::to_string(*y)});
    };
    text("cpu_model", a.cpu_model, b.cpu_model);
    count("logical_cores", a.logical_cores, b.logical_cores);
    count("physical_cores", a.physical_cores, b.physical_cores);
    count("usable_cores", a.usable_cores, b.usable_cores);
    text("blas", a.blas.library, b.blas.library);
    if (!a.blas.library.empty() && a.blas.library == b.blas.library) {
        text("blas_path", a.blas.path, b.blas.path);
        text("blas_config", a.blas.config, b.blas.config);
    }
    count("blas_threads", a.blas.threads, b.blas.threads);
    if (!a.torch_version.empty() && !b.torch_version.empty() &&
        release_number(a.torch_version) != release_number(b.torch_version))
        out.push_back({"torch_version", a.torch_version, b.torch_version});
    count("intra_op_threads", a.intra_op_threads, b.intra_op_threads);
    count("inter_op_threads", a.inter_op_threads, b.inter_op_threads);
    if (a.env_known && b.env_known)
        for (const char* var : kMachineEnvVars) {
            const auto ia = a.env.find(var), ib = b.env.find(var);
            const std::optional<std::string> va = ia == a.env.end() ? std::nullopt : ia->second;
            const std::optional<std::string> vb = ib == b.env.end() ? std::nullopt : ib->second;
            if (va != vb) out.push_back({var, env_value(va), env_value(vb)});
        }
    return out;
}

std::string machine_summary(const MachineInfo& m) {
    auto n = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string("?"); };
    std::string s;
    if (!m.hostname.empty()) s += "host " + m.hostname + ", ";
    s += m.cpu_model.empty() ? "CPU unknown" : m.cpu_model;
    s += fmt::format(", {} logical / {} physical / {} usable cores", n(m.logical_cores), n(m.physical_cores),
                     n(m.usable_cores));
    if (m.blas.library.empty()) {
        s += ", BLAS unknown";
    } else {
        s += ", BLAS " + m.blas.library;
        if (m.blas.threads) s += fmt::format(" {} threads", *m.blas.threads);
        std::string detail = m.blas.config;
        if (!m.blas.path.empty()) detail += (detail.empty() ? "" : "; ") + m.blas.path;
        if (!detail.empty()) s += " (" + detail + ")";
    }
    s += ", torch " + (m.torch_version.empty() ? std::string("?") : m.torch_version);
    s += fmt::format(" with {} intra-op / {} inter-op threads", n(m.intra_op_threads), n(m.inter_op_threads));
    if (!m.env_known) {
        s += ", thread variables not recorded";
    } else {
        std::string set;
        for (const char* var : kMachineEnvVars)
            if (auto it = m.env.find(var); it != m.env.end() && it->second)
                set += (set.empty() ? "" : ", ") + std::string(var) + "=" + *it->second;
        s += set.empty() ? ", no thread variable set" : ", " + set;
    }
    return s;
}

std::string machine_warning(const MachineDifference& d, const std::string& label_a, const std::string& label_b) {
    return fmt::format("warning: machines differ: {} {} ({}) vs {} ({})", d.field, d.a, label_a, d.b, label_b);
}

std::string machines_text(const MachinePair& p, std::string_view indent) {
    std::string out;
    auto one = [&](const std::optional<MachineInfo>& m, const std::string& label) {
        out += fmt::format("{}machine ({}): {}\n", indent, label,
                           m ? machine_summary(*m) : std::string("unknown (no meta.json, or one without it)"));
    };
    one(p.a, p.label_a);
    one(p.b, p.label_b);
    if (p.a && p.b)
        for (const MachineDifference& d : compare_machines(*p.a, *p.b))
            out += fmt::format("{}{}\n", indent, machine_warning(d, p.label_a, p.label_b));
    return out;
}

void write_machine_json(JsonWriter& w, const MachineInfo& m) {
    auto text = [&](const char* key, const std::string& v) {
        if (v.empty()) w.key(key).null();
        else w.field(key, v);
    };
    auto count = [&](const char* key, const std::optional<int64_t>& v) {
        if (v) w.field(key, *v);
        else w.key(key).null();
    };
    w.begin_object();
    text("hostname", m.hostname);
    text("cpu_model", m.cpu_model);
    count("logical_cores", m.logical_cores);
    count("physical_cores", m.physical_cores);
    count("usable_cores", m.usable_cores);
    w.key("blas");
    if (m.blas.library.empty() && m.blas.path.empty()) {
        w.null();
    } else {
        w.begin_object();
        text("library", m.blas.library);
        text("path", m.blas.path);
        text("config", m.blas.config);
        count("threads", m.blas.threads);
        w.end_object();
    }
    text("torch_version", m.torch_version);
    count("intra_op_threads", m.intra_op_threads);
    count("inter_op_threads", m.inter_op_threads);
    w.key("env");
    if (!m.env_known) {
        w.null();
    } else {
        w.begin_object();
        for (const char* var : kMachineEnvVars) {
            auto it = m.env.find(var);
            if (it != m.env.end() && it->second) w.field(var, *it->second);
            else w.key(var).null();
        }
        w.end_object();
    }
    w.end_object();
}

void write_machines_json(JsonWriter& w, const MachinePair& p) {
    w.begin_object();
    w.key(p.label_a);
    if (p.a) write_machine_json(w, *p.a);
    else w.null();
    w.key(p.label_b);
    if (p.b) write_machine_json(w, *p.b);
    else w.null();
    w.key("differences").begin_array();
    if (p.a && p.b)
        for (const MachineDifference& d : compare_machines(*p.a, *p.b))
            w.begin_object().field("field", d.field).field(p.label_a, d.a).field(p.label_b, d.b).end_object();
    w.end_array();
    w.end_object();
}

}  // namespace mimic
