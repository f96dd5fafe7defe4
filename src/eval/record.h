// `ouro eval --record DIR`: every exchange with the model, kept as the scripted provider replays it
// (llm/scripted.cpp: one JSON object a line, sub-calls marked "sub", with the usage and cost the
// model reported), so `--replay DIR` reruns a suite with no model and, when ouro behaves the same,
// the same result.
#pragma once

#include "llm/provider.h"

#include <memory>
#include <string>

namespace ouro::eval {

// Stands around `inner`, appending each response (or failure) to the file at `path`.
std::unique_ptr<llm::Provider> recording_provider(std::unique_ptr<llm::Provider> inner, std::string path);

// The file a task run's exchanges are kept in, inside a record or replay folder.
std::string transcript_name(const std::string& task_id, int repeat);

}  // namespace ouro::eval
