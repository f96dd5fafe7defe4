#include "llm/keyring.h"
#include "base/steady_clock.h"

#include "base/json.h"
#include "base/private_file.h"

#include <libsecret/secret.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace ouro::llm {

namespace {

const SecretSchema kSchema = {"org.ouroboros.ApiKey",
                              SECRET_SCHEMA_NONE,
                              {{"provider", SECRET_SCHEMA_ATTRIBUTE_STRING}, {nullptr, SECRET_SCHEMA_ATTRIBUTE_STRING}},
                              0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
constexpr auto kDeadline = std::chrono::seconds(4);

// A bus we may use: one that is already there. libsecret would otherwise try to autolaunch one.
bool have_bus() {
  const char* a = std::getenv("DBUS_SESSION_BUS_ADDRESS");
  return a && *a;
}

// Runs a libsecret call with a cancellable that fires at the deadline: a keyring that would
// prompt to unlock, or a service that does not answer, ends as an error, not a hang.
template <typename F>
auto with_deadline(F call) {
  GCancellable* cancel = g_cancellable_new();
  std::atomic<bool> done{false};
  std::thread timer([&] {
    auto until = SteadyClock::now() + kDeadline;
    while (!done && SteadyClock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!done) g_cancellable_cancel(cancel);
  });
  auto r = call(cancel);
  done = true;
  timer.join();
  g_object_unref(cancel);
  return r;
}

std::string message_of(GError* e) {
  std::string m = e && e->message ? e->message : "unknown error";
  if (e) g_error_free(e);
  return m;
}

json read_file_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return json::object();
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = parse_json(ss.str(), "secrets file");
  return j && j->is_object() ? *j : json::object();
}

// The secrets file as it is before a key is stored in it: none yet (or empty) holds nothing. One
// that is not a JSON object with an object "api_keys" is not written over: the keys in it would
// be lost. The error never shows what the file holds.
Result<json> secrets_for_update(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) return json::object();
  std::ifstream in(path);
  if (!in) return errorf(Code::FailedPrecondition, "cannot read the secrets file {}: fix its permissions, then store the key again", path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return json::object();
  auto j = parse_json(text, "secrets file");
  if (!j || !j->is_object() || (j->contains("api_keys") && !(*j)["api_keys"].is_object()))
    return errorf(Code::FailedPrecondition,
                  "the secrets file {} is not a JSON object with an \"api_keys\" object; ouro does not write over it (the keys "
                  "in it would be lost): fix it or move it away, then store the key again",
                  path);
  return *j;
}

}  // namespace

bool keyring_available() {
  if (!have_bus()) return false;
  return with_deadline([](GCancellable* c) {
    GError* e = nullptr;
    SecretService* s = secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, c, &e);
    if (!s) {
      if (e) g_error_free(e);
      return false;
    }
    g_object_unref(s);
    return true;
  });
}

Result<void> keyring_store(const std::string& provider, const std::string& key) {
  if (!have_bus()) return make_error(Code::Unavailable, "no session bus (DBUS_SESSION_BUS_ADDRESS is unset), so no keyring");
  std::string label = "ouro API key (" + provider + ")";
  return with_deadline([&](GCancellable* c) -> Result<void> {
    GError* e = nullptr;
    if (!secret_password_store_sync(&kSchema, SECRET_COLLECTION_DEFAULT, label.c_str(), key.c_str(), c, &e, "provider", provider.c_str(),
                                    nullptr))
      return errorf(Code::Unavailable, "the keyring did not take the key: {}", message_of(e));
    return {};
  });
}

std::optional<std::string> keyring_lookup(const std::string& provider) {
  if (!have_bus()) return std::nullopt;
  return with_deadline([&](GCancellable* c) -> std::optional<std::string> {
    GError* e = nullptr;
    gchar* pw = secret_password_lookup_sync(&kSchema, c, &e, "provider", provider.c_str(), nullptr);
    if (e) g_error_free(e);
    if (!pw) return std::nullopt;
    std::string out = pw;
    secret_password_free(pw);
    return out;
  });
}

Result<void> keyring_clear(const std::string& provider) {
  if (!have_bus()) return make_error(Code::Unavailable, "no session bus, so no keyring");
  return with_deadline([&](GCancellable* c) -> Result<void> {
    GError* e = nullptr;
    secret_password_clear_sync(&kSchema, c, &e, "provider", provider.c_str(), nullptr);
    if (e) return errorf(Code::Unavailable, "the keyring did not remove the key: {}", message_of(e));
    return {};
  });
}

Result<void> key_file_store(const std::string& path, const std::string& provider, const std::string& key) {
  json j = TRY(secrets_for_update(path));
  if (!j.contains("api_keys")) j["api_keys"] = json::object();
  if (key.empty()) j["api_keys"].erase(provider);
  else j["api_keys"][provider] = key;
  // No key left in it: no file (nothing to leave behind, nothing to read).
  if (j["api_keys"].empty() && j.size() == 1) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return errorf(Code::Internal, "cannot remove {}: {}", path, std::strerror(errno));
    return {};
  }
  return write_private_file(path, dump_json(j));
}

std::optional<std::string> key_file_lookup(const std::string& path, const std::string& provider) {
  json j = read_file_json(path);
  if (j.contains("api_keys") && j["api_keys"].is_object() && j["api_keys"].contains(provider) && j["api_keys"][provider].is_string())
    return j["api_keys"][provider].get<std::string>();
  return std::nullopt;
}

std::vector<std::string> stored_key_providers(const std::string& secrets_path) {
  std::vector<std::string> out;
  if (have_bus()) {
    std::vector<std::pair<guint64, std::string>> items = with_deadline([](GCancellable* c) {
      std::vector<std::pair<guint64, std::string>> found;
      GError* e = nullptr;
      GList* all = secret_password_search_sync(&kSchema, SECRET_SEARCH_ALL, c, &e, nullptr);
      if (e) g_error_free(e);
      for (GList* l = all; l; l = l->next) {
        auto* item = static_cast<SecretRetrievable*>(l->data);
        GHashTable* attributes = secret_retrievable_get_attributes(item);
        if (auto* p = static_cast<const char*>(attributes ? g_hash_table_lookup(attributes, "provider") : nullptr); p && *p)
          found.emplace_back(secret_retrievable_get_created(item), p);
        if (attributes) g_hash_table_unref(attributes);
      }
      g_list_free_full(all, g_object_unref);
      return found;
    });
    std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [created, provider] : items) out.push_back(std::move(provider));
  }
  if (!secrets_path.empty()) {
    json j = read_file_json(secrets_path);
    if (j.contains("api_keys") && j["api_keys"].is_object())
      for (const auto& [provider, key] : j["api_keys"].items())
        if (key.is_string() && !key.get<std::string>().empty() && std::find(out.begin(), out.end(), provider) == out.end()) out.push_back(provider);
  }
  return out;
}

}  // namespace ouro::llm
