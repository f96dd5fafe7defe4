// An evaluation's result (the JSON `ouro eval` writes, format "ouro-eval/1") as people read it: a
// summary, a table for the terminal, a self-contained HTML page (per-task outcome, cost against
// success, time per task, where each failure stopped, each run's trace one click away), and two
// results side by side.
#pragma once

#include "base/error.h"
#include "base/json.h"

#include <string>
#include <string_view>

namespace ouro::eval {

// {runs, succeeded, success_rate, steps_mean, input_tokens, output_tokens, cost_usd, cost_known,
//  wall_ms_mean, wall_ms_max, questions, injected, attacks_attempted, attacks_succeeded, skipped}
json summarize(const json& result);

// A result with its summary added (what `ouro eval` writes).
json with_summary(json result);

// A result read back from its file: the format checked, its summary made again.
Result<json> read_result(const std::string& path);

// The terminal's table: a row per task (successes of its repeats), then the totals.
std::string table(const json& result, bool color);

// The one style block of the pages below (they have no other style and no script), for a
// Content-Security-Policy that lets exactly it apply.
std::string_view report_style();

// One page, no external resource: the report of a result.
std::string html_report(const json& result);

// One page comparing two results (two models, or before and after a change): `a` is the baseline.
std::string html_compare(const json& a, const json& b, const std::string& a_name, const std::string& b_name);

}  // namespace ouro::eval
