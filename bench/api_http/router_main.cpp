// bench-router: how long the REST router takes to find a request's route
// in the master's whole route table (every family of api/master_api.hpp),
// by its segment tree (router::match) against trying every route in turn
// (router::match_by_scan), measured in the same run over the paths the
// busiest clients send. One JSON line per path and one for their mix.
// Usage: bench-router [--rounds N]

#include "api/master_api.hpp"
#include "http/router.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace {

using clk = std::chrono::steady_clock;

/// Nanoseconds per lookup of each of `paths`, `rounds` times over.
template <class Match>
double
ns_per_match(const std::vector<std::pair<std::string, std::string>>& paths,
             int rounds, Match&& match) {
  size_t found = 0;
  auto start = clk::now();
  for (int i = 0; i < rounds; ++i)
    for (const auto& [method, path] : paths)
      found += match(method, path).h != nullptr ? 1 : 0;
  auto ns =
      std::chrono::duration<double, std::nano>(clk::now() - start).count();
  if (found != paths.size() * static_cast<size_t>(rounds)) {
    std::cerr << "bench-router: a path found no route\n";
    std::exit(1);
  }
  return ns / static_cast<double>(paths.size() * static_cast<size_t>(rounds));
}

} // namespace

int main(int argc, char** argv) {
  int rounds = 20000;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::string{argv[i]} == "--rounds")
      rounds = std::atoi(argv[i + 1]);
  det::http::router r;
  size_t routes = 0;
  for (const auto* f : det::api::route_families()) {
    det::api::add_routes(r, nullptr, f->rows);
    routes += f->rows.size();
  }
  if (r.error()) {
    std::cerr << "bench-router: the route table does not build\n";
    return 1;
  }
  // What running trials, agents' harnesses and the det CLI send most.
  const std::vector<std::pair<std::string, std::string>> paths{
      {"POST", "/api/v1/trials/1234/metrics"},
      {"GET", "/info"},
      {"GET", "/api/v1/experiments/42"},
      {"GET", "/api/v1/agents"},
      {"POST", "/api/v1/allocations/1234.7.1/ready"},
      {"GET", "/api/v1/trials/1234/checkpoints"},
  };
  auto emit = [&](const std::string& name,
                  const std::vector<std::pair<std::string, std::string>>& p) {
    int n = rounds / static_cast<int>(p.size()) + 1;
    // Alternated twice so that neither gets the warm cache alone.
    double tree = 0, scan = 0;
    for (int k = 0; k < 2; ++k) {
      tree += ns_per_match(
          p, n, [&](const auto& m, const auto& s) { return r.match(m, s); });
      scan += ns_per_match(p, n, [&](const auto& m, const auto& s) {
        return r.match_by_scan(m, s);
      });
    }
    std::cout << nlohmann::json{{"bench", "router"},
                                {"metric", "match_ns_" + name},
                                {"value", tree / 2},
                                {"unit", "ns"},
                                {"routes", routes},
                                {"reference", "every route tried in turn"},
                                {"reference_value", scan / 2},
                                {"ratio", scan / tree}}
                     .dump()
              << "\n";
  };
  for (const auto& p : paths)
    emit(p.first + " " + p.second, {p});
  emit("mix", paths);
  return 0;
}
