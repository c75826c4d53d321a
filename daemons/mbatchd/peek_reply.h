// What mbatchd answers bpeek and bsub -I when it has asked a job's host for output.
//
// The host's "not on this host" has two meanings. After the job's end it has dropped
// the job: there is no more output, and the answer is finished. Before mbatchd has
// seen the end it means the launch has not reached the host yet (dispatch and launch
// are asynchronous) or the end is on its way: more output may come, so the answer is
// an empty read at the same offset, never finished. bsub -I stops reading at the
// first finished answer, so calling a starting job finished loses all of its output.
#pragma once

#include <cstdint>
#include <string>

#include "daemons/common/rpc_client.h"
#include "lsf.pb.h"

namespace lsf::mbd {

// `finished_when_asked`: mbatchd had recorded the job's end when it sent the request.
// `label` is "Job <id>", for the error messages.
wire::ReplyEnvelope peek_reply_from_host(const net::CallResult& r, bool finished_when_asked, std::int64_t offset,
                                         const std::string& label);

}  // namespace lsf::mbd
