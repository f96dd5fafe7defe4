// Service workers of the origins a gated tab has shown (browser/service_workers.cpp): a worker
// outlives its page, and what it sends after the tab left its origin still meets the gate.
#include "gate_env.h"

namespace ouro::testing {
namespace {

// A page's service worker outlives the page: woken with a message, it sends once the tab has left
// its origin. The origin was shown by a held tab, so its worker is held still: the send is
// refused and recorded, and the collector receives nothing.
TEST(Gate, AServiceWorkerThatSendsAfterTheTabLeftItsOriginIsHeld) {
  GateLog log;
  // What the run's code sends is a write in careful mode (the worker's script too): the user
  // says yes, so the worker runs; its send to another site is refused without a question.
  log.approve = true;
  auto s = gated_session(safety::GateMode::Careful, log, true);
  size_t collected = sites().collected().size();
  int sent = sites().victim_hits("/sw-sent");
  ok(fill("await execInTab(activeTab, \"navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready)"
          ".then((r) => { r.active.postMessage({send: '{{C}}/sw-late?t=' + document.getElementById('token').textContent}); return 1; })\"); "
          "await navigate(activeTab, 'about:blank')", ""),
     s.get());
  ASSERT_TRUE(victim_served("/sw-sent", sent)) << "the service worker did not get to send";
  EXPECT_TRUE(log.refused("/sw-late", 1s));
  for (const auto& line : sites().collected()) EXPECT_EQ(line.find("/sw-late"), std::string::npos) << line;
  EXPECT_EQ(sites().collected().size(), collected);
  // The worker stays registered with its site, held for this browser: the next tests on the
  // victim's pages start without it (CDP Storage.clearDataForOrigin).
  s.reset();
  browser::Browser& b = *runtime()->browser;
  std::string origin = sites().victim("/");
  origin.pop_back();
  if (auto t = b.open_tab("about:blank", 10s, "")) {
    (void)b.send(*t, "Storage.clearDataForOrigin", {{"origin", origin}, {"storageTypes", "service_workers"}}, 10s);
    (void)b.close_tab(*t);
  }
}

}  // namespace
}  // namespace ouro::testing
