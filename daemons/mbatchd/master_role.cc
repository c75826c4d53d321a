#include "daemons/mbatchd/master_role.h"

#include <chrono>
#include <thread>

#include "daemons/mbatchd/event_log_writer.h"

namespace lsf::mbd {

namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

daemon::Status MasterRole::acquire(const std::string& address, std::uint16_t port,
                                   std::optional<std::int64_t> takeover_from, spdlog::logger& log) {
  // The log's directory, 0700 as recovery would make it: the term is taken first.
  if (auto made = make_log_dir(lease_.dir()); !made) return made;
  auto now = lease_.current();
  if (!now.ok()) return now.status();
  if (takeover_from && now->epoch != *takeover_from)
    return daemon::fail("term " + std::to_string(*takeover_from + 1) + " has been taken already, by " +
                        (now->host.empty() ? std::string("another candidate") : now->host));
  if (now->epoch > 0 && !now->released() && !takeover_from && now->host == host_) {
    // This host's own term: its mbatchd is gone, since this one holds the host's lock.
    log.info("term {} was this host's and its mbatchd is gone: taking the next term at once", now->epoch);
  } else if (now->epoch > 0 && !now->released() && !takeover_from) {
    // Someone held the last term and did not say it stopped: a crash, or a master that
    // serves now. Its beat decides which.
    const auto silence = timing_.takeover_after(0);
    log.info("waiting up to {} ms for the lease of term {} ({}) to go still", silence.count(), now->epoch, now->host);
    net::LeaseWatch watch(silence);
    const auto started = net::LeaseWatch::Clock::now();
    watch.observe(*now, started);
    while (!watch.expired(net::LeaseWatch::Clock::now())) {
      std::this_thread::sleep_for(
          std::min<std::chrono::milliseconds>(timing_.exchange_interval / 4, std::chrono::milliseconds(250)));
      auto again = lease_.current();
      if (!again.ok()) return again.status();
      if (again->released()) break;  // it stopped cleanly meanwhile
      if (!(*again == watch.last()))
        return daemon::fail("another mbatchd is master: " + again->host + " (term " + std::to_string(again->epoch) +
                            "), its lease is renewed");
      watch.observe(*again, net::LeaseWatch::Clock::now());
    }
    now = lease_.current();
    if (!now.ok()) return now.status();
  }
  took_over_ = now->epoch > 0 && !now->released();
  auto claimed = lease_.claim(now->epoch, host_, address, port);
  if (!claimed.ok()) return claimed.status();
  term_ = *claimed;
  epoch_.store(term_.epoch, std::memory_order_relaxed);
  beat_written_ns_.store(steady_ns(), std::memory_order_relaxed);
  return {};
}

daemon::Status MasterRole::renew() {
  // Timed from before the write: a candidate may have seen it as soon as it began.
  const std::int64_t started = steady_ns();
  auto st = lease_.renew(term_);
  if (st.ok()) beat_written_ns_.store(started, std::memory_order_relaxed);
  return st;
}

bool MasterRole::lease_fresh() const {
  const std::int64_t written = beat_written_ns_.load(std::memory_order_relaxed);
  if (written == 0) return false;
  const auto margin = timing_.takeover_after(0) - timing_.exchange_interval / 2;
  return std::chrono::nanoseconds(steady_ns() - written) < margin;
}

bool MasterRole::fenced() const {
  const std::int64_t e = epoch();
  return e > 0 && lease_.superseded(e);
}

void MasterRole::release() {
  if (epoch() > 0) (void)lease_.release(term_);
}

std::string MasterRole::successor() const {
  auto now = lease_.current();
  if (!now.ok() || now->epoch <= epoch()) return "another candidate";
  return (now->host.empty() ? std::string("another candidate") : now->host) + " (term " + std::to_string(now->epoch) +
         ")";
}

}  // namespace lsf::mbd
