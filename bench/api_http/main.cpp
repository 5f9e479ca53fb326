// bench-api-http: requests per second and p99 latency of det_api for a
// trivial GET handler, measured with wrk over loopback at several
// connection counts, against raw_server (the reference) in the same run.
// One JSON line per result. Usage: bench-api-http [--duration S]
// [--threads N] (server I/O threads). Needs wrk on PATH.

#include "bench/api_http/raw_server.hpp"
#include "http/http_server.hpp"
#include "messages/errc.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <regex>
#include <string>

using namespace det::http;

namespace {

struct wrk_result {
  double rps = 0;
  double p99_ms = 0;
  bool ok = false;
};

double to_ms(double v, const std::string& unit) {
  if (unit == "us")
    return v / 1000;
  if (unit == "s")
    return v * 1000;
  return v;
}

wrk_result run_wrk(uint16_t port, int conns, int seconds) {
  auto cmd = "wrk --latency -t" + std::to_string(conns < 2 ? 1 : 2) + " -c"
             + std::to_string(conns) + " -d" + std::to_string(seconds)
             + "s http://127.0.0.1:" + std::to_string(port)
             + "/api/v1/ping 2>&1";
  std::string out;
  if (auto* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0)
      out.append(buf, n);
    ::pclose(p);
  }
  wrk_result r;
  std::smatch m;
  if (std::regex_search(out, m, std::regex{R"(Requests/sec:\s+([0-9.]+))"})) {
    r.rps = std::stod(m[1]);
    r.ok = true;
  }
  if (std::regex_search(out, m, std::regex{R"(99%\s+([0-9.]+)(us|ms|s))"}))
    r.p99_ms = to_ms(std::stod(m[1]), m[2]);
  return r;
}

void print(const char* metric, double value, const char* unit, int conns,
           double reference) {
  std::printf("{\"bench\":\"api_http\",\"metric\":\"%s\",\"value\":%.3f,"
              "\"unit\":\"%s\",\"connections\":%d,\"reference\":%.3f,"
              "\"ratio\":%.3f}\n",
              metric, value, unit, conns, reference,
              reference > 0 ? value / reference : 0.0);
  std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
  int seconds = 3;
  size_t threads = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help") {
      std::cout << "usage: bench-api-http [--duration S] [--threads N]\n";
      return 0;
    }
    if (a == "--duration" && i + 1 < argc)
      seconds = std::atoi(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      threads = static_cast<size_t>(std::atoi(argv[++i]));
    else {
      std::cerr << "bench-api-http: unknown argument " << a << "\n";
      return 2;
    }
  }
  if (std::system("command -v wrk >/dev/null 2>&1") != 0) {
    std::cerr << "bench-api-http: wrk not found\n";
    return 1;
  }
  router r;
  r.get("/api/v1/ping",
        [](http_request, responder res) { res.send_json("{}"); });
  server_config cfg;
  cfg.threads = threads;
  http_server server{cfg, std::move(r)};
  auto port = server.start();
  if (!port) {
    std::cerr << "bench-api-http: " << det::render(port.error()) << "\n";
    return 1;
  }
  det::bench::raw_server raw;
  for (int conns : {1, 16, 64}) {
    auto ref = run_wrk(raw.port(), conns, seconds);
    auto ours = run_wrk(*port, conns, seconds);
    if (!ours.ok || !ref.ok) {
      std::cerr << "bench-api-http: wrk gave no result\n";
      return 1;
    }
    print("requests_per_s", ours.rps, "req/s", conns, ref.rps);
    print("p99_latency", ours.p99_ms, "ms", conns, ref.p99_ms);
  }
  return 0;
}
