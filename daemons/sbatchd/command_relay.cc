#include "daemons/sbatchd/command_relay.h"

#include "daemons/common/rpc_client.h"

namespace lsf::sbd {

CommandRelay::CommandRelay(net::MasterEndpoint master, std::optional<net::ClusterKey> key, bool trust_unsigned,
                           std::string host_name, Post post, Locate locate)
    : master_(std::move(master)),
      key_(std::move(key)),
      trust_unsigned_(trust_unsigned),
      host_name_(std::move(host_name)),
      post_(std::move(post)),
      locate_(std::move(locate)) {}

CommandRelay::~CommandRelay() { pool_.join(); }

void CommandRelay::forward(wire::RequestEnvelope request, net::Responder respond) {
  if (!key_ && !trust_unsigned_)
    return respond(net::error_reply(wire::STATUS_UNAVAILABLE,
                                    "sbatchd on " + host_name_ + " has no cluster key to forward commands with"));
  request.set_relayed_by(host_name_);
  request.mutable_caller()->set_host_name(host_name_);
  net::asio::post(pool_, [this, request = std::move(request), respond = std::move(respond)]() mutable {
    // A connection per command: commands are rare next to a connection's cost, and no
    // state is shared between the users' calls.
    const net::MasterEndpoint master = locate_ ? locate_() : master_;
    net::RpcClient client(master.host, master.port, master.timeout);
    if (key_) client.set_key(*key_, "mbatchd");
    auto result = client.call(std::move(request));
    wire::ReplyEnvelope reply =
        result.reply ? std::move(*result.reply)
                     : net::error_reply(wire::STATUS_UNAVAILABLE,
                                        "sbatchd on " + host_name_ + " cannot reach mbatchd: " + result.error);
    post_([respond = std::move(respond), reply = std::move(reply)]() mutable { respond(std::move(reply)); });
  });
}

}  // namespace lsf::sbd
