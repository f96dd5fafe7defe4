// A browser session shared by the tests of one executable (one Chromium, one REPL), plus the
// fixture site, and small helpers to run REPL code and check its outcome.
#pragma once

#include "basics.h"
#include "fixtures.h"
#include "session/session.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

namespace ouro::testing {

// Options for a test session: headless, its own data directory, the ouro binary as REPL worker,
// short limits so failures come fast.
session::SessionOptions test_options();

FixtureSite& site();
session::Session& shared_session();
// A session of its own (own browser context, own REPL) on the shared browser; `tweak` adjusts its options.
std::unique_ptr<session::Session> isolated_session(const std::function<void(session::SessionOptions&)>& tweak = {});
// A tweak for isolated_session: the product's page-read limit in place of the tests' short one,
// for a test whose point is a large page's result, not how fast it is read.
void product_page_reads(session::SessionOptions& o);

// Runs code in the shared REPL; fails the test on infrastructure errors.
jsrt::EvalResult eval(const std::string& code, session::Session* s = nullptr);
// Runs code that must succeed; returns setFinal's value if set, else the value.
json ok(const std::string& code, session::Session* s = nullptr);
// Runs code that must fail; returns the error message.
std::string fails(const std::string& code, session::Session* s = nullptr);
// Replaces every {{/path}} in code with the fixture URL of /path.
std::string with_urls(std::string code);

// A scripted model: writes the responses as JSON Lines in a temporary file; returns its path.
std::string script_file(const std::vector<json>& lines);
// A reply whose code is one ```repl block.
std::string repl_reply(const std::string& code, const std::string& prose = "Next step.");

}  // namespace ouro::testing
