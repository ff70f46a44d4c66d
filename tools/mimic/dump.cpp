// mimic dump FILE.et [--out FILE.json]
// Prints a Chakra trace as JSON: {"metadata": ..., "nodes": [...]}, one node
// per line, in protobuf's JSON mapping (`mimic encode` turns it back).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "command.h"
#include "io/chakra/chakra_json.h"
#include "support/error.h"

namespace mimic::cli {
namespace {

struct DumpArgs {
    std::string trace;
    std::string out;
};

int run(const DumpArgs& args) {
    if (args.out.empty() || args.out == "-") {
        dump_chakra_json(args.trace, std::cout);
        std::cout.flush();
        if (!std::cout) fail({"", -1, -1, ""}, "write error on stdout");
        return 0;
    }
    std::ofstream out(args.out, std::ios::binary | std::ios::trunc);
    if (!out) fail({args.out, -1, -1, ""}, "cannot create the output file");
    const ChakraJsonStats stats = dump_chakra_json(args.trace, out);
    out.close();
    if (!out) fail({args.out, -1, -1, ""}, "write error");
    std::fprintf(stderr, "%s: %llu nodes, %llu bytes of JSON\n", args.out.c_str(), (unsigned long long)stats.nodes,
                 (unsigned long long)stats.bytes);
    return 0;
}

const Registrar registrar{{
    "dump",
    "Print a Chakra .et trace as JSON",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<DumpArgs>();
        app.add_option("trace", args->trace, "Chakra trace (.et, plain or gzip)")->required();
        app.add_option("-o,--out", args->out, "write the JSON to FILE instead of stdout");
        app.footer("Example: mimic dump chakra/job.0.et > job.0.json");
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli
