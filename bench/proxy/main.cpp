// bench-proxy: the master's proxy (http/proxy.hpp) against direct
// connections to the same backend, in the same run, over loopback:
// HTTP throughput of a large body (ratio proxied / direct) and WebSocket
// round-trip latency (p50, p99, and the p99 the proxy adds). One JSON line
// per result. Usage: bench-proxy [--mib N] [--round-trips N]

#include "http/http_server.hpp"
#include "messages/errc.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace det::http;
namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;
using clk = std::chrono::steady_clock;

namespace {

/// Seconds to GET `target` on `port` once, reading the whole body.
double fetch_seconds(uint16_t port, const std::string& target, size_t& bytes) {
  net::io_context ioc;
  tcp::socket sock{ioc};
  sock.connect({net::ip::make_address("127.0.0.1"), port});
  auto t0 = clk::now();
  beast::http::request<beast::http::empty_body> req{beast::http::verb::get,
                                                    target, 11};
  req.set(beast::http::field::host, "127.0.0.1");
  beast::http::write(sock, req);
  beast::flat_buffer buf;
  beast::http::response_parser<beast::http::string_body> p;
  p.body_limit(1ull << 32);
  beast::http::read(sock, buf, p);
  bytes = p.get().body().size();
  return std::chrono::duration<double>(clk::now() - t0).count();
}

/// Round-trip times (microseconds) of `n` small messages.
std::vector<double> round_trips(uint16_t port, const std::string& target,
                                int n) {
  net::io_context ioc;
  beast::websocket::stream<tcp::socket> ws{ioc};
  ws.next_layer().connect({net::ip::make_address("127.0.0.1"), port});
  ws.handshake("127.0.0.1", target);
  std::string msg(64, 'x');
  std::vector<double> out;
  beast::flat_buffer buf;
  for (int i = 0; i < n; ++i) {
    auto t0 = clk::now();
    ws.write(net::buffer(msg));
    ws.read(buf);
    buf.consume(buf.size());
    out.push_back(
        std::chrono::duration<double, std::micro>(clk::now() - t0).count());
  }
  ws.close(beast::websocket::close_code::normal);
  std::sort(out.begin(), out.end());
  return out;
}

double pct(const std::vector<double>& v, double p) {
  if (v.empty())
    return 0;
  auto i = static_cast<size_t>(p * static_cast<double>(v.size() - 1));
  return v[i];
}

void line(const char* metric, double value, const char* unit,
          double reference) {
  std::printf("{\"bench\":\"proxy\",\"metric\":\"%s\",\"value\":%.3f,"
              "\"unit\":\"%s\",\"reference\":%.3f,\"ratio\":%.3f}\n",
              metric, value, unit, reference,
              reference > 0 ? value / reference : 0.0);
}

} // namespace

int main(int argc, char** argv) {
  size_t mib = 64;
  int trips = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--mib")
      mib = std::strtoul(argv[i + 1], nullptr, 10);
    else if (a == "--round-trips")
      trips = std::atoi(argv[i + 1]);
  }
  auto big = std::make_shared<std::string>(mib << 20, 'd');
  router br;
  br.get("/proxy/b/big", [big](http_request, responder res) {
    http_response r;
    r.body = *big;
    r.headers.set("Content-Type", "application/octet-stream");
    res.send(std::move(r));
  });
  server_config bc;
  bc.address = "127.0.0.1";
  http_server backend{bc, std::move(br)};
  backend.add_websocket("/proxy/b/ws", [](ws_session s) {
    s.on_message([s](std::string t) { (void)s.send(std::move(t)); });
  });
  auto bport = backend.start();
  if (!bport) {
    std::printf("{\"bench\":\"proxy\",\"error\":\"%s\"}\n",
                det::render(bport.error()).c_str());
    return 1;
  }
  router fr;
  http_server front{bc, std::move(fr)};
  front.add_proxy("/proxy/",
                  [p = *bport](const http_request&,
                               std::function<void(proxy_decision)> done) {
                    done(proxy_target{"127.0.0.1", p, "b"});
                  });
  auto fport = front.start();
  if (!fport)
    return 1;

  // Throughput: best of 5 for each, alternating.
  double direct = 0, proxied = 0;
  for (int i = 0; i < 5; ++i) {
    size_t n = 0;
    auto d = fetch_seconds(*bport, "/proxy/b/big", n);
    direct = std::max(direct, static_cast<double>(n) / d / (1 << 20));
    auto p = fetch_seconds(*fport, "/proxy/b/big", n);
    proxied = std::max(proxied, static_cast<double>(n) / p / (1 << 20));
  }
  line("http_throughput", proxied, "MiB/s", direct);

  auto dr = round_trips(*bport, "/proxy/b/ws", trips);
  auto pr = round_trips(*fport, "/proxy/b/ws", trips);
  line("ws_rtt_p50", pct(pr, 0.5), "us", pct(dr, 0.5));
  line("ws_rtt_p99", pct(pr, 0.99), "us", pct(dr, 0.99));
  std::printf("{\"bench\":\"proxy\",\"metric\":\"ws_added_p99\",\"value\":%.3f,"
              "\"unit\":\"ms\",\"goal\":2.0}\n",
              (pct(pr, 0.99) - pct(dr, 0.99)) / 1000.0);
  return 0;
}
