// A row of the runs table as a Database::RunRow, for the store's own queries (database.cpp,
// nodes.cpp): the columns it is read from, in order, and the reading.
#pragma once

#include "store/database.h"

namespace ouro::store {

inline constexpr const char* kRunColumns = "id, task, state, options, created_at, updated_at, iterations, final, partial, usage, cost, error, owner";
inline constexpr size_t kRunColumnCount = 13;  // the first column after them is this one

// The run of a result row selected with kRunColumns first.
Database::RunRow read_run(const Row& s);

}  // namespace ouro::store
