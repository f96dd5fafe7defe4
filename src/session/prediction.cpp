#include "session/prediction.h"

#include "base/log.h"
#include "base/private_file.h"
#include "browser/browser.h"
#include "browser/egress_control.h"
#include "session/session.h"

#include <filesystem>
#include <fstream>

namespace ouro::session {

namespace {

std::string note_path(const Runtime& rt) { return rt.data_dir + "/network-prediction"; }

// The value an earlier ouro found before it turned the setting off, if it left a note.
std::optional<int> noted(const Runtime& rt) {
  std::ifstream in(note_path(rt));
  int v = -1;
  if (in >> v && v >= 0 && v <= 3) return v;
  return std::nullopt;
}

}  // namespace

Result<void> hold_prediction(Runtime& rt, bool users_profile) {
  std::lock_guard lock(rt.prediction_mutex);
  if (!rt.browser || rt.browser->bridged()) return {};  // the extension holds it itself
  std::optional<int> before = users_profile ? noted(rt) : std::nullopt;
  auto restore = rt.browser->egress().hold_network_prediction(before);
  if (!restore)
    return make_error(restore.error().code,
                      "ouro could not turn off Chrome's \"Preload pages\" (Settings → Performance), through which a page's code could "
                      "open connections the egress gate cannot see: " +
                          restore.error().message + ". Turn it off there yourself, or use a clean session (--context clean)");
  if (users_profile && *restore != browser::EgressControl::kPredictionOff && !rt.prediction_noted) {
    if (auto w = write_private_file(note_path(rt), std::to_string(*restore) + "\n"); !w)
      spdlog::warn("session: cannot note Chrome's preload setting: {}", w.error().message);
    rt.prediction_noted = true;
  }
  return {};
}

void restore_prediction(Runtime& rt) {
  std::lock_guard lock(rt.prediction_mutex);
  if (!rt.browser) return;
  if (auto r = rt.browser->egress().restore_network_prediction(); !r) {
    spdlog::warn("session: {}", r.error().message);
    return;  // the note stays: the next ouro puts it back
  }
  if (rt.prediction_noted) {
    std::error_code ec;
    std::filesystem::remove(note_path(rt), ec);
    rt.prediction_noted = false;
  }
}

}  // namespace ouro::session
