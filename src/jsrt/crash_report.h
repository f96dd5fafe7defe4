// What the REPL worker says when it dies of a fatal signal: the signal and the return addresses
// on the dying thread's stack (module and offset, e.g. "libjavascriptcoregtk-4.1.so.0(+0x9a1c2)"),
// written to stderr, the parent's log, before the process dies as it would have. The engine's
// release assertions end in a bare abort(), so without this an engine failure leaves nothing
// but "killed by signal 6". The lines hold addresses only: no page data, no env.
#pragma once

namespace ouro::jsrt {

// Call once, before the sandbox (the unwinder is loaded here, while files can still be opened).
// Takes SIGABRT, and SIGSEGV/SIGBUS/SIGILL/SIGTRAP/SIGFPE where nothing else (the engine) has.
void report_fatal_signals();

}  // namespace ouro::jsrt
