// bsub -w expressions: parsing, the three-valued evaluation, errors.
#include <gtest/gtest.h>

#include <map>

#include "libsched/dependency.h"

using namespace lsf::sched;
using Phase = DependencyJob::Phase;

namespace {

struct Jobs {
  std::map<std::int64_t, std::vector<DependencyJob>> by_id;
  std::map<std::string, std::int64_t> by_name;
  DependencyState eval(const std::string& text) const {
    auto e = DependencyExpr::parse(text);
    EXPECT_TRUE(e.ok()) << e.error();
    return e->evaluate([&](const DependencyRef& r) {
      std::int64_t id = r.name.empty() ? r.job_id : (by_name.count(r.name) ? by_name.at(r.name) : -1);
      auto it = by_id.find(id);
      if (it == by_id.end()) return std::vector<DependencyJob>{};
      if (r.index > 0) return std::vector<DependencyJob>{it->second.at(static_cast<size_t>(r.index - 1))};
      return it->second;
    });
  }
};

}  // namespace

TEST(Dependency, DoneEndedExitStarted) {
  Jobs j;
  j.by_id[1] = {{Phase::kDone, 0}};
  j.by_id[2] = {{Phase::kExit, 3}};
  j.by_id[3] = {{Phase::kRunning, 0}};
  j.by_name["build"] = 1;
  EXPECT_EQ(j.eval("done(1)"), DependencyState::kSatisfied);
  EXPECT_EQ(j.eval("1"), DependencyState::kSatisfied);  // a bare id means done()
  EXPECT_EQ(j.eval("done(2)"), DependencyState::kNever);
  EXPECT_EQ(j.eval("done(3)"), DependencyState::kWaiting);
  EXPECT_EQ(j.eval("ended(2)"), DependencyState::kSatisfied);
  EXPECT_EQ(j.eval("exit(2)"), DependencyState::kSatisfied);
  EXPECT_EQ(j.eval("exit(2, 3)"), DependencyState::kSatisfied);
  EXPECT_EQ(j.eval("exit(2, != 3)"), DependencyState::kNever);
  EXPECT_EQ(j.eval("exit(2, > 1)"), DependencyState::kSatisfied);
  EXPECT_EQ(j.eval("started(3)"), DependencyState::kSatisfied);
  EXPECT_EQ(j.eval("done(build) && ended(\"build\")"), DependencyState::kSatisfied);
  EXPECT_EQ(j.eval("done(3) || exit(2)"), DependencyState::kSatisfied);
  EXPECT_EQ(j.eval("done(3) && done(2)"), DependencyState::kNever);
  EXPECT_EQ(j.eval("!done(3)"), DependencyState::kSatisfied);
  EXPECT_EQ(j.eval("(done(1) && !done(3)) || done(2)"), DependencyState::kSatisfied);
}

TEST(Dependency, ArrayCounters) {
  Jobs j;
  j.by_id[7] = {{Phase::kDone, 0}, {Phase::kDone, 0}, {Phase::kRunning, 0}, {Phase::kPending, 0}};
  EXPECT_EQ(j.eval("numdone(7, >= 2)"), DependencyState::kSatisfied);
  EXPECT_EQ(j.eval("numdone(7, *)"), DependencyState::kWaiting);
  EXPECT_EQ(j.eval("numrun(7, == 1)"), DependencyState::kSatisfied);
  EXPECT_EQ(j.eval("numpend(7, 1)"), DependencyState::kSatisfied);
  EXPECT_EQ(j.eval("done(7[2])"), DependencyState::kSatisfied);
  EXPECT_EQ(j.eval("done(7)"), DependencyState::kWaiting);
}

TEST(Dependency, SyntaxErrorsSayWhat) {
  EXPECT_EQ(DependencyExpr::parse("done(1").error(), "Dependency condition syntax error: missing \")\" after done(");
  EXPECT_EQ(DependencyExpr::parse("numdone(1)").error(),
            "Dependency condition syntax error: numdone() needs a comparison, e.g. numdone(12, >= 5)");
  EXPECT_EQ(DependencyExpr::parse("done(1) &&").error(), "Dependency condition syntax error: missing job id or name");
  EXPECT_FALSE(DependencyExpr::parse("done(1) junk").ok());
}

TEST(Dependency, ReferencesForSubmissionChecks) {
  auto e = DependencyExpr::parse("done(12) && exit(\"nightly run\", 2) || ended(5[3])");
  ASSERT_TRUE(e.ok());
  auto refs = e->references();
  ASSERT_EQ(refs.size(), 3u);
  EXPECT_EQ(refs[0].job_id, 12);
  EXPECT_EQ(refs[1].name, "nightly run");
  EXPECT_EQ(refs[2].job_id, 5);
  EXPECT_EQ(refs[2].index, 3);
}
