#pragma once

// The database schema as numbered migrations (store/migrations/NNN_*.sql,
// compiled into the binary). pg_event_store applies the missing ones at open
// and refuses a database whose schema is newer than the newest one here.

#include <string>
#include <vector>

namespace det {

struct migration {
  int version;
  const char* name;
  const char* sql;
};

/// All migrations, ordered by version (1, 2, ...).
const std::vector<migration>& migrations();

} // namespace det
