// The waits for a person's answers: the confirmations the gate and the actions ask for, and the
// questions askUser puts, each pending from the moment its event can be seen (an answer may come
// before the run starts to wait) until it is answered, times out, is withdrawn because its turn
// ended, or the run is cancelled. The runs API answers them (POST /api/runs/:id/confirm and
// /answer); GET /api/runs/:id lists what is pending. Thread-safe: the run's thread waits, any
// thread answers.
#pragma once

#include "base/error.h"
#include "base/json.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ouro::runs {

class Answers {
 public:
  // Pending from now (its event was stored): a confirmation, a question with its choices.
  void expect_confirmation(const std::string& id);
  void expect_question(const std::string& id, json choices);

  struct Confirmed {
    bool approved = false;   // no answer in time, cancelled or withdrawn: not approved
    bool always = false;     // approved with "remember"
    bool withdrawn = false;  // its turn ended before an answer came
  };
  // Waits up to `timeout` for the answer to confirmation `id` (registered if it was not).
  Confirmed wait_confirmation(const std::string& id, std::chrono::milliseconds timeout);
  struct Asked {
    std::optional<std::string> answer;
    bool withdrawn = false;
  };
  Asked wait_answer(const std::string& id, std::chrono::milliseconds timeout);

  // A person's answers. NotFound when nothing waits for that id (answered already, timed out,
  // withdrawn or never asked); InvalidArgument for an answer not among the question's choices.
  Result<void> confirm(const std::string& id, bool approved, bool remember);
  Result<void> answer(const std::string& id, const std::string& text);

  // A turn begins: questions may be put again, and the last turn's ids are forgotten (each
  // turn's agent numbers its questions from 1).
  void open();
  // The turn is over: what still waits is withdrawn (its waiter is answered "no answer") and
  // nothing asked now is put to the person until open(). Returns the withdrawn ids.
  std::vector<std::string> withdraw();
  // The run is cancelled or ended: every wait returns now, unanswered; nothing is pending after.
  void cancel();

  struct Pending {
    std::vector<std::string> confirmations, questions;
  };
  Pending pending() const;

 private:
  struct Question {
    json choices = json::array();
    std::optional<std::string> answer;
  };
  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  std::map<std::string, std::optional<bool>> m_confirmations;  // pending ids -> answer
  std::set<std::string> m_closed_confirmations;                 // answered or timed out
  std::set<std::string> m_remember;                             // answered "always"
  std::map<std::string, Question> m_questions;
  std::set<std::string> m_closed_questions;
  bool m_withdrawn = false;  // the turn ended: nothing is put to the person until open()
  bool m_cancelled = false;
};

}  // namespace ouro::runs
