// The master's term and lease files (daemons/common/master_lease.h): one holder per
// term even when candidates race, renewal refused once a later term exists, and a
// candidate's view of when the master is gone, on its own clock.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "daemons/common/master_lease.h"
#include "daemons/mbatchd/master_role.h"

using namespace lsf;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/master-lease-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST(MasterLease, NoTermBeforeTheFirstClaim) {
  TempDir dir;
  auto t = net::MasterLease(dir.path / "logdir").current();
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(t->epoch, 0);
}

TEST(MasterLease, AClaimNamesItsHolderAndASecondClaimOfTheSameTermFails) {
  TempDir dir;
  net::MasterLease lease(dir.path);
  auto first = lease.claim(0, "hostA", "", 6881);
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first->epoch, 1);
  auto second = lease.claim(0, "hostB", "", 6881);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error(), "term 1 was claimed by another candidate");
  auto now = lease.current();
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->epoch, 1);
  EXPECT_EQ(now->host, "hostA");
  EXPECT_EQ(now->address, "hostA");  // no address given: the host name
  EXPECT_EQ(now->port, 6881);
}

TEST(MasterLease, RacingCandidatesGetOneHolderPerTerm) {
  TempDir dir;
  net::MasterLease lease(dir.path);
  std::atomic<int> winners{0};
  std::vector<std::thread> candidates;
  for (int i = 0; i < 8; ++i)
    candidates.emplace_back([&, i] {
      if (lease.claim(0, "host" + std::to_string(i), "", 6881).ok()) ++winners;
    });
  for (auto& c : candidates) c.join();
  EXPECT_EQ(winners.load(), 1);
}

TEST(MasterLease, RenewalRaisesTheBeatUntilALaterTermIsClaimed) {
  TempDir dir;
  net::MasterLease lease(dir.path);
  auto held = lease.claim(0, "hostA", "", 6881);
  ASSERT_TRUE(held.ok());
  net::MasterTerm term = *held;
  ASSERT_TRUE(lease.renew(term).ok());
  ASSERT_TRUE(lease.renew(term).ok());
  EXPECT_EQ(term.beat, 3u);
  EXPECT_EQ(lease.current()->beat, 3u);
  EXPECT_FALSE(lease.superseded(1));

  auto next = lease.claim(1, "hostB", "", 6881);
  ASSERT_TRUE(next.ok());
  EXPECT_TRUE(lease.superseded(1));
  auto refused = lease.renew(term);
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(refused.message(), "term 2 has been claimed by another candidate");
  EXPECT_EQ(term.beat, 3u);  // not written
  EXPECT_EQ(lease.current()->host, "hostB");
}

TEST(MasterLease, OldTermsAreRemovedAsNewOnesAreClaimed) {
  TempDir dir;
  net::MasterLease lease(dir.path);
  for (std::int64_t e = 0; e < 5; ++e) ASSERT_TRUE(lease.claim(e, "hostA", "", 1).ok());
  EXPECT_FALSE(fs::exists(lease.path_of(1)));
  EXPECT_FALSE(fs::exists(lease.path_of(3)));
  EXPECT_TRUE(fs::exists(lease.path_of(4)));
  EXPECT_TRUE(fs::exists(lease.path_of(5)));
  EXPECT_EQ(lease.current()->epoch, 5);
}

TEST(MasterLease, ATermWhoseFileIsNotWrittenYetIsStillTaken) {
  TempDir dir;
  net::MasterLease lease(dir.path);
  { std::ofstream(lease.path_of(1)); }  // created by a claim that has not written yet
  auto t = lease.current();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->epoch, 1);
  EXPECT_TRUE(t->host.empty());
  EXPECT_FALSE(lease.claim(0, "hostB", "", 1).ok());
}

TEST(MasterTermText, RefusesWhatIsNotATerm) {
  EXPECT_FALSE(net::parse_master_term("").has_value());
  EXPECT_FALSE(net::parse_master_term("0 hostA 10.0.0.1 1 1").has_value());
  EXPECT_FALSE(net::parse_master_term("3 hostA 10.0.0.1 70000 1").has_value());
  EXPECT_FALSE(net::parse_master_term("3 hostA 6881 12").has_value());  // no address
  auto t = net::parse_master_term("3 hostA 10.0.0.1 6881 12\n");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, (net::MasterTerm{3, "hostA", "10.0.0.1", 6881, 12}));
}

TEST(LeaseWatch, TheMasterIsGoneAfterItsBeatStaysStillForTheSilence) {
  net::LeaseWatch watch(3000ms);
  const auto t0 = net::LeaseWatch::Clock::time_point{} + 1h;
  EXPECT_FALSE(watch.expired(t0));  // nothing read yet
  watch.observe({1, "hostA", "hostA", 6881, 7}, t0);
  EXPECT_FALSE(watch.expired(t0 + 2999ms));
  watch.observe({1, "hostA", "hostA", 6881, 8}, t0 + 2000ms);  // it beat: the silence starts again
  EXPECT_FALSE(watch.expired(t0 + 4999ms));
  watch.observe({1, "hostA", "hostA", 6881, 8}, t0 + 4000ms);  // still: not a change
  EXPECT_TRUE(watch.expired(t0 + 5000ms));
  watch.observe({2, "hostB", "hostB", 6881, 1}, t0 + 6000ms);  // a new term is a change too
  EXPECT_FALSE(watch.expired(t0 + 8999ms));
  EXPECT_TRUE(watch.expired(t0 + 9000ms));
}

TEST(LeaseWatch, NoMasterEverCountsAsSilenceFromTheFirstReading) {
  net::LeaseWatch watch(3000ms);
  const auto t0 = net::LeaseWatch::Clock::time_point{} + 1h;
  watch.observe({}, t0);
  EXPECT_FALSE(watch.expired(t0 + 2999ms));
  watch.observe({}, t0 + 1000ms);
  EXPECT_TRUE(watch.expired(t0 + 3000ms));
}

TEST(MasterLease, ACleanStopReleasesTheTermAndALaterTermCannotBeReleased) {
  TempDir dir;
  net::MasterLease lease(dir.path);
  auto held = lease.claim(0, "hostA", "127.0.0.2", 6881);
  ASSERT_TRUE(held.ok());
  net::MasterTerm term = *held;
  EXPECT_FALSE(lease.current()->released());
  ASSERT_TRUE(lease.release(term).ok());
  EXPECT_TRUE(lease.current()->released());
  EXPECT_EQ(lease.current()->address, "127.0.0.2");
  ASSERT_TRUE(lease.claim(1, "hostB", "", 6881).ok());
  EXPECT_FALSE(lease.release(term).ok());
  EXPECT_FALSE(lease.current()->released());
}

// A master puts a snapshot or a new lsb.events in place only while no candidate can
// have claimed the next term: within takeover_after(0) of its last beat, less half an
// EXINTERVAL (event_log_writer.h's rotation_guard).
TEST(MasterRole, TheLeaseIsFreshOnlySoonAfterABeat) {
  TempDir dir;
  config::FailoverTiming timing;
  timing.exchange_interval = 1s;  // takeover after 2 s: fresh for 1.5 s
  mbd::MasterRole role(dir.path / "logdir", "hostA", timing);
  EXPECT_FALSE(role.lease_fresh());  // no term yet
  spdlog::logger log("test");
  ASSERT_TRUE(role.acquire("", 6881, std::nullopt, log).ok());
  EXPECT_TRUE(role.lease_fresh());
  std::this_thread::sleep_for(1600ms);
  EXPECT_FALSE(role.lease_fresh());
  ASSERT_TRUE(role.renew().ok());
  EXPECT_TRUE(role.lease_fresh());
  // Superseded: the renewal fails and the lease stays stale.
  std::this_thread::sleep_for(1600ms);
  ASSERT_TRUE(net::MasterLease(dir.path / "logdir").claim(role.epoch(), "hostB", "", 6881).ok());
  EXPECT_FALSE(role.renew().ok());
  EXPECT_FALSE(role.lease_fresh());
  EXPECT_TRUE(role.fenced());
}

// A restart after a crash on the master host: the lease names this host, whose mbatchd
// lock the new mbatchd holds (main.cc), so the old one is gone and there is nothing to
// wait for. Without that, the restart waits out a whole takeover time (here 20 s).
TEST(MasterRole, ATermThisHostHeldIsTakenAtOnceOnRestart) {
  TempDir dir;
  fs::create_directories(dir.path / "logdir");
  ASSERT_TRUE(net::MasterLease(dir.path / "logdir").claim(0, "hostA", "", 6881).ok());  // crashed: never released
  config::FailoverTiming timing;
  timing.exchange_interval = 10s;
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  spdlog::logger log("test", sink);
  mbd::MasterRole role(dir.path / "logdir", "hostA", timing);
  ASSERT_TRUE(role.acquire("", 6881, std::nullopt, log).ok());
  EXPECT_EQ(role.epoch(), 2);
  EXPECT_TRUE(role.took_over());
  EXPECT_EQ(out.str().find("waiting"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("term 1 was this host's"), std::string::npos) << out.str();
}
