#include "daemons/common/frame.h"

namespace lsf::net {

std::string encode_frame(const google::protobuf::MessageLite& message) {
  std::string body = message.SerializeAsString();
  auto n = static_cast<std::uint32_t>(body.size());
  std::string out;
  out.reserve(kFrameHeaderSize + body.size());
  out.push_back(static_cast<char>((n >> 24) & 0xff));
  out.push_back(static_cast<char>((n >> 16) & 0xff));
  out.push_back(static_cast<char>((n >> 8) & 0xff));
  out.push_back(static_cast<char>(n & 0xff));
  out += body;
  return out;
}

std::uint32_t decode_frame_length(const FrameHeader& h) {
  return (std::uint32_t{h[0]} << 24) | (std::uint32_t{h[1]} << 16) | (std::uint32_t{h[2]} << 8) | std::uint32_t{h[3]};
}

}  // namespace lsf::net
