#include "runs/remember.h"

#include "base/log.h"
#include "base/text.h"
#include "memory/memory.h"
#include "store/database.h"

#include <spdlog/spdlog.h>

#include <string_view>

namespace ouro::runs {

namespace {

constexpr size_t kMaxTaskBytes = 1000;
constexpr size_t kEllipsisBytes = std::string_view("…").size();

// s whole when it fits in max bytes, else its head and "…" within max bytes.
std::string cut(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  return max >= kEllipsisBytes ? clip_head(s, max - kEllipsisBytes) : std::string();
}

}  // namespace

std::string run_memory_text(const std::string& task, const json& final, size_t max_bytes) {
  std::string result = final.is_string() ? final.get<std::string>() : dump_json(final);
  std::string head = "Task: " + cut(task, kMaxTaskBytes) + "\nResult: ";
  if (head.size() >= max_bytes) return cut(head, max_bytes);
  return head + cut(result, max_bytes - head.size());
}

Result<memory::Remembered> remember_run(store::Database& db, const std::string& run_id, const std::string& task, const json& final,
                                        const memory::Embeddings* embeddings) {
  memory::Memory memory(db, embeddings);
  memory::RememberOptions options;
  options.kind = memory::Kind::Run;
  options.source_run = run_id;
  // Later runs' prompts show it: keys, passwords and tokens the task or answer carried stay behind.
  // Masking can make the text longer ("[REDACTED]" for a short value): it is cut again after.
  auto text_within = [&](size_t max) { return cut(redact(run_memory_text(task, final, max)), max); };
  auto id = memory.remember_entry(text_within(memory::kMaxTextBytes), options);
  // Invalid UTF-8 in the text grows when replaced (one byte becomes three): try once more, cut to a third.
  if (!id && id.error().code == Code::InvalidArgument) id = memory.remember_entry(text_within(memory::kMaxTextBytes / 3), options);
  if (!id) spdlog::warn("run {}: its task and answer are not remembered: {}", run_id, redact(id.error().message));
  return id;
}

}  // namespace ouro::runs
