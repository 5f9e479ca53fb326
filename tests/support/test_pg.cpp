#include "tests/support/test_pg.hpp"

#include <pqxx/pqxx>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace det::test {

std::string pg_server_url() {
  if (const char* url = std::getenv("DET_TEST_PG_URL"))
    return url;
  const char* file = std::getenv("DET_TEST_PG_URL_FILE");
  if (file == nullptr)
    throw std::runtime_error(
        "no test PostgreSQL: set DET_TEST_PG_URL or run through ctest");
  std::ifstream in(file);
  std::string url;
  if (!std::getline(in, url) || url.empty())
    throw std::runtime_error(std::string{"test PostgreSQL URL file is empty: "}
                             + file);
  return url;
}

std::string fresh_database(const std::string& name) {
  auto url = pg_server_url();
  {
    pqxx::connection c{url};
    pqxx::nontransaction tx{c};
    tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(name) + " WITH (FORCE)");
    tx.exec("CREATE DATABASE " + tx.quote_name(name));
  }
  auto slash = url.rfind('/');
  return url.substr(0, slash + 1) + name;
}

} // namespace det::test
