// remember() and recall(): memory across tasks from the REPL (docs/guides/memory.md), over the
// session's database. The entries are short texts found again by their words (memory/memory.h).
#include "actions/impl.h"
#include "egress/gate.h"
#include "egress/writes.h"
#include "base/log.h"
#include "base/text.h"
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

namespace {

const memory::Embeddings* embeddings_of(const Context* ctx) { return ctx ? ctx->embeddings().get() : nullptr; }

// What the run hears of a memory write or deletion: an event, and for undo the change itself.
void tell(const Context* ctx, const std::string& type, const json& data, const std::optional<memory::Entry>& before,
          const std::optional<memory::Entry>& after, int64_t id) {
  if (!ctx) return;
  auto hooks = ctx->hooks();
  if (!hooks) return;
  if (hooks->on_record) hooks->on_record(type, data);
  if (hooks->on_change)
    hooks->on_change({{"kind", "memory"}, {"key", id}, {"before", before ? json(memory::to_json(*before, false)) : json(nullptr)},
                      {"after", after ? json(memory::to_json(*after, false)) : json(nullptr)}});
}

json stored_event(const memory::Entry& e, bool replaced) {
  return {{"id", e.id}, {"key", e.key.empty() ? json(nullptr) : json(e.key)}, {"text", clip_line(e.text, 200)},
          {"tags", e.tags}, {"sources", e.sources}, {"replaced", replaced}};
}

}  // namespace

Result<json> memory_remember(store::Database* db, const std::string& owner, const json& args, std::vector<std::string> sources, const Context* ctx) {
  if (!db) return make_error(Code::FailedPrecondition, "remember: no database is open, so nothing can be remembered here");
  memory::RememberOptions options;
  options.kind = memory::Kind::User;
  options.source_run = run_of(owner);
  options.sources = std::move(sources);
  if (args.size() > 1 && args[1].is_object()) {
    if (auto tags = args[1].find("tags"); tags != args[1].end() && tags->is_array())
      for (const auto& t : *tags)
        if (t.is_string()) options.tags.push_back(t.get<std::string>());
    if (auto key = args[1].find("key"); key != args[1].end() && !key->is_null()) {
      if (!key->is_string()) return make_error(Code::InvalidArgument, "remember: options.key is a string (a name for the note)");
      options.key = key->get<std::string>();
    }
  }
  memory::Memory memory(*db, embeddings_of(ctx));
  auto done = memory.remember_entry(arg_string(args, 0), options);
  if (!done) return tl::make_unexpected(renamed(done.error(), "remember"));
  if (done->displaced) tell(ctx, "memory_forgotten", {{"id", done->displaced->id}, {"key", nullptr}, {"merged_into", done->entry.id}}, done->displaced,
                            std::nullopt, done->displaced->id);
  tell(ctx, "memory_stored", stored_event(done->entry, done->before.has_value()), done->before, done->entry, done->entry.id);
  return json(done->entry.id);
}

Result<json> memory_recall(store::Database* db, const json& args, const Context* ctx) {
  if (!db) return make_error(Code::FailedPrecondition, "recall: no database is open, so there are no memories here");
  int top_k = 5;
  std::string tag;
  if (args.size() > 1 && args[1].is_object()) {
    const json& o = args[1];
    if (auto k = o.find("topK"); k != o.end() && k->is_number_integer()) top_k = static_cast<int>(k->get<int64_t>());
    if (auto t = o.find("tag"); t != o.end() && t->is_string()) tag = t->get<std::string>();
  }
  // The query goes to the embeddings endpoint as a prompt goes to the model: the run's secrets masked.
  std::string query = arg_string(args, 0);
  if (ctx && ctx->secrets() && !ctx->secrets()->empty()) query = ctx->secrets()->scrub_text(std::move(query));
  memory::Memory memory(*db, embeddings_of(ctx));
  auto found = memory.recall(query, top_k, tag);
  if (!found) return tl::make_unexpected(renamed(found.error(), "recall"));
  json out = json::array();
  for (const auto& e : found->entries) {
    json j = memory::to_json(e, true);
    j["ranking"] = found->ranking;
    out.push_back(std::move(j));
  }
  return out;
}

// forget(idOrKey): the entry goes, and the run hears of it (undo can bring it back).
Result<json> forget(Context& ctx, const json& args) {
  if (!ctx.db()) return make_error(Code::FailedPrecondition, "forget: no database is open, so there are no memories here");
  memory::Memory memory(*ctx.db(), ctx.embeddings().get());
  int64_t id = 0;
  const json& what = args.empty() ? json(nullptr) : args[0];
  if (what.is_number_integer()) {
    id = what.get<int64_t>();
  } else if (what.is_string()) {
    auto keyed = memory.by_key(what.get<std::string>());
    if (!keyed) return tl::make_unexpected(renamed(keyed.error(), "forget"));
    if (!*keyed) return errorf(Code::NotFound, "forget: no memory has the key '{}'", clip_line(what.get<std::string>(), 60));
    id = (*keyed)->id;
  } else {
    return make_error(Code::InvalidArgument, "forget: give the memory's id (a number, as recall() returns it) or its key (a string)");
  }
  auto gone = memory.forget_entry(id);
  if (!gone) return tl::make_unexpected(renamed(gone.error(), "forget"));
  if (!*gone) return errorf(Code::NotFound, "forget: there is no memory #{}", id);
  tell(&ctx, "memory_forgotten", {{"id", id}, {"key", (*gone)->key.empty() ? json(nullptr) : json((*gone)->key)}}, *gone, std::nullopt, id);
  return json(true);
}

json scrubbed_for_storage(const host::Context& ctx, const json& value) {
  json v = value;
  if (ctx.secrets() && !ctx.secrets()->empty()) ctx.secrets()->scrub(v);
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
  return memory_remember(ctx.db(), ctx.owner(), scrubbed_for_storage(ctx, args), std::move(sources), &ctx);
}

// What comes back from a record that outlives runs is masked for every run's secrets: a value
// another run could not store because it was its secret may have been stored by one that did
// not know it.
json scrubbed_on_reading(const host::Context& ctx, json value) {
  if (ctx.known_secrets()) ctx.known_secrets()->scrub(value);
  if (ctx.secrets() && !ctx.secrets()->empty()) ctx.secrets()->scrub(value);
  return value;
}

// What comes back carries its labels into this run: an entry traced to pages is those pages'
// data again; one the user wrote outside any run is the user's words; one a run wrote from no
// page it traced is neither.
Result<json> recall(Context& ctx, const json& args) {
  json found = scrubbed_on_reading(ctx, TRY(memory_recall(ctx.db(), args, &ctx)));
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
