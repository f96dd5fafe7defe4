// `ouro memory list`, `ouro memory search QUERY`, `ouro memory rm ID`: the memories that runs and
// remember() left in the data directory's database (memory across tasks), read and deleted from
// the terminal.
#pragma once

#include <string>

namespace ouro::cli {

struct MemoryFlags {
  std::string action;  // list | search | rm | backfill
  std::string query;   // search: the words; rm: the id
  std::string tag;     // search: only entries with this tag
  int limit = 20;      // list: how many (1..1000); search: at most 50
  bool as_json = false;
  std::string data_dir;  // "" = $OURO_DATA_DIR or the default
};

// The exit code: 0 done, 1 a failure (said on stderr), 2 a wrong argument (said on stderr).
int cmd_memory(const MemoryFlags& flags);

}  // namespace ouro::cli
