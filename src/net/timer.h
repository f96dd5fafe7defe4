// The network thread's timer on the one clock (base/steady_clock.h). It is Asio's waitable timer
// with SteadyClock in place of std::chrono::steady_clock, so a test's ManualClock moves it as it
// moves every other deadline: a handshake deadline, a call's timeout or a silence watch fires
// when the test moves the clock past it, without the test sleeping for it. While such a clock is
// in use the network thread looks at it every few milliseconds (wait_slice), as Asio's
// wait_traits allow for a clock whose time does not move by itself (Boost.Asio reference,
// "wait_traits::to_wait_duration").
//
// Beast's streams keep their own timers (tcp_stream::expires_after, WebSocket timeouts) on the
// system's steady clock, the same monotonic time.
#pragma once

#include "base/steady_clock.h"

#include <boost/asio/basic_waitable_timer.hpp>

#include <algorithm>

namespace ouro::net {

struct TimerWaitTraits {
  static SteadyClock::duration to_wait_duration(const SteadyClock::duration& d) {
    if (d <= SteadyClock::duration::zero()) return SteadyClock::duration::zero();
    return std::min<SteadyClock::duration>(d, wait_slice(std::chrono::duration<double, std::milli>(d).count()));
  }
  static SteadyClock::duration to_wait_duration(const SteadyClock::time_point& t) { return to_wait_duration(t - SteadyClock::now()); }
};

using Timer = boost::asio::basic_waitable_timer<SteadyClock, TimerWaitTraits>;

}  // namespace ouro::net
