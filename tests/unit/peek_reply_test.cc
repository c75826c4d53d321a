// What bpeek and bsub -I are told when a job's host does not know the job: finished
// only once mbatchd has seen the job end (daemons/mbatchd/peek_reply.h). A job whose
// launch has not reached its host yet must not read as finished, or bsub -I stops
// reading before the first line (seen in CI: "bsub -I prints the job's output" failed
// with the exit code right and no output).
#include <gtest/gtest.h>

#include "daemons/common/rpc_server.h"
#include "daemons/mbatchd/peek_reply.h"

using namespace lsf;

namespace {

net::CallResult host_says(wire::StatusCode status, const std::string& message) {
  net::CallResult r;
  r.reply = net::error_reply(status, message);
  return r;
}

}  // namespace

TEST(PeekReply, NotOnTheHostBeforeTheEndIsAnEmptyReadNotTheEnd) {
  auto reply = mbd::peek_reply_from_host(host_says(wire::STATUS_NOT_FOUND, "job 8 is not on this host"),
                                         /*finished_when_asked=*/false, 120, "Job <8>");
  EXPECT_EQ(reply.status(), wire::STATUS_OK);
  EXPECT_FALSE(reply.peek().finished());
  EXPECT_TRUE(reply.peek().text().empty());
  EXPECT_EQ(reply.peek().next_offset(), 120);  // the reader asks again from where it was
}

TEST(PeekReply, NotOnTheHostAfterTheEndIsTheEnd) {
  auto reply = mbd::peek_reply_from_host(host_says(wire::STATUS_NOT_FOUND, "job 8 is not on this host"),
                                         /*finished_when_asked=*/true, 120, "Job <8>");
  EXPECT_EQ(reply.status(), wire::STATUS_OK);
  EXPECT_TRUE(reply.peek().finished());
  EXPECT_EQ(reply.peek().next_offset(), 120);
}

TEST(PeekReply, TheHostsOutputPassesThrough) {
  net::CallResult r;
  r.reply = net::ok_reply();
  r.reply->mutable_peek()->set_text("one\n");
  r.reply->mutable_peek()->set_next_offset(4);
  auto reply = mbd::peek_reply_from_host(r, false, 0, "Job <8>");
  EXPECT_EQ(reply.peek().text(), "one\n");
  EXPECT_EQ(reply.peek().next_offset(), 4);
  EXPECT_FALSE(reply.peek().finished());
}

TEST(PeekReply, RefusalsAndAnUnreachableHostAreErrorsNamingTheJob) {
  auto denied = mbd::peek_reply_from_host(host_says(wire::STATUS_PERMISSION_DENIED, "a link"), false, 0, "Job <8>");
  EXPECT_EQ(denied.status(), wire::STATUS_PERMISSION_DENIED);
  EXPECT_EQ(denied.message(), "Job <8>: a link");
  net::CallResult down;
  down.error = "Connection refused";
  auto unreachable = mbd::peek_reply_from_host(down, false, 0, "Job <8>");
  EXPECT_EQ(unreachable.status(), wire::STATUS_UNAVAILABLE);
  EXPECT_EQ(unreachable.message(), "Job <8>: cannot reach its host: Connection refused");
}
