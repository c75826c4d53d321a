// Who may act on which job and queue (daemons/mbatchd/permissions.h), from a loaded
// configuration: the owner, a ClusterAdmin, root, a queue's ADMINISTRATORS (named or
// through an lsb.users group) for their queue only, and -sp above MAX_USER_PRIORITY.
#include <gtest/gtest.h>

#include "component_world.h"
#include "daemons/mbatchd/permissions.h"
#include "event_records.h"

using namespace lsf;

namespace {

struct World : lsf::testing::ComponentWorld {
  mbd::Permissions permissions;

  World() {
    tree.write("conf/lsf.cluster.test",
               "Begin ClusterAdmins\nAdministrators = lsfadmin\nEnd ClusterAdmins\n"
               "Begin Host\nHOSTNAME model type server RESOURCES\n"
               "hostA Generic LINUX64 1 (fs)\nhostB Generic LINUX64 1 ()\nEnd Host\n");
    tree.lsb("lsb.users",
             "Begin UserGroup\nGROUP_NAME GROUP_MEMBER\nops (olga oscar)\nstaff (ops sam)\nEnd UserGroup\n");
    tree.lsb("lsb.queues",
             "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nADMINISTRATORS = quinn\nEnd Queue\n"
             "Begin Queue\nQUEUE_NAME = night\nPRIORITY = 20\nADMINISTRATORS = staff\nEnd Queue\n");
    tree.lsb("lsb.params", "Begin Parameters\nMAX_USER_PRIORITY = 100\nEnd Parameters\n");
    load();
    permissions = mbd::Permissions(*config, index);
    for (auto r : {lsf::testing::job_new(1, "alice", "normal"), lsf::testing::job_new(2, "alice", "night")})
      sink.record(r);
  }
  const mbd::Job& job(std::int64_t id) { return *state.find_job({id, 0}); }
};

wire::Identity user(const std::string& name, std::uint32_t uid = 1000) {
  wire::Identity id;
  id.set_user_name(name);
  id.set_uid(uid);
  return id;
}

TEST(Permissions, TheOwnerControlsOwnJobsAndNoOneElses) {
  World w;
  EXPECT_TRUE(w.permissions.may_control(user("alice"), w.job(1)));
  EXPECT_FALSE(w.permissions.acts_as_admin(user("alice"), w.job(1)));
  EXPECT_FALSE(w.permissions.may_control(user("bob"), w.job(1)));
  EXPECT_FALSE(w.permissions.is_admin(user("alice")));
}

TEST(Permissions, ClusterAdminsAndRootControlEveryJobAndQueue) {
  World w;
  for (const auto& who : {user("lsfadmin"), user("root", 0), user("anyname", 0)}) {
    EXPECT_TRUE(w.permissions.is_admin(who)) << who.user_name();
    EXPECT_TRUE(w.permissions.may_control(who, w.job(1))) << who.user_name();
    EXPECT_TRUE(w.permissions.acts_as_admin(who, w.job(2))) << who.user_name();
    EXPECT_TRUE(w.permissions.is_queue_admin(who, "night")) << who.user_name();
  }
  // The name "root" without uid 0 is not root.
  EXPECT_FALSE(w.permissions.is_admin(user("root")));
}

TEST(Permissions, AQueueAdministratorControlsThatQueueOnly) {
  World w;
  EXPECT_TRUE(w.permissions.is_queue_admin(user("quinn"), "normal"));
  EXPECT_TRUE(w.permissions.may_control(user("quinn"), w.job(1)));
  EXPECT_TRUE(w.permissions.acts_as_admin(user("quinn"), w.job(1)));
  EXPECT_FALSE(w.permissions.is_queue_admin(user("quinn"), "night"));
  EXPECT_FALSE(w.permissions.may_control(user("quinn"), w.job(2)));
  EXPECT_FALSE(w.permissions.is_admin(user("quinn")));
  EXPECT_FALSE(w.permissions.is_queue_admin(user("quinn"), "nosuchqueue"));
}

TEST(Permissions, AGroupNamedAdministratorCountsItsMembersNestedGroupsIncluded) {
  World w;
  for (const char* member : {"sam", "olga", "oscar"}) {
    EXPECT_TRUE(w.permissions.is_queue_admin(user(member), "night")) << member;
    EXPECT_TRUE(w.permissions.may_control(user(member), w.job(2))) << member;
    EXPECT_FALSE(w.permissions.may_control(user(member), w.job(1))) << member;
  }
  EXPECT_FALSE(w.permissions.is_queue_admin(user("alice"), "night"));
  EXPECT_TRUE(w.permissions.names_user("ops", "olga"));
  EXPECT_TRUE(w.permissions.names_user("all", "anyone"));
  EXPECT_FALSE(w.permissions.names_user("ops", "sam"));
}

TEST(Permissions, UserPriorityAboveTheMaximumIsForAdministrators) {
  World w;
  EXPECT_TRUE(w.permissions.check_user_priority(0, user("alice"), "normal").ok());
  EXPECT_TRUE(w.permissions.check_user_priority(100, user("alice"), "normal").ok());
  EXPECT_EQ(w.permissions.check_user_priority(101, user("alice"), "normal").message(),
            "-sp 101: more than MAX_USER_PRIORITY (100)");
  EXPECT_TRUE(w.permissions.check_user_priority(101, user("quinn"), "normal").ok());
  EXPECT_FALSE(w.permissions.check_user_priority(101, user("quinn"), "night").ok());
  EXPECT_TRUE(w.permissions.check_user_priority(500, user("lsfadmin"), "night").ok());

  // Without MAX_USER_PRIORITY no one may set -sp.
  mbd::Permissions none;
  EXPECT_EQ(none.check_user_priority(1, user("root", 0), "normal").message(),
            "-sp: user-assigned job priority is not enabled (MAX_USER_PRIORITY in lsb.params)");
  EXPECT_TRUE(none.is_admin(user("root", 0)));
  EXPECT_FALSE(none.is_admin(user("lsfadmin")));
}

}  // namespace
