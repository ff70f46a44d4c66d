#include "replay/replay_recording.h"

#include <ATen/record_function.h>
#include <torch/csrc/profiler/execution_graph_observer.h>

#include <filesystem>

#include "support/error.h"

namespace mimic::replay {

std::string record_replay(Replayer& replayer, const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) fail({dir, -1, -1, ""}, "cannot create directory: " + ec.message());
    const std::string path = (std::filesystem::path(dir) / "et.json").string();
    if (!torch::profiler::impl::addExecutionGraphObserver(path)) fail({path, -1, -1, ""}, "cannot install the execution trace observer");
    torch::profiler::impl::enableExecutionGraphObserver();
    {
        // The label lets `mimic replay DIR/et.json` and diff find the iteration as in a recording.
        RECORD_USER_SCOPE("ProfilerStep#0");
        replayer.run_iteration();
    }
    torch::profiler::impl::disableExecutionGraphObserver();
    torch::profiler::impl::removeExecutionGraphObserver();  // finalises the file
    return path;
}

}  // namespace mimic::replay
