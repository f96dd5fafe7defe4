// observe() and read() (actions/observe.cpp): the page at a glance — its snapshot, and its visible
// text with the main content first, bounded at about 6,000 characters — and the text of one region
// up to what the model asks for, each saying when there is more.
#include "browser_env.h"

namespace ouro::testing {
namespace {

TEST(Observe, ThePageAtAGlanceIsItsSnapshotAndItsTextMainContentFirst) {
  json r = ok(R"(
    const t = await openTab('{{/}}');
    await execInTab(t, `document.body.insertAdjacentHTML('afterbegin', '<nav>Site menu: Home, About</nav>');
                        document.body.insertAdjacentHTML('beforeend', '<main><h2>Main story</h2><p>The main text.</p></main>'); 1`);
    const o = await observe(t);
    ({ url: o.url, title: o.title, pageTitle: await execInTab(t, 'document.title'), text: o.text, chars: o.textChars,
       truncated: o.textTruncated, snapshot: o.snapshot }))");
  EXPECT_EQ(get_str(r, "url"), site().url("/"));
  EXPECT_EQ(r["title"], r["pageTitle"]);
  std::string text = get_str(r, "text");
  EXPECT_EQ(text.rfind("Main story", 0), 0u) << "the main content comes first: " << text;
  EXPECT_NE(text.find("Site menu: Home, About"), std::string::npos) << "then the rest of the page: " << text;
  EXPECT_EQ(r["chars"].get<size_t>(), text.size()) << text;
  EXPECT_EQ(r["truncated"], false);
  ASSERT_TRUE(r["snapshot"].is_object());
  EXPECT_FALSE(r["snapshot"].contains("url")) << "said once, at the top";
  EXPECT_FALSE(r["snapshot"].contains("title"));
  EXPECT_NE(r["snapshot"].dump().find("\"main\""), std::string::npos) << "the page's landmarks: " << r["snapshot"].dump();
  EXPECT_TRUE(r["snapshot"].contains("actions")) << "the controls to act on, with refs: " << r["snapshot"].dump();
}

TEST(Observe, ALongPageIsCutAtAboutSixThousandCharactersAndReadGoesFurther) {
  json r = ok(R"(
    const t = await openTab('{{/big?kb=64}}');
    const o = await observe(t);
    const more = await read(t, '#big', { maxChars: 20000 });
    const part = await read(t, '#big');
    ({ observed: o.text.length, observedChars: o.textChars, observedTruncated: o.textTruncated,
       more: more.text.length, moreChars: more.chars, moreTruncated: more.truncated, part: part.text.length }))");
  EXPECT_LE(r["observed"].get<int>(), 6001) << "about 6,000 characters and the ellipsis";
  EXPECT_GE(r["observed"].get<int>(), 6000);
  EXPECT_GT(r["observedChars"].get<int>(), 60000) << "the whole text's size is said";
  EXPECT_EQ(r["observedTruncated"], true);
  EXPECT_GE(r["more"].get<int>(), 20000);
  EXPECT_LE(r["more"].get<int>(), 20001);
  EXPECT_EQ(r["moreChars"], r["observedChars"]);
  EXPECT_EQ(r["moreTruncated"], true);
  EXPECT_LE(r["part"].get<int>(), 6001) << "read's default is observe's bound";
}

TEST(Observe, ReadSaysWhatItCannotRead) {
  std::string missing = fails("const t = await openTab('{{/}}'); await read(t, '#no-such-region')");
  EXPECT_NE(missing.find("#no-such-region"), std::string::npos) << missing;
  std::string small = fails("const t = await openTab('{{/}}'); await read(t, 'body', { maxChars: 10 })");
  EXPECT_NE(small.find("maxChars"), std::string::npos) << small;
  std::string not_tab = fails("await observe('t999999')");
  EXPECT_NE(not_tab.find("t999999"), std::string::npos) << not_tab;
}

}  // namespace
}  // namespace ouro::testing
