// `ouro undo [RUN_ID]` and `ouro redo [RUN_ID]`: revert or re-apply what a conversation's last
// turn changed in ouro's own state (docs/guides/undo.md), from the terminal.
#pragma once

#include <string>

namespace ouro::cli {

struct UndoFlags {
  bool redo = false;
  std::string run_id;    // "" = the conversation changed most recently
  bool as_json = false;
  std::string data_dir;  // "" = $OURO_DATA_DIR or the default
};

// The exit code: 0 done, 1 a failure or nothing to do (said on stderr).
int cmd_undo(const UndoFlags& flags);

}  // namespace ouro::cli
