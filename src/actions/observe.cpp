// observe() and read(): what a tool-calling model is shown of a page (as an extension's content
// script reads it). observe is the compact snapshot (refs to act on) and the page's visible
// text, main content first, bounded at about 6,000 characters; read is the text of one region or
// ref, bounded.
#include "actions/impl.h"

#include "browser/browser.h"

namespace ouro::actions::impl {

namespace {

constexpr int kObserveChars = 6000;

Result<json> readable(Context& ctx, const std::string& tab, const std::string& selector, int max_chars, const char* what) {
  return read_helper(ctx, tab, "readable", json::array({selector, max_chars}), what, selector);
}

}  // namespace

Result<json> observe(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0);
  auto snap = TRY(snapshot(ctx, json::array({tab})));
  auto text = TRY(readable(ctx, tab, "", kObserveChars, "observe"));
  json out = {{"url", get_str(snap, "url")}, {"title", get_str(snap, "title")}, {"text", text.value("text", "")},
              {"textChars", text.value("chars", 0)}, {"textTruncated", text.value("truncated", false)}};
  snap.erase("url");
  snap.erase("title");
  out["snapshot"] = std::move(snap);
  return out;
}

Result<json> read_text(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0), sel = arg_string(args, 1);
  int max_chars = kObserveChars;
  if (args.size() > 2 && args[2].is_object() && args[2].contains("maxChars") && args[2]["maxChars"].is_number())
    max_chars = static_cast<int>(args[2]["maxChars"].get<double>());
  auto r = TRY(readable(ctx, tab, sel, max_chars, "read"));
  return json{{"text", r.value("text", "")}, {"chars", r.value("chars", 0)}, {"truncated", r.value("truncated", false)}};
}

}  // namespace ouro::actions::impl
