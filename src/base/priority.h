// CPU priority by kind of work (setpriority(2); on Linux a thread's nice value is its own). The
// pages of a headless browser and the model's code are background work; answering the API and
// moving the browser's messages must not wait for a core behind them. Run as root (a container),
// Chromium raises its own browser, compositor and IO threads to nice -8; ouro's latency threads
// then ask for the same, which only a process allowed to (CAP_SYS_NICE) gets — otherwise they
// stay where they are.
//
// A run's own thread keeps the process's priority: it holds what the API's readers take too (the
// run map, the store's writer, SQLite's own mutexes), and a holder lowered behind the pages would
// make a reader wait for it to get a core again — a priority inversion measured at up to 263 ms
// inside the server for one API request with sixteen runs (bench/README.md, "One node, many runs").
#pragma once

namespace ouro {

// The calling thread answers people and programs (the API's workers, the network thread).
void prefer_latency();
// The calling thread (or process, for the REPL's worker) does background work: lower by `nice`.
void run_in_background(int nice);

inline constexpr int kLatencyNice = -8;   // as Chromium's own IO threads when it may
inline constexpr int kBrowserNice = 5;    // a headless Chromium ouro launches, and every process it starts
inline constexpr int kModelCodeNice = 10;  // the REPL's worker process

}  // namespace ouro
