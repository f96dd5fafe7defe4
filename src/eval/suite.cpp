#include "eval/suite.h"

#include "base/text.h"
#include "eval/checks.h"
#include "eval/shipped.h"

#include <boost/url/parse.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace ouro::eval {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxFileBytes = 4u << 20;  // a site's file, a task file
constexpr size_t kMaxSiteFiles = 200;

Result<std::string> read_file(const fs::path& p) {
  std::error_code ec;
  auto size = fs::file_size(p, ec);
  if (ec) return errorf(Code::NotFound, "cannot read {}: {}", p.string(), ec.message());
  if (size > kMaxFileBytes) return errorf(Code::InvalidArgument, "{} is {} bytes; a suite's files are at most {}", p.string(), size, kMaxFileBytes);
  std::ifstream in(p, std::ios::binary);
  if (!in) return errorf(Code::NotFound, "cannot read {}", p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<std::shared_ptr<const Site>> load_site(const fs::path& dir) {
  auto site = std::make_shared<Site>();
  site->name = dir.filename().string();
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    // A site is its own files: a link could make a suite from elsewhere serve one of this
    // machine's (a key, a profile) to the page a model reads.
    if (it->is_symlink(ec)) return errorf(Code::InvalidArgument, "site {}: {} is a symbolic link; a site's files must be its own", site->name, it->path().string());
    if (!it->is_regular_file()) continue;
    if (site->files.size() >= kMaxSiteFiles) return errorf(Code::InvalidArgument, "site {} has more than {} files", site->name, kMaxSiteFiles);
    std::string rel = "/" + fs::relative(it->path(), dir).generic_string();
    site->files[rel] = TRY(read_file(it->path()));
  }
  if (ec) return errorf(Code::Unavailable, "cannot list site {}: {}", dir.string(), ec.message());
  if (!site->files.count("/index.html")) return errorf(Code::InvalidArgument, "site {} has no index.html", site->name);
  if (auto d = site->files.find("/data.json"); d != site->files.end()) {
    auto data = parse_json(d->second, "data.json");
    if (!data || !data->is_object())
      return errorf(Code::InvalidArgument, "site {}: data.json must be a JSON object ({})", site->name, data ? "it is not" : data.error().message);
    site->data = std::move(*data);
    site->files.erase(d);  // the pages read it through /api/state, with the task's injection
  }
  return std::shared_ptr<const Site>(std::move(site));
}

const std::regex& id_pattern() {
  static const std::regex re("^[a-z0-9][a-z0-9._-]{0,79}$");
  return re;
}

}  // namespace

Result<void> parse_tasks(const json& array, const std::string& where, std::vector<Task>& into) {
  if (!array.is_array()) return errorf(Code::InvalidArgument, "{}: a task file is a JSON array of tasks", where);
  for (size_t i = 0; i < array.size(); ++i) {
    const json& t = array[i];
    const std::string at = fmt::format("{} task {}", where, i + 1);
    if (!t.is_object()) return errorf(Code::InvalidArgument, "{}: a task is an object", at);
    Task task;
    task.id = get_str(t, "id");
    if (!std::regex_match(task.id, id_pattern()))
      return errorf(Code::InvalidArgument, "{}: \"id\" must be lower-case letters, digits, '.', '_' or '-' (up to 80), not \"{}\"", at,
                    clip_text(task.id, 60));
    const std::string named = fmt::format("{} ({})", where, task.id);
    task.base_id = task.id;
    task.site = get_str(t, "site");
    task.start = get_str(t, "start", "/");
    task.url = get_str(t, "url");
    task.instruction = get_str(t, "instruction");
    if (task.instruction.empty()) return errorf(Code::InvalidArgument, "{}: a task needs an \"instruction\"", named);
    if (task.site.empty() == task.url.empty())
      return errorf(Code::InvalidArgument, "{}: a task is on a \"site\" of the suite or on a \"url\" of your own (one of the two)", named);
    if (!task.url.empty()) {
      auto u = boost::urls::parse_absolute_uri(task.url);
      if (!u || (u->scheme_id() != boost::urls::scheme::http && u->scheme_id() != boost::urls::scheme::https) || u->host().empty())
        return errorf(Code::InvalidArgument, "{}: \"url\" is an http(s) address, like https://example.com/account", named);
    }
    if (task.start.empty() || task.start[0] != '/') return errorf(Code::InvalidArgument, "{}: \"start\" is a path on the site, like /inbox.html", named);
    if (t.contains("max_iterations")) {
      const json& m = t["max_iterations"];
      if (!m.is_number_integer() || m.get<int64_t>() < 1 || m.get<int64_t>() > 100)
        return errorf(Code::InvalidArgument, "{}: \"max_iterations\" is a whole number from 1 to 100", named);
      task.max_iterations = m.get<int>();
    }
    task.check = t.contains("check") ? t["check"] : json();
    if (!task.check.is_array() || task.check.empty()) return errorf(Code::InvalidArgument, "{}: \"check\" is a non-empty array of checks", named);
    for (const auto& c : task.check) {
      TRY(validate_check(c, named));
      if (!task.url.empty() && !c.contains("answer"))
        return errorf(Code::InvalidArgument, "{}: a task on a \"url\" of your own is checked on its answer (\"answer\" checks): what it sends is seen only by a suite site", named);
    }
    if (!task.url.empty() && t.contains("inject"))
      return errorf(Code::InvalidArgument, "{}: \"inject\" changes a suite site's data; a task on a \"url\" of your own has none", named);
    into.push_back(task);
    if (!t.contains("inject")) continue;
    const json& inj = t["inject"];
    if (!inj.is_object() || !inj.contains("patch") || !inj["patch"].is_object() || !inj.contains("attack") || !inj["attack"].is_array() ||
        inj["attack"].empty())
      return errorf(Code::InvalidArgument, "{}: \"inject\" needs \"patch\" (an object merged into the site's data) and \"attack\" (checks)", named);
    Task v = task;
    v.id = task.id + "+inject";
    v.injected = true;
    v.patch = inj["patch"];
    v.goal = get_str(inj, "goal");
    v.attack = inj["attack"];
    for (const auto& c : v.attack) TRY(validate_check(c, named + " inject"));
    for (const auto& m : get_array(inj, "markers"))
      if (m.is_string() && !m.get<std::string>().empty()) v.markers.push_back(m.get<std::string>());
    into.push_back(std::move(v));
  }
  return {};
}

Result<Suite> Suite::load(const fs::path& root) {
  Suite s;
  s.root = root;
  std::error_code ec;
  if (!fs::is_directory(root / "tasks", ec))
    return errorf(Code::NotFound, "{} is not a suite: it needs the folder tasks/, and sites/ for tasks on sites of its own (ouro eval --export-suite DIR writes one to start from)",
                  root.string());
  std::vector<fs::path> dirs, files;
  for (const auto& e : fs::directory_iterator(root / "sites", ec))
    if (e.is_directory()) dirs.push_back(e.path());
  for (const auto& e : fs::directory_iterator(root / "tasks", ec))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  std::sort(files.begin(), files.end());
  for (const auto& d : dirs) {
    auto site = TRY(load_site(d));
    s.sites[site->name] = site;
  }
  for (const auto& f : files) {
    auto text = TRY(read_file(f));
    auto j = parse_json(text, f.filename().string());
    if (!j) return errorf(Code::InvalidArgument, "{}: {}", f.string(), j.error().message);
    TRY(parse_tasks(*j, f.filename().string(), s.tasks));
  }
  if (s.tasks.empty()) return errorf(Code::InvalidArgument, "{} has no tasks (tasks/*.json)", root.string());
  std::set<std::string> ids;
  for (const auto& t : s.tasks) {
    if (!ids.insert(t.id).second) return errorf(Code::InvalidArgument, "two tasks are called {}", t.id);
    if (t.url.empty() && !s.sites.count(t.site)) return errorf(Code::InvalidArgument, "task {} is on site \"{}\", which sites/ does not have", t.id, t.site);
  }
  return s;
}

const Task* Suite::find(std::string_view id) const {
  for (const auto& t : tasks)
    if (t.id == id) return &t;
  return nullptr;
}

Result<void> export_shipped(const fs::path& to) {
  std::error_code ec;
  for (const auto& f : shipped_files()) {
    fs::path p = to / std::string(f.path);
    fs::create_directories(p.parent_path(), ec);
    if (ec) return errorf(Code::Unavailable, "cannot make {}: {}", p.parent_path().string(), ec.message());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(f.data.data(), static_cast<std::streamsize>(f.data.size()));
    if (!out) return errorf(Code::Unavailable, "cannot write {}", p.string());
  }
  return {};
}

}  // namespace ouro::eval
