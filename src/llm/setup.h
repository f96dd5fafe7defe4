// What a first run needs: the providers to choose from — hosted ones with the key
// variable they need and whether it is set, local servers (Ollama, LM Studio, vLLM, llama.cpp)
// probed at their default URLs — and a connection test that sends a one-token request and says
// exactly what failed. Used by the Command Center's Settings, the runs API and `ouro doctor`.
#pragma once

#include "llm/settings.h"

#include <chrono>

namespace ouro::llm {

// [{name, kind, base_url, local, key_env?, key_set?, reachable?, models?, model, sub_model}]
json provider_catalog(std::chrono::milliseconds probe_timeout = std::chrono::milliseconds(400));

// {ok: true, provider, model, ms, reply} or {ok: false, provider, model, kind, error}; never throws.
json test_connection(const Settings& settings, std::chrono::milliseconds timeout = std::chrono::seconds(20));

}  // namespace ouro::llm
