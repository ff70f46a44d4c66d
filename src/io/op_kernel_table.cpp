#include "io/op_kernel_table.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

#include "support/byte_source.h"
#include "support/error.h"

namespace mimic {

namespace {
constexpr std::string_view kHeader = "# mimic op kernel table v1";
constexpr const char* kDefaultName = "mimic-cpu-ops.tsv";

const char* kernel_word(OpKernel k) {
    switch (k) {
        case OpKernel::CpuKernel: return "cpu";
        case OpKernel::NoCpuKernel: return "none";
        case OpKernel::NotRegistered: break;
    }
    return "unregistered";
}

std::string executable_dir() {
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().string();
}
}  // namespace

std::string_view operator_key_of_schema(std::string_view op_schema) {
    std::string_view head = op_schema.substr(0, op_schema.find('('));
    while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
    return head;
}

OpKernel OpKernelTable::lookup(std::string_view op_schema) const {
    auto it = ops_.find(std::string(operator_key_of_schema(op_schema)));
    return it == ops_.end() ? OpKernel::NotRegistered : it->second;
}

std::string OpKernelTable::to_text() const {
    std::vector<std::pair<std::string, OpKernel>> sorted(ops_.begin(), ops_.end());
    std::sort(sorted.begin(), sorted.end());
    std::ostringstream out;
    out << kHeader << "\n# libtorch " << libtorch_version_ << "\n";
    for (const auto& [key, kernel] : sorted) out << key << '\t' << kernel_word(kernel) << '\n';
    return out.str();
}

OpKernelTable OpKernelTable::load(const std::string& path) {
    OpKernelTable table;
    table.source_ = path;
    std::istringstream in(read_whole_file(path));
    std::string line;
    int64_t line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (line_no == 1) {
            if (line != kHeader) fail({path, -1, -1, ""}, "not a mimic op kernel table (first line is not \"" + std::string(kHeader) + "\")");
            continue;
        }
        if (line.rfind("# libtorch ", 0) == 0) {
            table.libtorch_version_ = line.substr(11);
            continue;
        }
        if (line.empty() || line[0] == '#') continue;
        size_t tab = line.find('\t');
        if (tab == std::string::npos)
            fail({path, -1, -1, "line " + std::to_string(line_no)}, "expected \"ns::op.overload<TAB>cpu|none\"");
        std::string word = line.substr(tab + 1);
        OpKernel k = word == "cpu" ? OpKernel::CpuKernel : word == "none" ? OpKernel::NoCpuKernel : OpKernel::NotRegistered;
        if (k == OpKernel::NotRegistered)
            fail({path, -1, -1, "line " + std::to_string(line_no)}, "unknown kernel word \"" + word + "\"");
        table.ops_[line.substr(0, tab)] = k;
    }
    return table;
}

OpKernelTable OpKernelTable::load_default() {
    if (const char* env = std::getenv("MIMIC_OP_TABLE"); env && *env) return load(env);
    std::string dir = executable_dir();
    if (!dir.empty() && std::filesystem::exists(dir + "/" + kDefaultName)) return load(dir + "/" + kDefaultName);
    return OpKernelTable();
}

}  // namespace mimic
