// Wire framing: every message is a 4-byte big-endian length followed by that many
// bytes of a serialized protobuf envelope. A length above the configured maximum is
// refused before any byte of the body is read, so a bad peer cannot make a daemon
// allocate what it names.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include <google/protobuf/message_lite.h>

namespace lsf::net {

inline constexpr std::size_t kFrameHeaderSize = 4;
inline constexpr std::uint32_t kDefaultMaxFrame = 16u << 20;  // 16 MiB
// The largest frame a peer may send before it has authenticated.
inline constexpr std::uint32_t kMaxUnauthenticatedFrame = 64u << 10;  // 64 KiB

using FrameHeader = std::array<unsigned char, kFrameHeaderSize>;

// Header followed by the serialized message.
std::string encode_frame(const google::protobuf::MessageLite& message);

std::uint32_t decode_frame_length(const FrameHeader& header);

}  // namespace lsf::net
