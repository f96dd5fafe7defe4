// CPU priority by kind of work (setpriority(2); on Linux a thread's nice value is its own). Runs
// and the model's code are background work; answering the API and moving the browser's messages
// must not wait for a core behind them. Run as root (a container), Chromium raises its own
// browser, compositor and IO threads to nice -8; ouro's latency threads then ask for the same,
// which only a process allowed to (CAP_SYS_NICE) gets — otherwise they stay where they are.
#pragma once

namespace ouro {

// The calling thread answers people and programs (the API's workers, the network thread).
void prefer_latency();
// The calling thread (or process, for the REPL's worker) does background work: lower by `nice`.
void run_in_background(int nice);

inline constexpr int kLatencyNice = -8;   // as Chromium's own IO threads when it may
inline constexpr int kRunNice = 5;        // a run's thread
inline constexpr int kModelCodeNice = 10;  // the REPL's worker process

}  // namespace ouro
