#pragma once

// Access to the private PostgreSQL that CTest's pg_server fixture started
// (scripts/pg.sh). Each test suite asks for a fresh database of its own, so
// suites never see each other's tables.

#include <string>

namespace det::test {

/// URL of the test server's maintenance database. Fails the calling test
/// (GTEST_SKIP is not used: a missing server is an error) when the fixture
/// did not run.
std::string pg_server_url();

/// Drops and creates database `name` on the test server; returns its URL.
std::string fresh_database(const std::string& name);

} // namespace det::test
