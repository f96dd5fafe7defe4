#include "runs/sites.h"

#include "base/log.h"
#include "safety/sites.h"
#include "undo/journal.h"

#include <algorithm>
#include <mutex>

namespace ouro::runs {

namespace {
std::mutex g_sites_mutex;  // the list's read-modify-write, for every manager and terminal run in the process
constexpr size_t kMaxSites = 500;
}  // namespace

std::vector<std::string> remembered_sites(store::Database& db) {
  std::vector<std::string> out;
  auto stored = db.get_setting("allowed_sites");
  json list = stored && *stored ? parse_json(**stored).value_or(json::array()) : json::array();
  if (!list.is_array()) return out;
  safety::SiteList check;
  for (const auto& s : list)
    if (s.is_string() && check.add(s.get<std::string>())) out.push_back(s.get<std::string>());
  return out;
}

void remember_site(store::Database& db, const std::string& site, const std::string& conversation, int turn) {
  std::lock_guard lock(g_sites_mutex);
  auto sites = remembered_sites(db);
  if (std::find(sites.begin(), sites.end(), site) != sites.end() || sites.size() >= kMaxSites) return;
  sites.push_back(site);
  if (auto saved = db.set_setting("allowed_sites", dump_json(json(sites))); !saved) {
    spdlog::warn("cannot remember the site {}: {}", site, redact(saved.error().message));
    return;
  }
  // An "always" answered during a turn is one of the turn's changes (docs/guides/undo.md): that
  // site, not the whole list, so a site revoked since is never allowed again by a redo.
  if (!conversation.empty()) undo::note(db, conversation, turn, {{"kind", "site"}, {"key", site}, {"before", false}, {"after", true}});
}

Result<void> set_remembered_sites(store::Database& db, const json& sites) {
  if (!sites.is_array() || sites.size() > kMaxSites)
    return errorf(Code::InvalidArgument, "allowed_sites must be a list of at most {} sites", kMaxSites);
  safety::SiteList check;
  for (const auto& x : sites)
    if (!x.is_string() || !check.add(x.get<std::string>()))
      return errorf(Code::InvalidArgument, "allowed_sites: {} is not a site (example.com, *.example.com, 127.0.0.1:8080)",
                    dump_json(x).substr(0, 60));
  std::lock_guard lock(g_sites_mutex);
  return db.set_setting("allowed_sites", dump_json(sites));
}

std::string site_question(const json& request) {
  std::string action = get_str(request, "action"), site = get_str(request, "site");
  if (site.empty() || (action != "use-tab" && get_str(request, "rule") != "outside allowed sites")) return "";
  return site;
}

}  // namespace ouro::runs
