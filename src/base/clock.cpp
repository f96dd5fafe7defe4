#include "base/clock.h"
#include "base/wait.h"

#include <atomic>
#include <chrono>

namespace ouro {

namespace {

class SystemClock final : public Clock {
 public:
  double wall_ms() const override {
    return std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
  double steady_ms() const override {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
};

const SystemClock g_system;
std::atomic<const Clock*> g_clock{&g_system};

}  // namespace

const Clock& clock() { return *g_clock.load(std::memory_order_acquire); }

bool clock_is_manual() { return g_clock.load(std::memory_order_acquire) != &g_system; }

struct ManualClock::State {
  std::atomic<double> wall, steady;
};

ManualClock::ManualClock(double wall_ms_at_start) : m(std::make_unique<State>()), m_previous(&clock()) {
  m->wall = wall_ms_at_start;
  m->steady = m_previous->steady_ms();
  g_clock.store(this, std::memory_order_release);
}

ManualClock::~ManualClock() { g_clock.store(m_previous, std::memory_order_release); }

double ManualClock::wall_ms() const { return m->wall.load(); }
double ManualClock::steady_ms() const { return m->steady.load(); }

void ManualClock::advance(double ms) {
  if (ms <= 0) return;
  m->wall = m->wall.load() + ms;
  m->steady = m->steady.load() + ms;
}

void ManualClock::set_wall(double wall_ms) {
  double before = m->wall.exchange(wall_ms);
  if (wall_ms > before) m->steady = m->steady.load() + (wall_ms - before);
}

}  // namespace ouro
