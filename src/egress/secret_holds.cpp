#include "egress/secret_holds.h"

#include <fmt/format.h>

namespace ouro::egress {

namespace {

bool same_origin(const safety::Url& a, const safety::Url& b) { return a.scheme == b.scheme && a.host == b.host && a.port == b.port; }

// URLs that carry nothing off the machine by themselves (what they load is judged as its own request).
bool local_scheme(const safety::Url& url) { return url.scheme == "data" || url.scheme == "blob" || url.scheme == "about"; }

}  // namespace

void SecretHolds::add(const std::string& tab, const safety::Url& origin, const safety::SiteList& sites) {
  std::lock_guard lock(m_mutex);
  size_t index = m_holds.size();
  for (size_t i = 0; i < m_holds.size(); ++i)
    if (same_origin(m_holds[i].origin, origin) && m_holds[i].sites.patterns() == sites.patterns()) index = i;
  if (index == m_holds.size()) {
    // More distinct holds than any task types secrets: the last one stands for the rest (its tab
    // is still bound, to the strictest known sites).
    if (m_holds.size() >= kMaxHolds) index = m_holds.size() - 1;
    else m_holds.push_back({origin, sites});
  }
  if (!tab.empty()) bind(tab, index);
}

void SecretHolds::bind(const std::string& tab, size_t hold) {
  if (m_tabs[tab].insert(hold).second) m_newly_bound.insert(tab);
}

std::vector<std::string> SecretHolds::take_newly_bound() {
  std::lock_guard lock(m_mutex);
  std::vector<std::string> out(m_newly_bound.begin(), m_newly_bound.end());
  m_newly_bound.clear();
  return out;
}

std::vector<safety::SiteList> SecretHolds::sites_binding(const std::string& tab) const {
  std::lock_guard lock(m_mutex);
  std::vector<safety::SiteList> out;
  if (auto t = m_tabs.find(tab); !tab.empty() && t != m_tabs.end())
    for (size_t i : t->second) out.push_back(m_holds[i].sites);
  return out;
}

bool SecretHolds::empty() const {
  std::lock_guard lock(m_mutex);
  return m_holds.empty();
}

bool SecretHolds::binds(const std::string& tab) const {
  std::lock_guard lock(m_mutex);
  return !tab.empty() && m_tabs.count(tab) > 0;
}

std::optional<std::string> SecretHolds::shown(const std::string& tab, const std::string& page_url) const {
  std::lock_guard lock(m_mutex);
  std::set<size_t> all;
  if (auto t = m_tabs.find(tab); !tab.empty() && t != m_tabs.end()) all = t->second;
  for (size_t i : holds_of(page_url)) all.insert(i);
  if (all.empty()) return std::nullopt;
  std::string out;
  for (size_t i : all) {
    const auto& o = m_holds[i].origin;
    bool default_port = (o.scheme == "https" && o.port == 443) || (o.scheme == "http" && o.port == 80) || o.port <= 0;
    std::string name = o.scheme + "://" + o.host + (default_port ? "" : ":" + std::to_string(o.port));
    if (out.find(name) == std::string::npos) out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

std::vector<size_t> SecretHolds::holds_of(const std::string& url) const {
  std::vector<size_t> out;
  if (url.empty()) return out;
  auto parsed = safety::parse_url(url);
  if (!parsed || parsed->host.empty()) return out;
  for (size_t i = 0; i < m_holds.size(); ++i)
    if (same_origin(m_holds[i].origin, *parsed)) out.push_back(i);
  return out;
}

std::optional<safety::GateVerdict> SecretHolds::judge(const RequestSource& from, const safety::RequestFacts& f) {
  std::lock_guard lock(m_mutex);
  if (m_holds.empty()) return std::nullopt;
  std::set<size_t> bound;
  auto bind_tab = [&](const std::vector<size_t>& holds) {
    bound.insert(holds.begin(), holds.end());
    if (!from.tab.empty())
      for (size_t i : holds) bind(from.tab, i);
  };
  if (auto t = m_tabs.find(from.tab); !from.tab.empty() && t != m_tabs.end()) bound = t->second;
  // The tab shows a document of a held origin, or is about to (a frame or its main frame loading one).
  bind_tab(holds_of(from.page_url));
  if (f.resource_type == "Document") bind_tab(holds_of(f.url));
  // A popup of a bound tab.
  if (auto o = m_tabs.find(from.opener_tab); !from.opener_tab.empty() && o != m_tabs.end())
    bind_tab(std::vector<size_t>(o->second.begin(), o->second.end()));
  // A script or worker of a held origin, wherever it runs.
  for (size_t i : holds_of(from.script_url)) bound.insert(i);
  if (bound.empty()) return std::nullopt;

  auto url = safety::parse_url(f.url);
  if (url && local_scheme(*url)) return std::nullopt;
  bool everywhere = url.has_value();
  std::string where, origins;
  for (size_t i : bound) {
    everywhere = everywhere && m_holds[i].sites.matches(*url);
    for (const auto& p : m_holds[i].sites.patterns()) where += (where.empty() ? "" : ", ") + p;
    std::string o = m_holds[i].origin.host;
    if (origins.find(o) == std::string::npos) origins += (origins.empty() ? "" : ", ") + o;
  }
  if (everywhere) return std::nullopt;
  return safety::GateVerdict{
      safety::Decision::Deny, "secret's sites",
      fmt::format("{} {} was refused: a secret was typed into a page of {} in this run, and everything of that origin — and every tab that "
                  "showed it, with the popups it opened — talks only to the secret's sites ({}) until the run ends; open a new tab "
                  "(openTab) for other sites",
                  f.method, url ? url->host : f.url.substr(0, 100), origins, where)};
}

}  // namespace ouro::egress
