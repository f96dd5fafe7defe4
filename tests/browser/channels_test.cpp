// Live channels a page holds open when a run takes its tab (browser/channels.cpp): a socket the
// user's page opened before the claim is ended by the claim, and recorded as closed.
#include "gate_env.h"

namespace ouro::testing {
namespace {

// The user hands over a tab whose page opened a socket to the attacker before the run took it.
// No request check sees what goes through an open socket, so the claim ends it (the page is
// loaded again under the gate) and the gate records it as closed: what the run then hands the
// page reaches no one.
TEST(Gate, ASocketTheHandedPageOpenedBeforeTheClaimIsClosed) {
  browser::Browser& b = *runtime()->browser;
  size_t opened = collected_lines("WEBSOCKET-OPEN /live-ws");
  auto tab = b.open_tab(sites().victim("/live"), 10s, "");
  ASSERT_TRUE(tab) << tab.error().message;
  ASSERT_TRUE(b.switch_tab(*tab));
  for (int i = 0; i < 200 && collected_lines("WEBSOCKET-OPEN /live-ws") == opened; ++i) std::this_thread::sleep_for(50ms);
  ASSERT_GT(collected_lines("WEBSOCKET-OPEN /live-ws"), opened) << "the user's page did not open its socket";
  GateLog log;
  auto o = test_options();
  o.shared = true;
  o.owner = "run live-socket";
  safety::GateConfig gc;
  gc.urls = {sites().victim("/live")};
  gc.mode = safety::GateMode::Autonomous;
  o.gate = *safety::make_policy(gc);
  auto s = session::Session::attach(runtime(), o);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ((*s)->handed_tab(), *tab);
  (*s)->host().context().set_hooks(log.hooks(false));
  egress::deliver_early((*s)->host().context());
  // The run acts, and hands the page its token to send on the socket.
  ok("await execInTab(activeTab, \"window.leak && window.leak('leak ' + document.getElementById('token').textContent); 1\")", s->get());
  ok("await execInTab(activeTab, \"new Promise((r) => setTimeout(r, 300))\")", s->get());
  EXPECT_EQ(collected_lines("WEBSOCKET-MESSAGE"), 0u) << "a message went out on a socket opened before the claim";
  EXPECT_EQ(collected_lines("WEBSOCKET-OPEN /live-ws"), opened + 1) << "the page loaded again under the gate opened a socket to the attacker";
  {
    std::lock_guard lock(log.mutex);
    bool closed = false;
    for (const auto& d : log.decisions)
      if (get_str(d, "decision") == "closed" && get_str(d, "url").find("/live-ws") != std::string::npos && get_str(d, "type") == "WebSocket")
        closed = true;
    EXPECT_TRUE(closed) << "the gate did not record the socket as closed";
  }
  (*s)->let_go();
  s->reset();
  (void)b.close_tab(*tab);
}

}  // namespace
}  // namespace ouro::testing
