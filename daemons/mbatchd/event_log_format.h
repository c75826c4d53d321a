// The on-disk format of lsb.events (and of lsb.snapshot's single record).
//
//   file   := magic record*
//   magic  := "LSFEVT1\n"
//   record := length:u32le crc:u32le payload[length]
//
// payload is a serialized wire::EventRecord (wire::Snapshot in lsb.snapshot); crc is
// CRC-32 of the payload. A record cut short at the end of the file is a torn write
// from a crash: the reader drops it. A record whose CRC does not match with more data
// after it is damage: the reader reports its offset and stops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <boost/crc.hpp>

namespace lsf::mbd {

inline constexpr std::string_view kEventLogMagic = "LSFEVT1\n";
inline constexpr std::size_t kRecordHeaderSize = 8;
inline constexpr std::uint32_t kMaxRecordSize = 64u << 20;
// Jobs' environments and commands are in the event log, lsb.acct and the replica:
// owner only.
inline constexpr unsigned kLogFileMode = 0600;

inline std::uint32_t record_crc(std::string_view payload) {
  boost::crc_32_type crc;
  crc.process_bytes(payload.data(), payload.size());
  return crc.checksum();
}

inline void put_u32(char* out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

inline std::uint32_t get_u32(const char* in) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return v;
}

}  // namespace lsf::mbd
