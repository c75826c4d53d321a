// Bytes as a daemon reads them from a peer: a frame header, a RequestEnvelope body, and
// the signature check the server runs on it. In-process: no socket, no clock.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "daemons/common/frame.h"
#include "daemons/common/request_auth.h"

namespace {

constexpr std::int64_t kNow = 1'800'000'000;

const lsf::net::ClusterKey& key() {
  static const lsf::net::ClusterKey k{"fuzz-cluster-key"};
  return k;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lsf;
  if (size < net::kFrameHeaderSize) return 0;
  net::FrameHeader header;
  std::copy_n(data, net::kFrameHeaderSize, header.begin());
  const std::uint32_t length = net::decode_frame_length(header);
  if (length > net::kDefaultMaxFrame) return 0;  // refused before any body byte is read
  const std::size_t body = std::min<std::size_t>(length, size - net::kFrameHeaderSize);

  wire::RequestEnvelope request;
  if (!request.ParseFromArray(data + net::kFrameHeaderSize, static_cast<int>(body))) return 0;

  // A frame made of what was parsed names its own body's length.
  const std::string frame = net::encode_frame(request);
  net::FrameHeader again;
  std::copy_n(frame.begin(), net::kFrameHeaderSize, again.begin());
  if (net::decode_frame_length(again) != frame.size() - net::kFrameHeaderSize) std::abort();

  // Whatever the request claims, checking it answers and leaves no auth behind.
  wire::RequestEnvelope received = request;
  net::RequestVerifier verifier(key(), "mbatchd", kNow - 60);
  (void)verifier.verify(received, kNow);
  if (received.has_auth()) std::abort();

  // Signed with the key, it is accepted once, then refused as a replay.
  wire::RequestEnvelope signed_request = request;
  net::sign_request(signed_request, key(), kNow, "mbatchd", request.auth().cluster());
  wire::RequestEnvelope replay = signed_request;
  wire::RequestEnvelope elsewhere = signed_request;
  wire::RequestEnvelope after_restart = signed_request;
  net::RequestVerifier fresh(key(), "mbatchd", kNow - 60);
  if (!fresh.verify(signed_request, kNow).ok()) std::abort();
  if (fresh.verify(replay, kNow).ok()) std::abort();
  // Nor by another daemon, nor by this one once it has restarted.
  net::RequestVerifier sbatchd(key(), "sbatchd@hostA", kNow - 60);
  if (sbatchd.verify(elsewhere, kNow).ok()) std::abort();
  net::RequestVerifier restarted(key(), "mbatchd", kNow + 1);
  if (restarted.verify(after_restart, kNow + 1).ok()) std::abort();
  return 0;
}
