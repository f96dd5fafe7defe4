// The tools a page declares for agents (browser/page_tools.cpp, WebMCP), as the browser keeps them:
// a page may declare anything, so what is kept is capped (count, name, description, schema); a
// name declared again is listed once; a new document's tools are its own; and a call is
// answered with the tool's output, its failure, or — for a tool that never answers or answers too
// much — a bounded error.
#include "browser_env.h"

#include "browser/browser.h"
#include "browser/page_tools.h"

#include <chrono>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;

// A tab of a session of its own, with `declare` (page code using document.modelContext) run in it.
struct ToolPage {
  std::unique_ptr<session::Session> s = isolated_session();
  std::string tab;

  explicit ToolPage(const std::string& declare) {
    auto t = s->browser().open_tab(site().url("/"), 10s, s->context());
    if (!t) throw std::runtime_error(t.error().message);
    tab = *t;
    auto r = s->browser().eval_page(tab, "(() => { const mc = document.modelContext; " + declare + "; return 1; })()");
    if (!r) throw std::runtime_error(r.error().message);
  }
  browser::PageTools& tools() { return s->browser().page_tools(); }
  // The list once it has `n` tools (the browser tells of them as events), up to 10 s.
  json list_of(size_t n) {
    json out;
    for (int i = 0; i < 200; ++i) {
      auto l = tools().list(tab);
      if (l) out = *l;
      if (l && l->size() >= n) break;
      std::this_thread::sleep_for(50ms);
    }
    return out;
  }
  std::string frame() {
    json l = list_of(1);
    return l.empty() ? "" : get_str(l[0], "frameId");
  }
};

TEST(PageToolsKept, WhatAPageDeclaresIsCapped) {
  // Each declaration on its own: one the browser itself refuses leaves the others.
  ToolPage p(R"(
    const reg = (t) => { try { mc.registerTool(t) } catch (e) {} };
    reg({name: 'long_description', description: 'd'.repeat(100000), inputSchema: {type: 'object'}, execute: async () => 'x'});
    reg({name: 'long_' + 'n'.repeat(200), description: 'x', inputSchema: {type: 'object'}, execute: async () => 'x'});
    reg({name: 'long_' + 'n'.repeat(5000), description: 'x', inputSchema: {type: 'object'}, execute: async () => 'x'});
    const huge = {type: 'object', properties: {}};
    for (let i = 0; i < 3000; i++) huge.properties['field' + i] = {type: 'string', description: 'a field of the form'};
    reg({name: 'huge_schema', description: 'x', inputSchema: huge, execute: async () => 'x'});
    for (let i = 0; i < 200; i++) reg({name: 'tool_' + i, description: 'one of many', inputSchema: {type: 'object'},
                                       annotations: {readOnlyHint: true}, execute: async () => i});
  )");
  json l = p.list_of(browser::PageTools::kMaxPageTools);
  ASSERT_EQ(l.size(), browser::PageTools::kMaxPageTools) << "at most " << browser::PageTools::kMaxPageTools;
  bool saw_long_description = false, saw_long_name = false, saw_huge = false, saw_many = false;
  for (const auto& t : l) {
    EXPECT_LE(get_str(t, "name").size(), 128u + 4) << "a name is cut";
    EXPECT_LE(get_str(t, "description").size(), 4000u + 4) << "a description is cut";
    saw_long_description |= get_str(t, "name") == "long_description";
    saw_long_name |= get_str(t, "name").rfind("long_n", 0) == 0;
    if (get_str(t, "name") == "huge_schema") {
      saw_huge = true;
      EXPECT_EQ(get_str(t["inputSchema"], "note"), "the page's schema is larger than ouro keeps") << t["inputSchema"].dump().substr(0, 300);
    }
    if (get_str(t, "name").rfind("tool_", 0) == 0) {
      saw_many = true;
      EXPECT_EQ(t["annotations"]["readOnly"], true) << t.dump();
    }
  }
  EXPECT_TRUE(saw_many);
  EXPECT_TRUE(saw_long_description) << "the long description was taken in, cut";
  if (!saw_long_name) std::printf("[page tools] the browser refused the long names itself\n");
  if (!saw_huge) std::printf("[page tools] the browser refused the huge schema itself\n");
  EXPECT_LT(l.dump().size(), 64u * 1024) << "the whole list stays small";
}

TEST(PageToolsKept, ANameDeclaredAgainIsListedOnceAndANewDocumentHasItsOwn) {
  ToolPage p("mc.registerTool({name: 'lookup', description: 'first', inputSchema: {type: 'object'}, execute: async () => 1});"
             "mc.registerTool({name: 'other', description: 'other', inputSchema: {type: 'object'}, execute: async () => 2});"
             "try { mc.registerTool({name: 'lookup', description: 'again', inputSchema: {type: 'object'}, execute: async () => 3}) } catch (e) {}");
  json l = p.list_of(2);
  ASSERT_EQ(l.size(), 2u) << l.dump();
  int lookups = 0;
  for (const auto& t : l) lookups += get_str(t, "name") == "lookup";
  EXPECT_EQ(lookups, 1) << "one tool per name and frame: " << l.dump();
  ASSERT_TRUE(p.s->browser().navigate(p.tab, site().url("/b"), 10s));
  auto after = p.tools().list(p.tab);
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_TRUE(after->empty()) << "the old document's tools went with it: " << after->dump();
}

TEST(PageToolsKept, ACallIsAnsweredWithTheOutputTheFailureOrABoundedError) {
  ToolPage p(R"(
    mc.registerTool({name: 'echo', description: 'echo', inputSchema: {type: 'object'}, execute: async (input) => 'got ' + input.q});
    mc.registerTool({name: 'broken', description: 'fails', inputSchema: {type: 'object'}, execute: async () => { throw new Error('out of stock') }});
    mc.registerTool({name: 'silent', description: 'never answers', inputSchema: {type: 'object'}, execute: () => new Promise(() => {})});
    mc.registerTool({name: 'flood', description: 'answers a lot', inputSchema: {type: 'object'}, execute: async () => 'x'.repeat(1 << 20)});
  )");
  json l = p.list_of(4);
  ASSERT_EQ(l.size(), 4u) << l.dump();
  std::string frame = get_str(l[0], "frameId");

  auto echo = p.tools().call(p.tab, frame, "echo", {{"q", "pens"}});
  ASSERT_TRUE(echo) << echo.error().message;
  EXPECT_NE(echo->dump().find("got pens"), std::string::npos) << echo->dump();

  auto broken = p.tools().call(p.tab, frame, "broken", json::object());
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().code, Code::FailedPrecondition);
  EXPECT_NE(broken.error().message.find("out of stock"), std::string::npos) << broken.error().message;

  auto silent = p.tools().call(p.tab, frame, "silent", json::object(), 4s);
  ASSERT_FALSE(silent);
  EXPECT_EQ(silent.error().code, Code::DeadlineExceeded);
  EXPECT_NE(silent.error().message.find("cancelled"), std::string::npos) << silent.error().message;

  auto flood = p.tools().call(p.tab, frame, "flood", json::object());
  ASSERT_FALSE(flood);
  EXPECT_NE(flood.error().message.find("larger than 256 KB"), std::string::npos) << flood.error().message;

  auto none = p.tools().call(p.tab, frame, "no_such_tool", json::object(), 3s);
  EXPECT_FALSE(none) << "a tool the page never declared is not called";
}

}  // namespace
}  // namespace ouro::testing
