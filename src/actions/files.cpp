// Files in and out of a run: the downloads of the session's context, which land in its
// own folder (session.cpp sets it up), and uploads into a page's file input, taken only from the
// folders the session allows (its downloads folder and --upload-dir ones).
#include "actions/impl.h"
#include "perception/targets.h"

#include "browser/browser.h"
#include "browser/files.h"

#include <filesystem>

namespace ouro::actions::impl {

namespace {

constexpr size_t kMaxUploadFiles = 20;

bool inside(const std::filesystem::path& file, const std::filesystem::path& dir) {
  auto f = file.begin(), d = dir.begin();
  for (; d != dir.end(); ++d, ++f)
    if (f == file.end() || *f != *d) return false;
  return true;
}

// The real path of a file upload() may take, or why not.
Result<std::string> allowed_file(const Context& ctx, const std::string& given) {
  namespace fs = std::filesystem;
  if (given.empty() || given.size() > 4096 || given.find('\0') != std::string::npos)
    return errorf(Code::InvalidArgument, "upload: '{}' is not a file path", given.substr(0, 200));
  if (ctx.upload_dirs().empty())
    return errorf(Code::PermissionDenied, "upload: this session has no folder to take files from (start it with --upload-dir DIR)");
  std::vector<fs::path> candidates;
  if (fs::path(given).is_absolute()) candidates.push_back(given);
  else
    for (const auto& d : ctx.upload_dirs()) candidates.push_back(fs::path(d) / given);  // a name in an allowed folder
  for (const auto& c : candidates) {
    std::error_code ec;
    fs::path real = fs::canonical(c, ec);  // links resolved: a link out of the folder is outside it
    if (ec) continue;
    for (const auto& d : ctx.upload_dirs()) {
      fs::path dir = fs::canonical(d, ec);
      if (ec || !inside(real, dir)) continue;
      if (!fs::is_regular_file(real, ec)) return errorf(Code::InvalidArgument, "upload: '{}' is not a regular file", given.substr(0, 200));
      return real.string();
    }
    return errorf(Code::PermissionDenied, "upload: '{}' is outside the folders uploads may come from ({}); copy it into one of them",
                  given.substr(0, 200), fmt::join(ctx.upload_dirs(), ", "));
  }
  return errorf(Code::NotFound, "upload: no file '{}' (relative names are looked up in {})", given.substr(0, 200), fmt::join(ctx.upload_dirs(), ", "));
}

json downloads_json(const std::vector<browser::Download>& list) {
  json out = json::array();
  for (const auto& d : list) out.push_back(d.to_json());
  return out;
}

}  // namespace

Result<json> get_downloads(Context& ctx, const json&) { return downloads_json(ctx.browser().files().downloads(ctx.browser_context())); }

Result<json> wait_for_download(Context& ctx, const json& args) {
  const json& options = args.size() > 0 ? args[0] : json();
  auto timeout = std::chrono::milliseconds(static_cast<int64_t>(get_num(options, "timeout", 30000)));
  const std::set<std::string> seen = ctx.downloads_returned();
  auto d = ctx.browser().files().wait_for_download(ctx.browser_context(), seen, timeout);
  if (!d) {
    if (d.error().code == Code::DeadlineExceeded)
      return errorf(Code::DeadlineExceeded, "waitForDownload: {} (start it first — click the link or button — then wait; getDownloads() lists all)",
                    d.error().message);
    return tl::make_unexpected(d.error());
  }
  ctx.mark_download_returned(d->id);
  return d->to_json();
}

Result<json> upload(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0), selector = arg_string(args, 1);
  const json& given = args.size() > 2 ? args[2] : json();
  std::vector<std::string> paths;
  auto add = [&](const json& p) -> Result<void> {
    if (!p.is_string()) return errorf(Code::InvalidArgument, "upload: paths must be strings");
    paths.push_back(TRY(allowed_file(ctx, p.get<std::string>())));
    return {};
  };
  if (given.is_array()) {
    if (given.size() > kMaxUploadFiles) return errorf(Code::InvalidArgument, "upload: at most {} files at once, not {}", kMaxUploadFiles, given.size());
    for (const auto& p : given) TRY(add(p));
  } else {
    TRY(add(given));
  }
  selector = TRY(perception::replay_target(ctx, tab, "upload", selector, ctx.limits().action_timeout));  // a replay heals a renamed input
  TRY(ctx.browser().files().set_input_files(tab, selector, paths, ctx.limits().exec_timeout));
  if (perception::recording(ctx)) perception::record_target(ctx, tab, "upload", selector, nullptr);
  json names = json::array();
  for (const auto& p : paths) names.push_back(std::filesystem::path(p).filename().string());
  return json{{"files", names}};
}

}  // namespace ouro::actions::impl
