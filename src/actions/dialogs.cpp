// JavaScript dialogs (alert, confirm, prompt, beforeunload). The browser answers each at once —
// dismissed by default — so a page cannot stall a call; handleDialog sets how a tab answers its
// next one (or all of them).
#include "actions/impl.h"
#include "browser/browser.h"
#include "browser/notices.h"

namespace ouro::actions::impl {

namespace {

constexpr size_t kMaxPromptText = 100000;

std::string shape_of(const json& v) {
  if (v.is_boolean()) return "boolean " + v.dump();
  if (v.is_number()) return "number " + dump_json(v);
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "null";
}

}  // namespace

Result<json> handle_dialog(Context& ctx, const json& args) {
  std::string tab = arg_string(args, 0);
  static const json none;
  const json& options = args.size() > 1 ? args[1] : none;
  if (!options.is_null() && !options.is_object())
    return errorf(Code::InvalidArgument, "handleDialog: options must be an object like {{ accept: true, promptText: '42' }}, got {}", shape_of(options));
  browser::DialogPolicy policy;
  policy.accept = true;  // asking for a policy at all means answering; without one dialogs are dismissed
  if (options.is_object()) {
    for (auto it = options.begin(); it != options.end(); ++it) {
      const std::string& key = it.key();
      const json& v = it.value();
      if (key == "accept" || key == "once") {
        if (!v.is_boolean()) return errorf(Code::InvalidArgument, "handleDialog: options.{} must be a boolean, got {}", key, shape_of(v));
        (key == "accept" ? policy.accept : policy.once) = v.get<bool>();
      } else if (key == "promptText") {
        if (!v.is_string()) return errorf(Code::InvalidArgument, "handleDialog: options.promptText must be a string, got {}", shape_of(v));
        if (v.get_ref<const std::string&>().size() > kMaxPromptText)
          return errorf(Code::InvalidArgument, "handleDialog: options.promptText is longer than {} characters", kMaxPromptText);
        policy.prompt_text = v.get<std::string>();
      } else {
        return errorf(Code::InvalidArgument, "handleDialog: unknown option '{}' (options: accept, promptText, once)", key.substr(0, 100));
      }
    }
  }
  TRY(ctx.browser().notices().set_dialog_policy(tab, policy));
  return json(true);
}

}  // namespace ouro::actions::impl
