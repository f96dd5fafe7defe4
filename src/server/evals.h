// The results `ouro eval` wrote under the data directory (<data dir>/eval/NAME/result.json), for
// the Command Center: their list, a result's report and two results compared (eval/report.h).
#pragma once

#include "base/error.h"
#include "base/json.h"

#include <string>

namespace ouro::server {

// {results: [{name, provider, model, mode, started_ms, summary}]}, newest first.
Result<json> list_evals(const std::string& data_dir);

// A result's HTML report. NotFound for a name that is not a result there.
Result<std::string> eval_report(const std::string& data_dir, const std::string& name);

// Two results side by side (`a` the baseline).
Result<std::string> eval_compare(const std::string& data_dir, const std::string& a, const std::string& b);

// The Content-Security-Policy source that lets a report's one style block apply ('sha256-…'),
// for the page that opens reports (they carry no script and no other style).
const std::string& eval_report_style_source();

}  // namespace ouro::server
