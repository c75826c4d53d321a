#include "daemons/mbatchd/peek_reply.h"

#include "daemons/common/rpc_server.h"

namespace lsf::mbd {

wire::ReplyEnvelope peek_reply_from_host(const net::CallResult& r, bool finished_when_asked, std::int64_t offset,
                                         const std::string& label) {
  if (r.ok()) return *r.reply;
  if (r.reply && r.reply->status() == wire::STATUS_NOT_FOUND) {
    auto reply = net::ok_reply();
    reply.mutable_peek()->set_finished(finished_when_asked);
    reply.mutable_peek()->set_next_offset(offset);
    return reply;
  }
  // The host refused to read the file for this user (a link it may not follow, a FIFO).
  if (r.reply && r.reply->status() == wire::STATUS_PERMISSION_DENIED)
    return net::error_reply(wire::STATUS_PERMISSION_DENIED, label + ": " + r.message());
  return net::error_reply(wire::STATUS_UNAVAILABLE, label + ": cannot reach its host: " + r.message());
}

}  // namespace lsf::mbd
