// A latency histogram with fixed buckets, as Prometheus exposes them: counts per upper
// bound (cumulative when written out), a sum and a count. Fixed buckets keep an
// observation O(buckets) and the memory constant however long the daemon runs.
//
// Not thread-safe: each histogram belongs to one thread (or its owner's mutex).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <span>

namespace lsf::net {

class Histogram {
 public:
  // Upper bounds in seconds: 0.5 ms to 10 s, about three per decade.
  static constexpr std::array<double, 14> kBounds = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                     0.1,    0.25,  0.5,    1.0,   2.5,  5.0,   10.0};

  void observe(double seconds) {
    std::size_t i = 0;
    while (i < kBounds.size() && seconds > kBounds[i]) ++i;
    ++counts_[i];  // counts_[kBounds.size()]: above the last bound (+Inf)
    sum_ += seconds;
    ++count_;
    if (seconds > max_) max_ = seconds;
  }
  template <class Rep, class Period>
  void observe(std::chrono::duration<Rep, Period> d) {
    observe(std::chrono::duration<double>(d).count());
  }

  std::uint64_t count() const { return count_; }
  double sum() const { return sum_; }
  double max() const { return max_; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  // Per bucket, not cumulative; the last is the +Inf bucket.
  std::span<const std::uint64_t> buckets() const { return counts_; }

  // The upper bound of the bucket the q-quantile falls in (as Prometheus'
  // histogram_quantile would bound it); the largest observation when it falls past the
  // last bound; 0 with no observations.
  double quantile(double q) const {
    if (count_ == 0) return 0.0;
    const double rank = q * static_cast<double>(count_);
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < kBounds.size(); ++i) {
      seen += counts_[i];
      if (static_cast<double>(seen) >= rank && seen > 0) return kBounds[i] < max_ ? kBounds[i] : max_;
    }
    return max_;
  }

 private:
  std::array<std::uint64_t, kBounds.size() + 1> counts_{};
  double sum_ = 0.0;
  std::uint64_t count_ = 0;
  double max_ = 0.0;
};

}  // namespace lsf::net
