// Pictures of pages (screenshot): a PNG data URI, a region of it, and marks that outline the
// controls for the shot only.
#include "browser_env.h"

namespace ouro::testing {
namespace {

TEST(DomReads, ScreenshotIsAPngDataUri) {
  json r = ok(R"(
    const t = await openTab('{{/}}');
    const full = await screenshot(t);
    const part = await screenshot(t, { x: 0, y: 0, width: 100, height: 50 });
    ({ full: full.slice(0, 31), fullLen: full.length, partLen: part.length }))");
  EXPECT_EQ(r["full"], "data:image/png;base64,iVBORw0KG");
  EXPECT_GT(r["fullLen"].get<int>(), 2000);
  EXPECT_LT(r["partLen"].get<int>(), r["fullLen"].get<int>());
}

TEST(Screenshot, MarksOutlineTheControlsForTheShotOnlyAndLeaveThePageAsItWas) {
  json r = ok("const t = await openTab('{{/pcd/form}}'); const plain = await screenshot(t); const marked = await screenshot(t, {marks: true}); "
              "const again = await screenshot(t); "
              "[plain === again, plain !== marked, marked.startsWith('data:image/png;base64,'), "
              "await execInTab(t, 'document.querySelectorAll(\"[data-ouro-marks]\").length')]");
  EXPECT_EQ(r, json::parse("[true, true, true, 0]")) << "the marks show in the shot and are gone after it";
}

}  // namespace
}  // namespace ouro::testing
