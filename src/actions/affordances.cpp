// The capabilities that read a page as affordances: snapshot, details, find and extract, their
// arguments as the registry checked them, answered by perception/reads.h.
#include "actions/impl.h"
#include "perception/reads.h"

namespace ouro::actions::impl {

namespace {

json arg_or(const json& args, size_t i, json fallback) { return args.size() > i ? args[i] : fallback; }

}  // namespace

perception::Reader reader(const Context& ctx) { return {ctx.browser(), ctx.limits().exec_timeout}; }

Result<json> snapshot(Context& ctx, const json& args) {
  return perception::snapshot(reader(ctx), arg_string(args, 0), arg_or(args, 1, json::object()));
}

Result<json> details(Context& ctx, const json& args) { return perception::details(reader(ctx), arg_string(args, 0), arg_or(args, 1, json::array())); }

Result<json> find_elements(Context& ctx, const json& args) {
  return perception::find(reader(ctx), arg_string(args, 0), arg_string(args, 1), arg_or(args, 2, json::object()));
}

Result<json> extract(Context& ctx, const json& args) { return perception::extract(reader(ctx), arg_string(args, 0), arg_or(args, 1, json::object())); }

}  // namespace ouro::actions::impl
