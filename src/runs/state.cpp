#include "runs/state.h"

#include <array>

namespace ouro::runs {

namespace {

constexpr size_t kCount = 8;
constexpr size_t index(State s) { return static_cast<size_t>(s); }

constexpr std::array<std::string_view, kCount> kNames = {"queued", "running", "awaiting_user", "done", "partial", "failed", "cancelled", "interrupted"};

// kMoves[from][to]: the legal moves. Rows and columns in the enum's order:
//                 queued running awaiting done partial failed cancelled interrupted
constexpr bool kMoves[kCount][kCount] = {
    /* queued      */ {true, true, false, false, false, true, true, true},
    /* running     */ {true, true, true, true, true, true, true, true},
    /* awaiting    */ {true, true, true, true, true, true, true, true},
    /* done        */ {false, true, false, true, false, true, false, false},
    /* partial     */ {false, true, false, false, true, true, false, false},
    /* failed      */ {false, true, false, false, false, true, false, false},
    /* cancelled   */ {false, true, false, false, false, true, true, false},
    /* interrupted */ {true, true, false, false, false, true, true, true},
};

}  // namespace

std::string_view name(State s) { return index(s) < kCount ? kNames[index(s)] : std::string_view("failed"); }

std::string name_of(State s) { return std::string(name(s)); }

std::optional<State> parse_state(std::string_view text) {
  for (size_t i = 0; i < kCount; ++i)
    if (kNames[i] == text) return static_cast<State>(i);
  return std::nullopt;
}

bool in_progress(State s) { return s == State::Queued || s == State::Running || s == State::AwaitingUser; }

bool ended(State s) { return s == State::Done || s == State::Partial || s == State::Failed || s == State::Cancelled; }

bool can_move(State from, State to) { return index(from) < kCount && index(to) < kCount && kMoves[index(from)][index(to)]; }

std::string sql_quoted(State s) { return "'" + name_of(s) + "'"; }

std::string sql_list(const std::vector<State>& states) {
  std::string out = "(";
  for (size_t i = 0; i < states.size(); ++i) out += (i ? ", " : "") + sql_quoted(states[i]);
  return out + ")";
}

std::string sql_in_progress() { return sql_list({State::Queued, State::Running, State::AwaitingUser}); }

}  // namespace ouro::runs
