#include "actions/host.h"

#include "actions/impl.h"
#include "actions/registry.h"
#include "browser/browser.h"

#include <future>

namespace ouro::actions {

Host::Host(browser::Browser& browser, store::Database* db, Limits limits, size_t threads)
    : m_ctx(browser, db, limits), m_pool(std::make_unique<ThreadPool>(threads)) {
  browser.set_pause_handler([this](const std::string& tab, const json& params) { impl::on_request_paused(m_ctx, tab, params); });
}

Host::~Host() {
  m_ctx.browser.set_pause_handler(nullptr);
  m_pool.reset();
}

Result<json> Host::run(const std::string& function, const json& args) {
  const Capability* cap = find(function);
  if (!cap || cap->where != Where::Host || !cap->impl) return errorf(Code::NotFound, "'{}' is not a host function", function);
  TRY(check_args(*cap, args));
  std::string tab;
  if (!cap->params.empty() && cap->params[0].name == "tabId" && !args.empty() && args[0].is_string()) tab = args[0].get<std::string>();
  if (!tab.empty()) {
    auto where = m_ctx.browser.tab_context(tab);
    if (where && *where != m_ctx.browser_context) {
      std::string mine;
      for (const auto& t : m_ctx.browser.tabs(m_ctx.browser_context)) mine += (mine.empty() ? "" : ", ") + t.id;
      return errorf(Code::NotFound, "{}: no tab '{}' (open tabs: {})", function, tab, mine.empty() ? "none" : mine);
    }
  }
  auto r = cap->impl(m_ctx, args);
  if (!tab.empty()) {
    if (!r) {
      const std::string& msg = r.error().message;
      bool went_away = msg.find("navigated") != std::string::npos || msg.find("context was destroyed") != std::string::npos;
      if (auto note = m_ctx.browser.navigation_note(tab, went_away ? std::chrono::milliseconds(1500) : std::chrono::milliseconds(0));
          note && msg.find("[PAGE NAVIGATED]") == std::string::npos)
        r.error().message += "\n" + *note;
    } else if (cap->risk != Risk::Navigate) {
      m_ctx.browser.note_interaction(tab);
    }
  }
  if (!r) {
    // Messages name the call; prefix it where the implementation did not.
    if (r.error().message.rfind(function, 0) != 0) r.error().message = function + ": " + r.error().message;
  }
  return r;
}

void Host::call(const std::string& function, json args, std::function<void(Result<json>)> reply) {
  m_pool->post([this, function, args = std::move(args), reply = std::move(reply)] { reply(run(function, args)); });
}

Result<json> Host::call_sync(const std::string& function, json args) {
  std::promise<Result<json>> p;
  auto f = p.get_future();
  call(function, std::move(args), [&p](Result<json> r) { p.set_value(std::move(r)); });
  return f.get();
}

}  // namespace ouro::actions
