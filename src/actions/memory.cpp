// remember() and recall(): memory across tasks from the REPL (docs/guides/memory.md), over the
// session's database. The entries are short texts found again by their words (memory/memory.h).
#include "actions/impl.h"
#include "egress/gate.h"
#include "egress/writes.h"
#include "base/log.h"
#include "safety/redact.h"
#include "safety/known_secrets.h"
#include "safety/secrets.h"
#include "host/context.h"

#include "memory/memory.h"
#include "store/database.h"

#include <ctime>

namespace ouro::actions::impl {

namespace {

// Memory's messages start "memory: remember: …"; the REPL's name the call ("remember: …").
Error renamed(Error e, std::string_view function) {
  std::string prefix = "memory: " + std::string(function) + ": ";
  if (e.message.rfind(prefix, 0) == 0) e.message = std::string(function) + ": " + e.message.substr(prefix.size());
  return e;
}

// The run a host belongs to ("run r1a2b…" → "r1a2b…"); "" for a person's session.
std::string run_of(const std::string& owner) { return owner.rfind("run ", 0) == 0 ? owner.substr(4) : ""; }

}  // namespace

Result<json> memory_remember(store::Database* db, const std::string& owner, const json& args, std::vector<std::string> sources) {
  if (!db) return make_error(Code::FailedPrecondition, "remember: no database is open, so nothing can be remembered here");
  memory::RememberOptions options;
  options.kind = memory::Kind::User;
  options.source_run = run_of(owner);
  options.sources = std::move(sources);
  if (args.size() > 1 && args[1].is_object())
    if (auto tags = args[1].find("tags"); tags != args[1].end() && tags->is_array())
      for (const auto& t : *tags)
        if (t.is_string()) options.tags.push_back(t.get<std::string>());
  memory::Memory memory(*db);
  auto id = memory.remember(arg_string(args, 0), options);
  if (!id) return tl::make_unexpected(renamed(id.error(), "remember"));
  return json(*id);
}

Result<json> memory_recall(store::Database* db, const json& args) {
  if (!db) return make_error(Code::FailedPrecondition, "recall: no database is open, so there are no memories here");
  int top_k = 5;
  std::string tag;
  if (args.size() > 1 && args[1].is_object()) {
    const json& o = args[1];
    if (auto k = o.find("topK"); k != o.end() && k->is_number_integer()) top_k = static_cast<int>(k->get<int64_t>());
    if (auto t = o.find("tag"); t != o.end() && t->is_string()) tag = t->get<std::string>();
  }
  memory::Memory memory(*db);
  auto found = memory.recall(arg_string(args, 0), top_k, tag);
  if (!found) return tl::make_unexpected(renamed(found.error(), "recall"));
  json out = json::array();
  for (const auto& e : *found) out.push_back(memory::to_json(e, true));
  return out;
}

json scrubbed_for_storage(const host::Context& ctx, const json& value) {
  json v = value;
  if (ctx.secrets && !ctx.secrets->empty()) ctx.secrets->scrub(v);
  return safety::redact_json(v);
}

// An entry keeps the sites its text came from, so a value recalled in a later run is still the
// page's, not the user's (docs/design/provenance.md).
Result<json> remember(Context& ctx, const json& args) {
  std::vector<std::string> sources;
  if (auto policy = egress::gate_policy(ctx)) {
    auto traced = egress::trace_value(policy->provenance(), arg_string(args, 0)).all();
    sources.assign(traced.begin(), traced.end());
  }
  return memory_remember(ctx.db, ctx.owner, scrubbed_for_storage(ctx, args), std::move(sources));
}

// What comes back from a record that outlives runs is masked for every run's secrets: a value
// another run could not store because it was its secret may have been stored by one that did
// not know it.
json scrubbed_on_reading(const host::Context& ctx, json value) {
  if (ctx.known_secrets) ctx.known_secrets->scrub(value);
  if (ctx.secrets && !ctx.secrets->empty()) ctx.secrets->scrub(value);
  return value;
}

// What comes back carries its labels into this run: an entry traced to pages is those pages'
// data again; one the user wrote outside any run is the user's words; one a run wrote from no
// page it traced is neither.
Result<json> recall(Context& ctx, const json& args) {
  json found = scrubbed_on_reading(ctx, TRY(memory_recall(ctx.db, args)));
  if (auto policy = egress::gate_policy(ctx))
    for (const auto& e : found) {
      const std::string text = get_str(e, "text");
      const json& sources = get_field(e, "sources");
      for (const auto& site : sources)
        if (site.is_string()) policy->provenance().note(site.get<std::string>(), text);
      if (sources.empty() && get_field(e, "source_run").is_null() && get_str(e, "kind") == "user") policy->provenance().add_user_words(text);
    }
  return found;
}

}  // namespace ouro::actions::impl
