// A run's state, typed: every state the runs API documents (docs/reference/http-api.md), the
// legal moves between them in one table, and their names as the API, the database and the
// metrics spell them. This file and state.cpp are the only places those names are written; SQL
// that filters on states builds its lists here too.
//
//   queued ──► running ◄──► awaiting_user
//     │          │  ▲            │
//     │          ▼  │ (a follow-up turn)
//     │   done · partial · failed · cancelled
//     └──────────► interrupted ──► queued | running (resumed)
//
// Any state may become failed (a run that cannot start or whose events cannot be stored), and
// every state in progress may become interrupted (ouro stopped) or queued again (taken over by
// another node, resumed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::runs {

enum class State : uint8_t { Queued, Running, AwaitingUser, Done, Partial, Failed, Cancelled, Interrupted };

inline constexpr State kAllStates[] = {State::Queued,  State::Running, State::AwaitingUser, State::Done,
                                       State::Partial, State::Failed,  State::Cancelled,    State::Interrupted};

// "queued", "running", "awaiting_user", "done", "partial", "failed", "cancelled", "interrupted".
std::string_view name(State s);
std::string name_of(State s);  // the same, as a string
// The state a name spells; nullopt for any other text.
std::optional<State> parse_state(std::string_view text);

// Queued, running or awaiting the user: a node holds it (or will).
bool in_progress(State s);
// Done, partial, failed or cancelled: its last turn is over (a follow-up may open another).
bool ended(State s);
// Whether a run in `from` may be written as `to` (the table in state.cpp). Staying is legal.
bool can_move(State from, State to);

// For SQL: "'queued'", and "('queued', 'running', 'awaiting_user')" for a list.
std::string sql_quoted(State s);
std::string sql_list(const std::vector<State>& states);
std::string sql_in_progress();

}  // namespace ouro::runs
