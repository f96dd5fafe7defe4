#include "runs/answers.h"

#include <algorithm>

#include "base/wait.h"

namespace ouro::runs {

namespace {
// Ids closed long ago are forgotten past this many (a conversation kept open for days).
constexpr size_t kMaxClosed = 10000;

void close(std::set<std::string>& closed, const std::string& id) {
  if (closed.size() >= kMaxClosed) closed.erase(closed.begin());
  closed.insert(id);
}
}  // namespace

void Answers::expect_confirmation(const std::string& id) {
  std::lock_guard lock(m_mutex);
  if (!m_closed_confirmations.count(id)) m_confirmations.try_emplace(id, std::nullopt);
}

void Answers::expect_question(const std::string& id, json choices) {
  std::lock_guard lock(m_mutex);
  if (m_closed_questions.count(id)) return;
  m_questions[id].choices = choices.is_array() ? std::move(choices) : json::array();
}

Answers::Confirmed Answers::wait_confirmation(const std::string& id, std::chrono::milliseconds timeout) {
  std::unique_lock lock(m_mutex);
  if (m_closed_confirmations.count(id)) return {};  // withdrawn or timed out already
  m_confirmations.try_emplace(id, std::nullopt);
  auto given = [&]() -> std::optional<bool> {
    auto it = m_confirmations.find(id);
    return it == m_confirmations.end() ? std::nullopt : it->second;
  };
  wait_for_ms(m_changed, lock, timeout, [&] { return m_cancelled || m_withdrawn || given().has_value(); });
  Confirmed out;
  out.approved = !m_cancelled && given().value_or(false);
  out.always = out.approved && m_remember.erase(id) > 0;
  // Still registered: withdraw() did not see it (it was asked after the turn ended), so it is
  // this wait that withdraws it.
  out.withdrawn = !given().has_value() && m_withdrawn && !m_cancelled && m_confirmations.count(id);
  m_confirmations.erase(id);
  m_remember.erase(id);
  close(m_closed_confirmations, id);
  return out;
}

Answers::Asked Answers::wait_answer(const std::string& id, std::chrono::milliseconds timeout) {
  std::unique_lock lock(m_mutex);
  if (m_closed_questions.count(id)) return {};  // withdrawn or timed out already
  m_questions.try_emplace(id);
  auto given = [&]() -> std::optional<std::string> {
    auto it = m_questions.find(id);
    return it == m_questions.end() ? std::nullopt : it->second.answer;
  };
  wait_for_ms(m_changed, lock, timeout, [&] { return m_cancelled || m_withdrawn || given().has_value(); });
  Asked out;
  if (!m_cancelled) out.answer = given();
  out.withdrawn = !out.answer && m_withdrawn && !m_cancelled && m_questions.count(id);
  m_questions.erase(id);
  close(m_closed_questions, id);
  return out;
}

Result<void> Answers::confirm(const std::string& id, bool approved, bool remember) {
  {
    std::lock_guard lock(m_mutex);
    // Pending from the moment its event was stored (an answer can arrive before the run starts to
    // wait); an id nobody asked for in this turn is not taken for a later question's.
    auto it = m_confirmations.find(id);
    if (m_cancelled || it == m_confirmations.end() || it->second.has_value())
      return errorf(Code::NotFound, "nothing waits for confirmation '{}' (answered already, or timed out)", id.substr(0, 60));
    it->second = approved;
    if (approved && remember) m_remember.insert(id);
  }
  m_changed.notify_all();
  return {};
}

Result<void> Answers::answer(const std::string& id, const std::string& text) {
  {
    std::lock_guard lock(m_mutex);
    auto q = m_questions.find(id);
    if (m_cancelled || q == m_questions.end() || q->second.answer)
      return errorf(Code::NotFound, "nothing waits for an answer to '{}' (answered already, timed out, or never asked)", id.substr(0, 60));
    const json& choices = q->second.choices;
    if (!choices.empty() && std::find(choices.begin(), choices.end(), json(text)) == choices.end())
      return errorf(Code::InvalidArgument, "the answer must be one of {}", dump_json(choices));
    q->second.answer = text;
  }
  m_changed.notify_all();
  return {};
}

void Answers::open() {
  std::lock_guard lock(m_mutex);
  // Each turn's agent counts its questions from 1 again: what the last turn asked, answered or
  // not, is forgotten, so that its ids are this turn's.
  m_withdrawn = false;
  m_confirmations.clear();
  m_closed_confirmations.clear();
  m_remember.clear();
  m_questions.clear();
  m_closed_questions.clear();
}

std::vector<std::string> Answers::withdraw() {
  std::vector<std::string> ids;
  {
    std::lock_guard lock(m_mutex);
    m_withdrawn = true;
    for (auto it = m_confirmations.begin(); it != m_confirmations.end();) {
      if (it->second) {
        ++it;
        continue;
      }
      ids.push_back(it->first);
      close(m_closed_confirmations, it->first);
      it = m_confirmations.erase(it);
    }
    for (auto it = m_questions.begin(); it != m_questions.end();) {
      if (it->second.answer) {
        ++it;
        continue;
      }
      ids.push_back(it->first);
      close(m_closed_questions, it->first);
      it = m_questions.erase(it);
    }
  }
  m_changed.notify_all();
  return ids;
}

void Answers::cancel() {
  {
    std::lock_guard lock(m_mutex);
    m_cancelled = true;
  }
  m_changed.notify_all();
}

Answers::Pending Answers::pending() const {
  std::lock_guard lock(m_mutex);
  Pending p;
  for (const auto& [id, answer] : m_confirmations)
    if (!answer) p.confirmations.push_back(id);
  for (const auto& [id, q] : m_questions)
    if (!q.answer) p.questions.push_back(id);
  return p;
}

}  // namespace ouro::runs
