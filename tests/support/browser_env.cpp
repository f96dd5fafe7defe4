#include "browser_env.h"

#include "base/log.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <stdexcept>
#include <vector>

namespace ouro::testing {

session::SessionOptions test_options() {
  init_logging();  // OURO_LOG=debug shows what the browser and the gate saw
  session::SessionOptions o;
  o.db_path = temp_dir() + "/ouro.db";
  o.repl.executable = ouro_binary();
  o.repl.timeout = std::chrono::seconds(30);
  o.limits.action_timeout = std::chrono::milliseconds(2500);
  o.limits.exec_timeout = std::chrono::milliseconds(4000);
  return o;
}

void product_page_reads(session::SessionOptions& o) { o.limits.exec_timeout = host::Limits{}.exec_timeout; }

std::unique_ptr<session::Session> isolated_session(const std::function<void(session::SessionOptions&)>& tweak) {
  auto o = test_options();
  o.isolated = true;
  if (tweak) tweak(o);
  auto s = session::Session::attach(shared_session().runtime(), o);
  if (!s) throw std::runtime_error(s.error().message);
  return std::move(*s);
}

FixtureSite& site() {
  static FixtureSite s;
  return s;
}

session::Session& shared_session() {
  static std::unique_ptr<session::Session> s = [] {
    auto r = session::Session::start(test_options());
    if (!r) throw std::runtime_error("cannot start the test session: " + r.error().message);
    return std::move(*r);
  }();
  return *s;
}

jsrt::EvalResult eval(const std::string& code, session::Session* s) {
  auto r = (s ? *s : shared_session()).repl().eval(with_urls(code));
  if (!r) {
    ADD_FAILURE() << "REPL failure: " << r.error().message;
    return {};
  }
  return *r;
}

json ok(const std::string& code, session::Session* s) {
  auto r = eval(code, s);
  if (!r.ok) {
    ADD_FAILURE() << "evaluation failed: " << r.error_name << ": " << r.error_message << "\ncode:\n" << code;
    return json();
  }
  return r.final ? *r.final : r.value;
}

std::string fails(const std::string& code, session::Session* s) {
  auto r = eval(code, s);
  if (r.ok) {
    ADD_FAILURE() << "expected an error, got " << (r.value.is_discarded() ? "undefined" : r.value.dump()) << "\ncode:\n" << code;
    return "";
  }
  return r.error_message;
}

std::string script_file(const std::vector<json>& lines) {
  std::string path = temp_dir() + "/script.jsonl";
  std::ofstream out(path);
  for (const auto& l : lines) out << l.dump() << "\n";
  return path;
}

std::string repl_reply(const std::string& code, const std::string& prose) { return prose + "\n```repl\n" + code + "\n```"; }

std::string with_urls(std::string code) {
  static const std::regex re(R"(\{\{(/[^}]*)\}\})");
  std::string out;
  auto begin = std::sregex_iterator(code.begin(), code.end(), re);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += code.substr(last, static_cast<size_t>(it->position()) - last);
    out += site().url((*it)[1]);
    last = static_cast<size_t>(it->position() + it->length());
  }
  return out + code.substr(last);
}

}  // namespace ouro::testing
