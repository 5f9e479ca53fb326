#include "tests/http/support/fixture.hpp"
#include "tests/http/support/test_client.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

using namespace det::http;
using namespace det::http::testing;
namespace fs = std::filesystem;

namespace {

/// A self-signed certificate for 127.0.0.1, made by the openssl CLI in a
/// fresh temporary directory, removed afterwards.
class self_signed {
public:
  self_signed() {
    char tmpl[] = "/tmp/det-api-tls-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    auto cmd = "openssl req -x509 -newkey ec -pkeyopt "
               "ec_paramgen_curve:prime256v1 -nodes -days 1 -subj "
               "/CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout "
               + key() + " -out " + cert() + " 2>/dev/null";
    ok_ = std::system(cmd.c_str()) == 0;
  }
  ~self_signed() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  bool ok() const { return ok_; }
  std::string cert() const { return dir_ + "/cert.pem"; }
  std::string key() const { return dir_ + "/key.pem"; }

private:
  std::string dir_;
  bool ok_ = false;
};

std::string run(const std::string& cmd) {
  std::string out;
  if (auto* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0)
      out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

} // namespace

class tls : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(certs.ok()) << "openssl could not make a certificate";
    router r;
    r.get("/info", [](http_request req, responder res) {
      res.send_json(
          nlohmann::json{{"version", "0.38.1"}, {"tls", req.tls}}.dump());
    });
    server_config cfg;
    cfg.tls = tls_config{certs.cert(), certs.key()};
    server = start_server(std::move(r), cfg, [](http_server& s) {
      s.add_websocket("/agents/ws", [](ws_session ws) {
        ws.on_message([ws](std::string t) { (void)ws.send("tls:" + t); });
      });
    });
  }

  self_signed certs;
  std::unique_ptr<http_server> server;
};

TEST_F(tls, requests_are_served_over_https_with_keep_alive) {
  test_client c{server->port(), true};
  for (int i = 0; i < 20; ++i) {
    auto res = c.request("GET", "/info");
    ASSERT_EQ(res.status, 200);
    ASSERT_EQ(nlohmann::json::parse(res.body)["tls"], true);
  }
  EXPECT_EQ(server->connection_count(), 1u);
}

TEST_F(tls, curl_verifies_the_self_signed_certificate) {
  auto out =
      run("curl -sS --max-time 10 --cacert " + certs.cert()
          + " https://127.0.0.1:" + std::to_string(server->port()) + "/info");
  EXPECT_EQ(out, "{\"tls\":true,\"version\":\"0.38.1\"}");
}

TEST_F(tls, websocket_upgrades_work_over_tls) {
  ws_test_client c{server->port(), "/agents/ws", true};
  c.send("hello");
  EXPECT_EQ(c.read(), "tls:hello");
}

TEST_F(tls, plain_http_on_the_tls_port_is_dropped) {
  test_client c{server->port(), false};
  c.write_raw("GET /info HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(c.peer_closed());
}

TEST(tls_config, unreadable_certificate_files_fail_start) {
  server_config cfg;
  cfg.tls = tls_config{"/nonexistent/cert.pem", "/nonexistent/key.pem"};
  http_server s{cfg, router{}};
  auto port = s.start();
  ASSERT_FALSE(port);
  EXPECT_EQ(det::code_of(port.error()), det::errc::invalid_argument);
}
