// ThreadOwner: names the one thread that may touch a piece of state, and in debug
// builds asserts it where the state is touched. In release builds (NDEBUG) it is empty
// and its calls compile to nothing.
//
// The owner is the first thread that checks, until bind() names another: mbatchd's
// state is set up by the thread that recovers and starts it and then belongs to the
// thread that runs its io_context (run() binds it).
#pragma once

#ifndef NDEBUG
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#endif

namespace lsf::daemon {

class ThreadOwner {
 public:
#ifndef NDEBUG
  // The calling thread owns the state from now on.
  void bind() noexcept { owner_.store(std::this_thread::get_id()); }
  // Aborts when a thread other than the owner touches the state; `what` names it.
  void check(const char* what) const noexcept {
    const auto me = std::this_thread::get_id();
    std::thread::id expected{};
    if (owner_.compare_exchange_strong(expected, me) || expected == me) return;
    std::fprintf(stderr, "internal: %s touched off its owning thread\n", what);
    std::abort();
  }

 private:
  mutable std::atomic<std::thread::id> owner_{};
#else
  void bind() noexcept {}
  void check(const char*) const noexcept {}
#endif
};

}  // namespace lsf::daemon
