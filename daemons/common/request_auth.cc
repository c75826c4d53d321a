#include "daemons/common/request_auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <array>

namespace lsf::net {
namespace {

constexpr std::size_t kNonceSize = 16;

std::string mac_of(const wire::RequestEnvelope& request, const ClusterKey& key) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    request.SerializeToCodedStream(&coded);
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.secret.data(), static_cast<int>(key.secret.size()),
       reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), md.data(), &len);
  return std::string(reinterpret_cast<const char*>(md.data()), len);
}

}  // namespace

void sign_request(wire::RequestEnvelope& request, const ClusterKey& key, std::int64_t now,
                  const std::string& destination, const std::string& cluster) {
  std::array<unsigned char, kNonceSize> nonce{};
  RAND_bytes(nonce.data(), static_cast<int>(nonce.size()));
  auto* auth = request.mutable_auth();
  auth->set_time(now);
  auth->set_nonce(std::string(reinterpret_cast<const char*>(nonce.data()), nonce.size()));
  if (!cluster.empty()) auth->set_cluster(cluster);
  auth->set_destination(destination);
  auth->clear_mac();
  auth->set_mac(mac_of(request, key));
}

void RequestVerifier::forget_before(std::int64_t time) {
  while (!seen_by_time_.empty() && seen_by_time_.begin()->first < time) {
    seen_.erase(seen_by_time_.begin()->second);
    seen_by_time_.erase(seen_by_time_.begin());
  }
}

daemon::Status RequestVerifier::verify(wire::RequestEnvelope& request, std::int64_t now) {
  if (!request.has_auth() || request.auth().mac().empty()) {
    request.clear_auth();
    return daemon::fail("the request is not signed with the cluster key");
  }
  const std::string mac = request.auth().mac();
  request.mutable_auth()->clear_mac();
  const std::string expected = mac_of(request, key_);
  const std::int64_t time = request.auth().time();
  const std::string nonce = request.auth().nonce();
  const std::string destination = request.auth().destination();
  request.clear_auth();
  if (mac.size() != expected.size() || CRYPTO_memcmp(mac.data(), expected.data(), mac.size()) != 0)
    return daemon::fail("the request's signature does not match " + key_name_);
  if (destination != destination_)
    return daemon::fail("the request is addressed to " +
                        (destination.empty() ? std::string("no daemon") : destination) + ", not to this daemon (" +
                        destination_ + ")");
  if (time < not_before_)
    return daemon::fail(
        "the request was signed before this daemon started (a replay, or the sender's clock is behind)");
  const std::int64_t skew = now > time ? now - time : time - now;
  if (skew > kMaxClockSkew.count())
    return daemon::fail("the sender's clock is " + std::to_string(skew) + " s away from this host's (at most " +
                        std::to_string(kMaxClockSkew.count()) + " s is accepted)");
  if (nonce.size() != kNonceSize) return daemon::fail("the request's nonce is malformed");
  forget_before(now - kMaxClockSkew.count() - 1);
  if (seen_.count(nonce)) return daemon::fail("the request was already received once (a replay)");
  seen_.emplace(nonce, time);
  seen_by_time_.emplace(time, nonce);
  return {};
}

}  // namespace lsf::net
