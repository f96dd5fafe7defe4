#include "server/evals.h"

#include "base/base64.h"
#include "eval/report.h"

#include <openssl/sha.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <regex>

namespace ouro::server {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxListed = 200;

Result<fs::path> result_path(const std::string& data_dir, const std::string& name) {
  static const std::regex ok("^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$");
  if (!std::regex_match(name, ok) || name.find("..") != std::string::npos)
    return errorf(Code::InvalidArgument, "\"{}\" is not the name of an evaluation result (letters, digits, '.', '_', '-')", name.substr(0, 60));
  fs::path p = fs::path(data_dir) / "eval" / name / "result.json";
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return errorf(Code::NotFound, "no evaluation result {} (ouro eval writes them under {})", name, (fs::path(data_dir) / "eval").string());
  return p;
}

}  // namespace

Result<json> list_evals(const std::string& data_dir) {
  json out = json::array();
  const fs::path dir = fs::path(data_dir) / "eval";
  std::error_code ec;
  std::vector<fs::path> found;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code e;
    if (it->is_directory(e) && fs::is_regular_file(it->path() / "result.json", e)) found.push_back(it->path());
  }
  std::sort(found.begin(), found.end(), std::greater<>());  // names start with when they ran
  for (const auto& p : found) {
    if (out.size() >= kMaxListed) break;
    // Each result's summary.json (small), written beside it; a result without one is read whole.
    json item;
    std::error_code e;
    if (auto size = fs::file_size(p / "summary.json", e); !e && size < (1u << 20)) {
      std::ifstream in(p / "summary.json");
      std::stringstream ss;
      ss << in.rdbuf();
      if (auto j = parse_json(ss.str(), "summary.json"); j && j->is_object()) item = *j;
    }
    if (item.is_null()) {
      if (auto size = fs::file_size(p / "result.json", e); e || size > (64u << 20)) continue;
      auto r = eval::read_result((p / "result.json").string());
      if (!r) continue;  // a result being written, or not one
      item = {{"suite", get_str(*r, "suite")}, {"provider", get_str(*r, "provider")}, {"model", get_str(*r, "model")},
              {"mode", get_str(*r, "mode")}, {"started_ms", get_int(*r, "started_ms")}, {"summary", get_field(*r, "summary")}};
    }
    item["name"] = p.filename().string();
    out.push_back(std::move(item));
  }
  return json{{"results", out}};
}

Result<std::string> eval_report(const std::string& data_dir, const std::string& name) {
  auto p = TRY(result_path(data_dir, name));
  return eval::html_report(TRY(eval::read_result(p.string())));
}

Result<std::string> eval_compare(const std::string& data_dir, const std::string& a, const std::string& b) {
  auto pa = TRY(result_path(data_dir, a));
  auto pb = TRY(result_path(data_dir, b));
  return eval::html_compare(TRY(eval::read_result(pa.string())), TRY(eval::read_result(pb.string())), a, b);
}

const std::string& eval_report_style_source() {
  static const std::string source = [] {
    const std::string_view css = eval::report_style();
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(css.data()), css.size(), digest);
    return "'sha256-" + base64_encode(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest)) + "'";
  }();
  return source;
}

}  // namespace ouro::server
