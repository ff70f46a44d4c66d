// The FIFO protocol a benchmark driver uses to alternate the replay with the
// original (support/paced_runs.h), driven here by a thread in the driver's role.
#include "support/paced_runs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/error.h"
#include "test_support.h"

namespace mimic {
namespace {

// Fresh FIFOs for rank 0 under a scratch prefix.
std::string make_fifos(const std::string& name) {
    const std::string prefix = testing::scratch_dir("paced_runs") + "/" + name;
    const auto [go, done] = paced_fifo_paths(prefix, 0);
    for (const std::string& p : {go, done}) {
        ::unlink(p.c_str());
        EXPECT_EQ(::mkfifo(p.c_str(), 0600), 0) << p;
    }
    return prefix;
}

// Plays the driver: sends each command and collects a reply line after each "run".
std::vector<std::string> drive(const std::string& prefix, const std::vector<std::string>& commands) {
    const auto [go_path, done_path] = paced_fifo_paths(prefix, 0);
    std::vector<std::string> replies;
    std::ofstream go(go_path);
    std::ifstream done(done_path);
    for (const std::string& c : commands) {
        go << c << '\n' << std::flush;
        std::string line;
        if (c.rfind("run", 0) == 0 && std::getline(done, line)) replies.push_back(line);
    }
    return replies;
}

TEST(PacedRuns, RunsEachBlockAndRepliesWithItsTimes) {
    const std::string prefix = make_fifos("blocks");
    std::vector<std::string> replies;
    std::thread driver([&] { replies = drive(prefix, {"run 1 2", "run 0 1", "stop"}); });
    int untimed = 0, timed = 0;
    const std::vector<double> times = run_paced(prefix, 0, [&](bool is_timed) {
        if (!is_timed) return double(++untimed) * 100;
        return double(++timed) + 0.5;
    });
    driver.join();
    EXPECT_EQ(untimed, 1);
    EXPECT_EQ(timed, 3);
    EXPECT_EQ(times, (std::vector<double>{1.5, 2.5, 3.5}));
    ASSERT_EQ(replies.size(), 2u);
    EXPECT_EQ(replies[0], "1.500000 2.500000");
    EXPECT_EQ(replies[1], "3.500000");
}

TEST(PacedRuns, OpsIsAnsweredByTheOpPassWhenThereIsOne) {
    const std::string prefix = make_fifos("ops");
    std::vector<std::string> replies;
    std::thread driver([&] {
        const auto [go_path, done_path] = paced_fifo_paths(prefix, 0);
        std::ofstream go(go_path);
        std::ifstream done(done_path);
        for (const char* c : {"ops", "run 0 1", "ops"}) {
            go << c << '\n' << std::flush;
            std::string line;
            if (std::getline(done, line)) replies.push_back(line);
        }
        go << "stop\n" << std::flush;
    });
    int passes = 0;
    const std::vector<double> times = run_paced(
        prefix, 0, [](bool) { return 4.0; }, [&] { return "7:1.5 9:" + std::to_string(++passes); });
    driver.join();
    EXPECT_EQ(times, (std::vector<double>{4.0}));
    EXPECT_EQ(replies, (std::vector<std::string>{"7:1.5 9:1", "4.000000", "7:1.5 9:2"}));
}

TEST(PacedRuns, DriverClosingItsEndStopsTheRuns) {
    const std::string prefix = make_fifos("eof");
    std::thread driver([&] { drive(prefix, {"run 0 1"}); });
    const std::vector<double> times = run_paced(prefix, 0, [](bool) { return 2.0; });
    driver.join();
    EXPECT_EQ(times, (std::vector<double>{2.0}));
}

TEST(PacedRuns, MalformedCommandNamesTheFifoAndTheLine) {
    for (const char* bad : {"run 1", "go 1 2", "run 1 0", "run -1 3", "run 1 2 3", "run 1 999999999", "ops"}) {
        const std::string prefix = make_fifos("bad");
        std::thread driver([&] { drive(prefix, {bad}); });
        try {
            run_paced(prefix, 0, [](bool) { return 1.0; });
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(".go.rank0"), std::string::npos) << what;
            EXPECT_NE(what.find(std::string("'") + bad + "'"), std::string::npos) << what;
        }
        driver.join();
    }
}

TEST(PacedRuns, DriverGoneBeforeTheReplyIsAnErrorNotASignal) {
    const std::string prefix = make_fifos("gone");
    const auto [go_path, done_path] = paced_fifo_paths(prefix, 0);
    std::thread driver([&] {
        std::ofstream go(go_path);
        { std::ifstream done(done_path); }  // opened, then closed before any reply
        go << "run 0 1\n" << std::flush;
    });
    try {
        run_paced(prefix, 0, [](bool) { return 1.0; });
        ADD_FAILURE() << "a reply to a closed FIFO did not fail";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(".done.rank0"), std::string::npos) << e.what();
    }
    driver.join();
}

TEST(PacedRuns, MissingFifoIsAnError) {
    const std::string prefix = testing::scratch_dir("paced_runs") + "/absent";
    EXPECT_THROW(run_paced(prefix, 0, [](bool) { return 1.0; }), Error);
}

}  // namespace
}  // namespace mimic
