// Page tools (page_tools.cpp): the tools a tab's documents declared for agents (WebMCP:
// document.modelContext.registerTool), as the DevTools Protocol's experimental WebMCP domain reports
// them (Chromium launched with WebMCPTesting and DevToolsWebMCPSupport).
#pragma once

#include "browser/browser.h"

namespace ouro::browser {

class PageTools : public BrowserPart {
 public:
  PageTools(Browser& browser, std::shared_ptr<Impl> impl) : BrowserPart(browser, std::move(impl)) {}

  static constexpr size_t kMaxPageTools = 64;
  // [{name, description, inputSchema, annotations, frameId, frameUrl}], at most kMaxPageTools, each
  // field capped. Tools of out-of-process frames are not seen. Unavailable, saying so, when the
  // browser does not expose page tools.
  Result<json> list(const std::string& tab_id, Millis timeout = 5s);
  // Calls a tool the tab's frame declared and waits for its answer: the output as the page gave it
  // (a string, or {content: [...]}). The tool's own failure is FailedPrecondition with its text; a
  // call still running at the deadline is cancelled (DeadlineExceeded).
  Result<json> call(const std::string& tab_id, const std::string& frame_id, const std::string& name, const json& input, Millis timeout = 10s);
};

}  // namespace ouro::browser
