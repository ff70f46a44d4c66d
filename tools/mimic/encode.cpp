// mimic encode FILE.json --out FILE.et
// Turns a Chakra trace written as JSON (as `mimic dump` writes it, or edited
// by hand; or as Chakra's jsonizer or its JSON feeder format have it) into a
// Chakra .et file.
#include <cstdio>
#include <memory>
#include <string>

#include "command.h"
#include "io/chakra/chakra_json.h"

namespace mimic::cli {
namespace {

struct EncodeArgs {
    std::string json;
    std::string out;
};

int run(const EncodeArgs& args) {
    const ChakraJsonStats stats = encode_chakra_json(args.json, args.out);
    print_read_warnings(args.json, stats.warnings);
    std::fprintf(stderr, "%s: %llu nodes, %llu bytes\n", args.out.c_str(), (unsigned long long)stats.nodes,
                 (unsigned long long)stats.bytes);
    return 0;
}

const Registrar registrar{{
    "encode",
    "Encode a Chakra trace written as JSON (mimic dump, Chakra's jsonizer, Chakra's JSON feeder format) as a Chakra .et file",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<EncodeArgs>();
        app.add_option("json", args->json, "Chakra as JSON (plain or gzip): {\"metadata\": ..., \"nodes\": [...]}, jsonizer output, or {\"workload_graph\": [...]}")
            ->required();
        app.add_option("-o,--out", args->out, "Chakra trace to write")->required();
        app.footer("Example: mimic encode job.0.json --out job.0.et");
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli
