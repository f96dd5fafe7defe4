// A run as a conversation kept in the database: its row, the turns so far (the task and the
// messages that opened turns, each with the final that ended it), the env its last turn left,
// and its last event's seq. The runs API continues one after its session has gone; `ouro run`
// records its runs the same way and continues them with --continue.
#pragma once

#include "agent/context.h"
#include "base/json.h"
#include "store/database.h"

#include <string>
#include <vector>

namespace ouro::runs {

struct StoredConversation {
  store::Database::RunRow row;
  std::vector<agent::Turn> turns;
  std::string env = "{}";  // JSON object text
  int64_t last_seq = 0;
};

// NotFound when there is no such run.
Result<StoredConversation> load_conversation(store::Database& db, const std::string& run_id);

// A turn's answer as the next turn's prompt shows it (a string as it is; JSON cut at 2,000).
std::string final_text(const json& final);

// A fresh run id ("r" and ten letters or digits).
std::string new_run_id();

}  // namespace ouro::runs
