#include "support/phase_progress.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

namespace mimic {
namespace {

TEST(PhaseProgress, DescribesPhasePassAndStepsDone) {
    PhaseProgress p("mimic replay", "ops");
    p.phase("planning", 1, 0);
    EXPECT_NE(p.describe().find("mimic replay: planning, "), std::string::npos) << p.describe();
    p.phase("checking every op once", 1, 3552);
    p.steps_done(1234);
    EXPECT_NE(p.describe().find("mimic replay: checking every op once: 1234 of 3552 ops, "), std::string::npos)
        << p.describe();
    p.phase("per-op passes", 3, 3552);
    p.steps_done(3552);
    p.pass_done();
    p.steps_done(10);
    EXPECT_NE(p.describe().find("per-op passes 2 of 3: 10 of 3552 ops"), std::string::npos) << p.describe();
    p.phase("fitting fresh pages", 0, 3552);
    p.pass_done();
    EXPECT_NE(p.describe().find("fitting fresh pages, pass 2: 0 of 3552 ops"), std::string::npos) << p.describe();
    p.steps_done(99999);  // more than a pass has: shown as the pass's total
    EXPECT_NE(p.describe().find("3552 of 3552 ops"), std::string::npos) << p.describe();
    p.aside("restoring the inputs");  // between passes, until the next step
    EXPECT_NE(p.describe().find("fitting fresh pages, pass 2: restoring the inputs, "), std::string::npos) << p.describe();
    p.steps_done(1);
    EXPECT_NE(p.describe().find("fitting fresh pages, pass 2: 1 of 3552 ops"), std::string::npos) << p.describe();
    p.finish();
}

// Off a terminal a line comes every interval from the progress thread,
// while the work reports nothing (one op that takes minutes).
TEST(PhaseProgress, PrintsLinesWhileTheWorkIsSilent) {
    if (std::getenv("MIMIC_NO_PROGRESS")) GTEST_SKIP() << "MIMIC_NO_PROGRESS is set";
    testing::internal::CaptureStderr();
    {
        PhaseProgress p("mimic test", "ops", std::chrono::milliseconds(40));
        p.note("too early to show");
        p.phase("timed iterations", 2, 10);
        p.steps_done(7);
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        p.note("timed iteration 1 of 2: 12.5 ms");
        p.finish();
        p.finish();  // idempotent
    }
    const std::string out = testing::internal::GetCapturedStderr();
    EXPECT_NE(out.find("mimic test: timed iterations 1 of 2: 7 of 10 ops, "), std::string::npos) << out;
    EXPECT_NE(out.find("mimic test: timed iteration 1 of 2: 12.5 ms\n"), std::string::npos) << out;
    EXPECT_EQ(out.find("too early"), std::string::npos) << out;
}

}  // namespace
}  // namespace mimic
