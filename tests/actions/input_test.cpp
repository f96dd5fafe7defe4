// Browser actions: trusted input with actionability waits, as a person would act.
#include "browser_env.h"

#include <regex>

namespace ouro::testing {
namespace {

TEST(Click, ClicksWithRealMouseEvents) {
  json r = ok(R"(
    const t = await openTab('{{/}}');
    const res = await click(t, '#go');
    await click(t, '#go');
    ({ res, out: await getText(t, '#out') }))");
  EXPECT_EQ(r["res"]["element"], "button#go \"Go\"");
  EXPECT_EQ(r["out"], "clicked 2");
}

TEST(Click, EventsAreTrusted) {
  json r = ok(R"(
    const t = await openTab('{{/}}');
    await execInTab(t, `window.trusted = null; document.getElementById('go').addEventListener('click', e => window.trusted = e.isTrusted)`);
    await click(t, '#go');
    await execInTab(t, 'window.trusted'))");
  EXPECT_EQ(r, true);
}

TEST(Click, WaitsUntilAnOverlayGoesAndAButtonIsEnabled) {
  json r = ok(R"(
    const t = await openTab('{{/covered?ms=500}}');
    await click(t, '#target');
    const first = await execInTab(t, 'document.title');
    await click(t, '#late');
    ({ first, title: await execInTab(t, 'document.title') }))");
  EXPECT_EQ(r["first"], "target clicked");
  EXPECT_EQ(r["title"], "late clicked");
}

TEST(Click, ACoveredElementFailsNamingWhatCoversIt) {
  std::string err = fails("const t = await openTab('{{/covered?ms=-1}}'); await click(t, '#target', { timeout: 600 })");
  EXPECT_NE(err.find("covered by div#overlay"), std::string::npos) << err;
  EXPECT_NE(err.find("'#target'"), std::string::npos) << err;
  EXPECT_NE(err.find(site().url("/covered?ms=-1")), std::string::npos) << err;
}

TEST(Click, ALinkThatWrapsOntoTwoLinesIsPressedOnItsText) {
  // The common box of a link broken over two lines (spacious line height, a narrow cell) has its
  // centre in the gap between the lines, where the cell, not the link, receives the press.
  json r = ok(R"(
    const t = await openTab('{{/}}');
    await execInTab(t, `document.body.innerHTML = '<div style="line-height:2.2;font-size:16px"><table style="width:260px"><tr>' +
      '<td style="width:60px"><a id="l" href="#" onclick="window.got = (window.got || 0) + 1; return false">Tomás Ortega</a></td>' +
      '<td>someone with a long address to fill the rest of the row</td></tr></table></div>'`);
    const lines = await execInTab(t, 'document.getElementById("l").getClientRects().length');
    await click(t, '#l');
    ({ lines, got: await execInTab(t, 'window.got') }))");
  EXPECT_EQ(r["lines"].get<int>(), 2) << "the fixture's link must wrap for this test to mean anything";
  EXPECT_EQ(r["got"], 1);
}

TEST(Click, AMissingElementNamesSelectorTabAndUrl) {
  std::string err = fails("const t = await openTab('{{/}}'); await click(t, '#missing', { timeout: 300 })");
  EXPECT_NE(err.find("no element matches selector '#missing'"), std::string::npos) << err;
  EXPECT_TRUE(std::regex_search(err, std::regex("on tab t[0-9]+ \\(" + site().url("/") + "\\)"))) << err;
}

TEST(Click, ActionsOnOneTabRunInTheOrderTheyWereCalled) {
  // Started together (Promise.all): one after another on a tab, as a person would click.
  json r = ok(R"(
    const t = await openTab('{{/}}');
    await execInTab(t, `window.order = []; for (const id of ['a', 'b', 'c', 'd', 'e']) {
      const b = document.createElement('button'); b.id = id; b.textContent = id;
      b.onclick = () => window.order.push(id); document.body.append(b); }`);
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map(id => click(t, '#' + id)));
    await execInTab(t, 'window.order.join("")'))");
  EXPECT_EQ(r, "abcde");
}

TEST(Click, AFailingCallThatWasNotAwaitedIsTheBlocksError) {
  // The safety net: a missing `await` does not lose the failure.
  std::string e = fails(R"(
    const t = await openTab('{{/}}');
    click(t, '#no-such-button', { timeout: 200 });
    'done')");
  EXPECT_NE(e.find("click() was not awaited and failed: click: no element matches selector '#no-such-button'"), std::string::npos) << e;
  EXPECT_NE(e.find("Put await before every API call"), std::string::npos) << e;
  // Caught or awaited, it is the code's to handle.
  EXPECT_EQ(ok(R"(
    const t = await openTab('{{/}}');
    const p = click(t, '#no-such-button', { timeout: 200 }).catch(e => 'caught');
    await p)"), "caught");
  EXPECT_EQ(ok(R"(
    const t = await openTab('{{/}}');
    const r = await Promise.allSettled([click(t, '#nope', { timeout: 200 }), getText(t, 'h1')]);
    r.map(x => x.status).join())"), "rejected,fulfilled");
}

TEST(Click, ACookieBannerOverTheTargetIsDismissedOnceAndReported) {
  json r = ok(R"(
    const t = await openTab('{{/consent}}');
    const res = await click(t, '#buy');
    ({ res, title: await execInTab(t, 'document.title'), consent: await execInTab(t, 'document.body.dataset.consent') }))");
  EXPECT_EQ(r["title"], "bought");
  EXPECT_EQ(r["consent"], "rejected") << "the private choice first";
  ASSERT_EQ(r["res"]["dismissed"].size(), 1u) << r.dump();
  EXPECT_EQ(r["res"]["dismissed"][0]["kind"], "cookie-consent");
  EXPECT_EQ(r["res"]["dismissed"][0]["pressed"], "Reject all");
}

TEST(DismissOverlays, ClosesAModalWithoutSubscribingThenTheBanner) {
  json r = ok(R"(
    const t = await openTab('{{/consent?modal}}');
    const d = await dismissOverlays(t);
    ({ d, left: await execInTab(t, 'document.querySelectorAll("[role=dialog], #cookie-banner").length') }))");
  EXPECT_EQ(r["left"], 0) << r.dump();
  std::vector<std::string> pressed;
  for (const auto& d : r["d"]["dismissed"]) pressed.push_back(d["pressed"]);
  EXPECT_EQ(pressed, (std::vector<std::string>{"Close", "Reject all"})) << r.dump() << " (a modal is closed, never subscribed to)";
  EXPECT_EQ(r["d"]["remaining"], json::array());
}

TEST(Click, ScrollsFarElementsIntoView) {
  json r = ok(R"(
    const t = await openTab('{{/scroll}}');
    await click(t, '#bottom');
    await execInTab(t, 'document.title'))");
  EXPECT_EQ(r, "bottom clicked");
}

TEST(Click, ATabClosedWhileTheActionWaitsFailsClearly) {
  std::string err = fails(R"(
    const t = await openTab('{{/covered?ms=-1}}');
    const pending = click(t, '#target', { timeout: 5000 });
    await sleep(300);
    await closeTab(t);
    await pending)");
  EXPECT_NE(err.find("was closed"), std::string::npos) << err;
}

TEST(Type, UpdatesAFrameworkControlledInput) {
  json r = ok(R"(
    const t = await openTab('{{/form}}');
    // Setting .value from script is ignored by the framework, as in React ...
    await execInTab(t, `document.getElementById('name').value = 'script'; document.getElementById('name').dispatchEvent(new Event('input', {bubbles: true}))`);
    const naive = JSON.parse(await getText(t, '#state'));
    // ... while typing like a person updates its state.
    await type(t, '#name', 'Ada Lovelace');
    await type(t, '#email', 'ada@example.com');
    const state = JSON.parse(await getText(t, '#state'));
    ({ naive, state }))");
  EXPECT_EQ(r["naive"]["name"], "") << "the fixture must behave like React: scripted values are ignored";
  EXPECT_EQ(r["state"]["name"], "scriptAda Lovelace");
  EXPECT_EQ(r["state"]["email"], "ada@example.com");
}

// type's promise: keys go only into the field whose frame was checked. A page that moves the
// focus mid-typing (to another field, a hidden input, a frame) gets nothing after the key it moved
// it on, and type fails saying after how many characters it stopped.
TEST(Type, StopsWhenThePageMovesTheFocusAway) {
  // The page moves the focus once the 3rd character is in the field (its `input` event).
  const char* plant = R"(
    const t = await openTab('{{/}}');
    await execInTab(t, `
      document.body.insertAdjacentHTML('beforeend', '<input id=mine><input id=other><input id=hidden style="position:absolute;opacity:0;width:1px">' +
        '<iframe id=frame srcdoc="<input id=inner>"></iframe>');
      const mine = document.getElementById('mine');
      let n = 0;
      mine.addEventListener('input', () => { if (++n === 3) TARGET; });
      1`);
    const ready = `!!document.getElementById('frame').contentDocument?.getElementById('inner')`;
    for (let i = 0; i < 200 && !(await execInTab(t, ready)); i++) await new Promise(r => setTimeout(r, 25));
    let error = '';
    try { await type(t, '#mine', 'abcdefgh'); } catch (e) { error = String(e.message || e); }
    const inner = await execInTab(t, `document.getElementById('frame').contentDocument.getElementById('inner').value`);
    ({ error, mine: await execInTab(t, `document.getElementById('mine').value`),
       other: await execInTab(t, `document.getElementById('other').value`),
       hidden: await execInTab(t, `document.getElementById('hidden').value`), inner }))";
  const std::vector<std::pair<std::string, std::string>> targets = {
      {"another field", "document.getElementById('other').focus()"},
      {"a hidden input", "document.getElementById('hidden').focus()"},
      {"a frame", "document.getElementById('frame').contentDocument.getElementById('inner').focus()"},
  };
  for (const auto& [name, move] : targets) {
    SCOPED_TRACE(name);
    std::string code = plant;
    code.replace(code.find("TARGET"), 6, move);
    json r = ok(code);
    EXPECT_NE(get_str(r, "error").find("focus left the field after 3 of 8 characters"), std::string::npos) << r.dump();
    EXPECT_EQ(r["mine"], "abc") << r.dump();
    EXPECT_EQ(r["other"], "") << r.dump();
    EXPECT_EQ(r["hidden"], "") << r.dump();
    EXPECT_EQ(r["inner"], "") << r.dump();
  }
  // Moved in the handler of a key's own keydown: that one key can land where the page put the
  // focus (the browser delivers it there), and nothing after it is sent.
  json r = ok(R"(
    const t = await openTab('{{/}}');
    await execInTab(t, `
      document.body.insertAdjacentHTML('beforeend', '<input id=mine><input id=other>');
      let n = 0;
      document.getElementById('mine').addEventListener('keydown', () => { if (++n === 4) document.getElementById('other').focus(); });
      1`);
    let error = '';
    try { await type(t, '#mine', 'abcdefgh'); } catch (e) { error = String(e.message || e); }
    ({ error, mine: await execInTab(t, `document.getElementById('mine').value`),
       other: await execInTab(t, `document.getElementById('other').value`) }))");
  EXPECT_NE(get_str(r, "error").find("focus left the field after 4 of 8 characters"), std::string::npos) << r.dump();
  EXPECT_EQ(r["mine"], "abc") << r.dump();
  EXPECT_LE(get_str(r, "other").size(), 1u) << r.dump();
  // A key that replaces the page (Enter in a form) ends typing as it should: not a failure.
  json sent = ok(R"(
    const t = await openTab('{{/}}');
    await execInTab(t, `document.body.insertAdjacentHTML('beforeend', '<form action="/form"><input id=q name=q></form>'); 1`);
    await type(t, '#q', 'go\n'))");
  EXPECT_EQ(sent["typed"], 3) << sent.dump();
}

TEST(Type, ReadOnlyFieldsAreRefused) {
  std::string err = fails("const t = await openTab('{{/form}}'); await type(t, '#ro', 'x')");
  EXPECT_NE(err.find("read-only"), std::string::npos) << err;
}

TEST(Fill, ReplacesTextSelectsOptionsAndTicksBoxes) {
  json r = ok(R"(
    const t = await openTab('{{/form}}');
    await type(t, '#name', 'old');
    await fill(t, { '#name': 'Grace Hopper', '#email': 'grace@navy.mil', '#color': 'Blue', '#agree': true, '#notes': 'line' });
    ({
      state: JSON.parse(await getText(t, '#state')),
      color: await execInTab(t, "document.getElementById('color').value"),
      agree: await execInTab(t, "document.getElementById('agree').checked"),
      notes: await execInTab(t, "document.getElementById('notes').value"),
    }))");
  EXPECT_EQ(r["state"]["name"], "Grace Hopper");
  EXPECT_EQ(r["state"]["email"], "grace@navy.mil");
  EXPECT_EQ(r["color"], "b");
  EXPECT_EQ(r["agree"], true);
  EXPECT_EQ(r["notes"], "line");
}

TEST(Select, ByValueOrLabelAndClearErrors) {
  json r = ok(R"(
    const t = await openTab('{{/form}}');
    const a = await select(t, '#color', 'g');
    const b = await select(t, '#color', 'Red');
    ({ a, b }))");
  EXPECT_EQ(r["a"]["selected"][0], "g");
  EXPECT_EQ(r["b"]["selected"][0], "r");
  std::string err = fails("const t = await openTab('{{/form}}'); await select(t, '#color', 'Purple')");
  EXPECT_NE(err.find("no option with value or label 'Purple'"), std::string::npos) << err;
  EXPECT_NE(err.find("\"Red\""), std::string::npos) << "lists the options: " << err;
}

TEST(KeyPress, NamedKeysCharactersAndModifiers) {
  json r = ok(R"(
    const t = await openTab('{{/keys}}');
    await click(t, '#k');
    await keyPress(t, 'a');
    await keyPress(t, 'Enter');
    await keyPress(t, 'ArrowDown');
    await keyPress(t, 'c', ['Control']);
    ({ log: (await getText(t, '#log')).trim(), value: await execInTab(t, "document.getElementById('k').value") }))");
  EXPECT_EQ(r["log"], "a Enter ArrowDown c+ctrl");
  EXPECT_EQ(r["value"], "a");
  std::string err = fails("await keyPress(activeTab, 'NotAKey')");
  EXPECT_NE(err.find("unknown key 'NotAKey'"), std::string::npos) << err;
}

TEST(Hover, MovesTheMouseOverTheElement) {
  json r = ok(R"(
    const t = await openTab('{{/hover}}');
    await hover(t, '#menu');
    (await querySelector(t, '#sub')).visible)");
  EXPECT_EQ(r, true);
}

TEST(Scroll, WheelScrollsAndReportsPosition) {
  json r = ok(R"(
    const t = await openTab('{{/scroll}}');
    const down = await scroll(t, 'down', 500);
    const bottom = await scroll(t, 'bottom');
    const top = await scroll(t, 'top');
    ({ down, bottom, top }))");
  EXPECT_GE(r["down"]["y"].get<int>(), 400);
  EXPECT_EQ(r["bottom"]["atBottom"], true);
  EXPECT_EQ(r["top"]["y"], 0);
  std::string err = fails("await scroll(activeTab, 'sideways')");
  EXPECT_NE(err.find("direction must be"), std::string::npos) << err;
}

// A link's navigation begins only after the click's input has been answered: waitForLoad right
// after the click answers for the page the click opened, not for the one it is leaving (a
// replayed script's next step reads the new page).
TEST(Click, WaitForLoadRightAfterAClickWaitsForTheNavigationItStarted) {
  json r = ok(R"(const out = [];
    const t = await openTab('{{/}}');
    for (let i = 0; i < 8; i++) {
      await navigate(t, '{{/}}');
      await click(t, '#nav-b');
      await waitForLoad(t);
      out.push(await getText(t, 'h1'));
    }
    out)");
  ASSERT_TRUE(r.is_array()) << r.dump();
  for (const auto& h : r) EXPECT_EQ(h, "Page B") << r.dump();
}

// Date fields take no typed characters in Chromium: type() and fill() set them from a date as
// people write it, and say clearly when the text is not a date.
TEST(Type, DateFieldsTakeDatesAsPeopleWriteThem) {
  json r = ok(R"(const t = await openTab('{{/act/pages/date.html}}');
    await type(t, '#tt', '11/08/2016');
    const a = await execInTab(t, "document.getElementById('tt').value");
    await fill(t, {'#tt': 'March 3, 2021'});
    const b = await execInTab(t, "document.getElementById('tt').value");
    await fill(t, {'#tt': '2024-02-29'});
    [a, b, await execInTab(t, "document.getElementById('tt').value")])");
  EXPECT_EQ(r, json::array({"2016-11-08", "2021-03-03", "2024-02-29"}));
  std::string err = fails("await fill(activeTab, {'#tt': 'next blue moon'})");
  EXPECT_NE(err.find("is a date field"), std::string::npos) << err;
}

}  // namespace
}  // namespace ouro::testing
