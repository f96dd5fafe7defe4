// Live views of tabs (Page.startScreencast): frames arrive as events on a tab's session and go to
// callbacks on the network thread. And timers on the network thread.
#include "browser/browser_impl.h"
#include "net/io.h"
#include "net/timer.h"

#include <boost/asio/io_context.hpp>

#include <algorithm>

namespace ouro::browser {

void Browser::Impl::on_screencast_frame(const cdp::Event& ev) {
  std::vector<std::function<void(const std::string&)>> to_call;
  {
    std::lock_guard lock(mutex);
    auto tab = tracker.by_session(ev.session_id);
    if (!tab) return;
    for (auto& [id, v] : viewers)
      if (v.tab == tab->id) to_call.push_back(v.on_frame);
  }
  // Chromium sends the next frame only after this one is acknowledged.
  conn->send("Page.screencastFrameAck", {{"sessionId", get_int(ev.params, "sessionId", 0)}}, ev.session_id, 5s, [](Result<json>) {});
  std::string data = get_str(ev.params, "data");
  for (auto& f : to_call) f(data);
}

Result<int> Screencast::start(const std::string& tab_id, std::function<void(const std::string&)> on_frame) {
  bool first;
  int id;
  {
    std::lock_guard lock(m_impl->mutex);
    TRY(m_impl->find_tab(tab_id));
    first = std::none_of(m_impl->viewers.begin(), m_impl->viewers.end(), [&](auto& kv) { return kv.second.tab == tab_id; });
    id = m_impl->next_viewer++;
    m_impl->viewers[id] = Impl::Viewer{tab_id, std::move(on_frame)};
  }
  // Not awaited: callers may be on the network thread, which must not block on a reply.
  if (first) m_browser.send_async(tab_id, "Page.startScreencast", {{"format", "jpeg"}, {"quality", 60}, {"maxWidth", 960}, {"maxHeight", 640}, {"everyNthFrame", 1}});
  return id;
}

void Screencast::stop(int id) {
  std::string tab;
  bool last;
  {
    std::lock_guard lock(m_impl->mutex);
    auto it = m_impl->viewers.find(id);
    if (it == m_impl->viewers.end()) return;
    tab = it->second.tab;
    m_impl->viewers.erase(it);
    last = std::none_of(m_impl->viewers.begin(), m_impl->viewers.end(), [&](auto& kv) { return kv.second.tab == tab; });
  }
  if (last) m_browser.send_async(tab, "Page.stopScreencast", json::object());
}

void Browser::after(Millis delay, std::function<void()> fn) {
  auto timer = std::make_shared<net::Timer>(m_impl->io->context(), delay);
  timer->async_wait([timer, fn = std::move(fn)](boost::system::error_code ec) {
    if (!ec) fn();
  });
}

}  // namespace ouro::browser
