// What the model sees each iteration (docs/design/agent-loop.md): a constant system prompt with the API
// reference, then task reinforcement with mechanically derived progress, page changes since the
// last iteration, browser state, REPL variables with schemas, store keys, and metadata-only
// history, compacted by tokens. Page data never appears beyond bounded previews.
#pragma once

#include "base/json.h"

#include <map>
#include <string>
#include <vector>

namespace ouro::browser { class Browser; }

namespace ouro::agent {

struct BlockRecord {
  std::string code;
  bool ok = true;
  std::string summary;   // summarize_value text, or "ERROR — …"
  std::string one_liner; // "→ Array<Object> (3 items)" or "→ ERROR: …"
  std::vector<std::string> logs;
  bool set_final = false;
};

struct IterationRecord {
  int number = 0;
  std::vector<BlockRecord> blocks;
  std::string note;  // for an iteration without code: what the model said, shortened

  std::string full() const;      // the history entry, per block
  std::string condensed() const; // "Iter 3: getText ×2, click → string (2,341 chars)"
};

// The constant system prompt: identity, rules, the code-format rules hammered, the API reference.
std::string system_prompt();

// "getText ×2, click" — which API calls a block makes; else its first line, shortened.
std::string summarize_code_intent(const std::string& code);

// One earlier turn of a conversation: what the user asked and what the run answered.
struct Turn {
  std::string task;
  std::string result;  // the final answer, as text (or why it stopped)
};

// "## Conversation So Far": the earlier turns, oldest first; past the token budget the older
// ones shrink to one line each (the latest three stay whole), so the section stays bounded.
std::string conversation_so_far(const std::vector<Turn>& turns, size_t token_budget);

// "## Relevant Memories …": the lines of memory::Memory::relevant_for, fenced as data (their texts
// came from earlier runs and from pages, so they may hold text that reads like orders). The
// section says that recall() finds more (where the model has recall(): with_recall). "" when
// entries is empty.
std::string relevant_memories(const std::string& entries, bool with_recall = true);

// "## Current Task" with the request, iteration N of cap and progress from the records.
std::string task_reinforcement(const std::string& task, int iteration, int cap, const std::vector<IterationRecord>& history);

// History, compacted when its estimated tokens pass 80 % of the budget: the last 3 iterations in
// full, older ones as one-liners.
std::string compact_history(const std::vector<IterationRecord>& history, size_t token_budget);
// The same as blocks that stay byte-identical from one iteration to the next while nothing is
// re-compacted (a header, then one block per record): the prompt's cacheable prefix.
std::vector<std::string> history_blocks(const std::vector<IterationRecord>& history, size_t token_budget);

// Tracks what the model saw of the browser and reports what changed since.
class TabDiffer {
 public:
  // Records the current state as seen. Returns the "## Page Changes …" section, or "" if nothing.
  // Only the tabs of `context` (the run's browser context; "" = the profile's) are looked at.
  std::string changes(browser::Browser& b, const std::string& context);
  json last_changes() const { return m_last; }

 private:
  struct Seen {
    std::string url, title, status;
    size_t errors = 0;
  };
  std::map<std::string, Seen> m_seen;
  bool m_first = true;
  json m_last = json::array();
};

// "## Browser State" of one browser context (the run's own): tabs with index, id, URL, title (bounded), status; the active tab.
// `active` is the run's own active tab (in the user's browser, not the browser's).
std::string browser_state(browser::Browser& b, const std::string& context, const std::string& active);

size_t estimate_tokens(const std::string& text);

}  // namespace ouro::agent
