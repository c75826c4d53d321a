#include "daemons/sbatchd/state_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace fs = std::filesystem;
using lsf::sbd::check_private_directory;

namespace {

struct TempTree {
  fs::path root;
  TempTree() {
    char tmpl[] = "/tmp/state-dir-test.XXXXXX";
    root = mkdtemp(tmpl);
  }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  fs::path dir(const std::string& rel, fs::perms mode) const {
    fs::create_directories(root / rel);
    fs::permissions(root / rel, mode);
    return root / rel;
  }
};

constexpr auto k711 = fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec;
constexpr auto k755 = k711 | fs::perms::group_read | fs::perms::others_read;

}  // namespace

TEST(StateDir, OurOwnDirectoriesAreAccepted) {
  TempTree t;
  t.dir("base", k755);
  EXPECT_EQ(check_private_directory(t.dir("base/host", k711)).message(), "");
  // A sticky shared parent (/tmp, /dev/shm) lets no one else rename our directory.
  t.dir("shared", fs::perms::all | fs::perms::sticky_bit);
  EXPECT_EQ(check_private_directory(t.dir("shared/host", k711)).message(), "");
}

TEST(StateDir, AParentOthersMayWriteInIsRefused) {
  TempTree t;
  t.dir("open", fs::perms::all);
  auto why = check_private_directory(t.dir("open/host", k711)).message();
  EXPECT_NE(why.find("open may be written by others"), std::string::npos) << why;
}

TEST(StateDir, ADirectoryOfAnotherUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a directory away";
  TempTree t;
  t.dir("base", k755);
  auto host = t.dir("base/host", k711);
  ASSERT_EQ(::chown(host.c_str(), 65534, 65534), 0);
  auto why = check_private_directory(host).message();
  EXPECT_NE(why.find("belongs to uid 65534"), std::string::npos) << why;
  ASSERT_EQ(::chown(host.c_str(), 0, 0), 0);
  ASSERT_EQ(::chown((t.root / "base").c_str(), 65534, 65534), 0);
  why = check_private_directory(host).message();
  EXPECT_NE(why.find("base belongs to uid 65534"), std::string::npos) << why;
}

TEST(StateDir, ALinkIsJudgedByWhereItLeads) {
  TempTree t;
  t.dir("real", k755);
  auto good = t.dir("real/host", k711);
  fs::create_directory_symlink(good, t.root / "link");
  EXPECT_EQ(check_private_directory(t.root / "link").message(), "");
  t.dir("open", fs::perms::all);
  auto bad = t.dir("open/host", k711);
  fs::create_directory_symlink(bad, t.root / "badlink");
  EXPECT_NE(check_private_directory(t.root / "badlink").message(), "");
}

TEST(StateDir, PreparedDirectoriesArePassThroughOnlyAndCheckedBeforeUse) {
  TempTree t;
  t.dir("base", k755);
  EXPECT_EQ(lsf::sbd::prepare_state_directory(t.root / "base/cluster/host").message(), "");
  EXPECT_EQ(fs::status(t.root / "base/cluster/host").permissions(), k711);
  // Under a directory anyone may write in, nothing is prepared for use.
  t.dir("open", fs::perms::all);
  auto why = lsf::sbd::prepare_state_directory(t.root / "open/host").message();
  EXPECT_NE(why.find("may be written by others"), std::string::npos) << why;
}

// /dev/shm/evil/quickstart/hostA -> /etc: where the link leads is root's, but the link
// is in a directory a user owns, who may point it anywhere.
TEST(StateDir, ALinkInAUsersDirectoryIsRefusedWhereverItLeads) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a directory away";
  TempTree t;
  t.dir("real", k755);
  auto good = t.dir("real/host", k711);
  auto users = t.dir("users", k755);
  fs::create_directory_symlink(good, users / "host");
  ASSERT_EQ(::chown(users.c_str(), 65534, 65534), 0);
  auto why = check_private_directory(users / "host").message();
  EXPECT_NE(why.find("users belongs to uid 65534"), std::string::npos) << why;
  // The user's own link in a sticky directory: refused for who made it.
  auto sticky = t.dir("sticky", fs::perms::all | fs::perms::sticky_bit);
  fs::create_directory_symlink(good, sticky / "host");
  ASSERT_EQ(::lchown((sticky / "host").c_str(), 65534, 65534), 0);
  why = check_private_directory(sticky / "host").message();
  EXPECT_NE(why.find("is a link of uid 65534"), std::string::npos) << why;
}
