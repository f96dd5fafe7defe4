// Downloads: where a context's files land (CDP Browser.setDownloadBehavior, "allowAndName": the
// browser writes each one as its guid into the folder), and what became of them
// (Browser.downloadWillBegin / downloadProgress, on the browser's own session). A finished file
// is renamed to its suggested name, made safe, by whoever asks next — never on the network thread.
#include "base/log.h"
#include "browser/browser_impl.h"

#include <filesystem>

namespace ouro::browser {

namespace {

constexpr size_t kDownloadsKept = 200;

// A name that stays inside the folder: no separators, no control characters, no leading dots.
std::string safe_file_name(std::string_view suggested) {
  std::string out;
  for (unsigned char c : suggested) {
    if (out.size() >= 180) break;
    if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == ':' || c == '*' || c == '?' || c == '"' || c == '<' || c == '>' || c == '|')
      out.push_back('_');
    else out.push_back(static_cast<char>(c));
  }
  while (!out.empty() && (out.front() == '.' || out.front() == ' ')) out.erase(out.begin());
  while (!out.empty() && (out.back() == '.' || out.back() == ' ')) out.pop_back();
  return out.empty() ? "download" : out;
}

// "report.pdf", then "report (1).pdf", … for a name already taken in dir.
std::filesystem::path unique_path(const std::filesystem::path& dir, const std::string& name) {
  namespace fs = std::filesystem;
  fs::path p = dir / name;
  std::error_code ec;
  if (!fs::exists(p, ec)) return p;
  std::string stem = p.stem().string(), ext = p.extension().string();
  for (int i = 1; i < 1000; ++i) {
    fs::path q = dir / (stem + " (" + std::to_string(i) + ")" + ext);
    if (!fs::exists(q, ec)) return q;
  }
  return dir / (stem + " (" + std::to_string(std::rand()) + ")" + ext);
}

}  // namespace

// Renames finished files into place (mutex held: quick filesystem calls, on the caller's thread).
void Browser::Impl::settle_downloads(const std::string& context) {
  namespace fs = std::filesystem;
  for (auto& [guid, d] : downloads) {
    if (d.context != context || d.info.state != "completed" || d.saved_as.empty()) continue;
    std::error_code ec;
    fs::path from = fs::path(d.dir) / d.saved_as, to = unique_path(d.dir, d.info.name);
    fs::rename(from, to, ec);
    if (ec) {
      spdlog::warn("downloads: cannot name {} as {}: {}", from.string(), to.string(), ec.message());
      d.info.path = from.string();
    } else {
      d.info.path = to.string();
      d.info.name = to.filename().string();
    }
    d.saved_as.clear();
  }
}

json Download::to_json() const {
  json j = {{"id", id}, {"url", url.substr(0, 2000)}, {"name", name}, {"state", state}, {"size", size}, {"received", received}};
  if (!tab_id.empty()) j["tabId"] = tab_id;
  if (!path.empty()) j["path"] = path;
  return j;
}

bool Browser::Impl::download_event(const cdp::Event& ev) {
  if (!ev.session_id.empty()) return false;
  if (ev.method == "Browser.downloadWillBegin") {
    std::lock_guard lock(mutex);
    std::string guid = get_str(ev.params, "guid");
    if (guid.empty() || downloads.count(guid)) return true;
    auto tab = tracker.by_target(get_str(ev.params, "frameId"));
    if (!tab) {
      spdlog::debug("downloads: {} began in a frame of no tab we know; not reported", guid);
      return true;
    }
    DownloadState d;
    d.context = tab->context;
    d.info.id = guid;
    d.info.tab_id = tab->id;
    d.info.url = get_str(ev.params, "url");
    d.info.name = safe_file_name(get_str(ev.params, "suggestedFilename"));
    d.info.state = "in_progress";
    if (auto dir = download_dirs.find(tab->context); dir != download_dirs.end() && !dir->second.empty()) {
      d.dir = dir->second;
      d.saved_as = guid;
    }
    downloads[guid] = std::move(d);
    download_order.push_back(guid);
    while (download_order.size() > kDownloadsKept) {
      downloads.erase(download_order.front());
      download_order.pop_front();
    }
    changed.notify_all();
    return true;
  }
  if (ev.method == "Browser.downloadProgress") {
    std::lock_guard lock(mutex);
    auto d = downloads.find(get_str(ev.params, "guid"));
    if (d == downloads.end()) return true;
    auto& info = d->second.info;
    info.size = static_cast<int64_t>(get_num(ev.params, "totalBytes", -1));
    info.received = static_cast<int64_t>(get_num(ev.params, "receivedBytes", 0));
    if (info.size <= 0 && get_str(ev.params, "state") == "completed") info.size = info.received;
    std::string state = get_str(ev.params, "state");
    if (state == "inProgress") state = "in_progress";
    if (!state.empty()) info.state = state;
    if (info.state == "canceled") d->second.saved_as.clear();
    changed.notify_all();
    return true;
  }
  return false;
}

Result<void> Files::set_download_dir(const std::string& context, const std::string& dir) {
  json params = {{"eventsEnabled", true}};
  if (!context.empty()) params["browserContextId"] = context;
  if (dir.empty()) {
    params["behavior"] = "default";
  } else {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return errorf(Code::Internal, "cannot make the downloads folder {}: {}", dir, ec.message());
    params["behavior"] = "allowAndName";
    params["downloadPath"] = std::filesystem::absolute(dir).string();
  }
  TRY(m_impl->conn->call("Browser.setDownloadBehavior", params, "", 10s));
  std::lock_guard lock(m_impl->mutex);
  m_impl->download_dirs[context] = dir.empty() ? "" : std::filesystem::absolute(dir).string();
  return {};
}

std::vector<Download> Files::downloads(const std::string& context) {
  std::lock_guard lock(m_impl->mutex);
  m_impl->settle_downloads(context);
  std::vector<Download> out;
  for (const auto& guid : m_impl->download_order)
    if (auto d = m_impl->downloads.find(guid); d != m_impl->downloads.end() && d->second.context == context) out.push_back(d->second.info);
  return out;
}

Result<Download> Files::wait_for_download(const std::string& context, const std::set<std::string>& seen, Millis timeout) {
  std::unique_lock lock(m_impl->mutex);
  const Download* found = nullptr;
  auto finished = [&] {
    for (const auto& guid : m_impl->download_order) {
      auto d = m_impl->downloads.find(guid);
      if (d == m_impl->downloads.end() || d->second.context != context || seen.count(guid)) continue;
      if (d->second.info.state == "in_progress") return false;  // the first new one, still coming
      found = &d->second.info;
      return true;
    }
    return false;
  };
  m_impl->wait_until(lock, Clock::now() + timeout, finished);
  if (m_impl->dead) return tl::make_unexpected(*m_impl->dead);
  if (!found) {
    bool started = false;
    for (const auto& [guid, d] : m_impl->downloads) started |= d.context == context && !seen.count(guid);
    return errorf(Code::DeadlineExceeded, "{} within {} ms", started ? "the download did not finish" : "no download started", timeout.count());
  }
  std::string id = found->id;
  m_impl->settle_downloads(context);
  return m_impl->downloads.at(id).info;
}

// --- uploads ----------------------------------------------------------------------------------

Result<void> Files::set_input_files(const std::string& tab_id, const std::string& selector, const std::vector<std::string>& paths,
                                      Millis timeout) {
  auto [node, sid] = TRY(m_browser.call_object(tab_id, "fileInput", json::array({selector, paths.size()}), Frames::frame_of(selector), timeout));
  std::string object = get_str(node, "objectId");
  if (object.empty()) return errorf(Code::Internal, "the file input on {} could not be held for the upload", tab_id);
  auto set = m_impl->conn->call("DOM.setFileInputFiles", {{"files", paths}, {"objectId", object}}, sid, timeout);
  m_impl->conn->send("Runtime.releaseObject", {{"objectId", object}}, sid, 5s, [](Result<json>) {});
  if (!set) return errorf(set.error().code, "cannot set the files of {}: {}", selector.substr(0, 200), set.error().message);
  return {};
}

}  // namespace ouro::browser
