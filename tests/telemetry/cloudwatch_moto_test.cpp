// CloudWatch logs and metrics against the real moto server (fixture
// moto_server), with boto3 (cw_check.py) as the independent witness of what
// arrived, botocore as the independent SigV4 signer of what we sent, and a
// loopback fault proxy (fault_proxy.py) in front of moto to play an outage.

#include "aws/cloudwatch_client.hpp"
#include "aws/credential_provider.hpp"
#include "aws/logs_client.hpp"
#include "telemetry/cursor_file.hpp"
#include "telemetry/host_metrics.hpp"
#include "telemetry/journald_source.hpp"
#include "telemetry/log_shipper.hpp"
#include "telemetry/metric_publisher.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>

using namespace det::telemetry;
using namespace std::chrono_literals;
using det::aws::test::child_process;
using det::aws::test::run_command;
using nlohmann::json;

namespace {

const std::string region = "us-west-2";
const std::string dir = DET_TEST_TELEMETRY_DIR;

json cw_check(const std::string& endpoint, std::vector<std::string> args) {
  std::vector<std::string> argv{"python3", dir + "/cw_check.py", endpoint,
                                region};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_command(argv);
  EXPECT_EQ(r.status, 0) << r.out;
  return json::parse(r.out, nullptr, false);
}

// Records every request it sends (for the botocore cross-check), then
// sends it with libcurl.
class recording_http final : public det::net::http_client {
public:
  caf::expected<det::net::http_response>
  send(const det::net::http_request& req) override {
    {
      std::lock_guard<std::mutex> g{mtx};
      sent.push_back(req);
    }
    return inner->send(req);
  }
  std::mutex mtx;
  std::vector<det::net::http_request> sent;
  std::shared_ptr<det::net::http_client> inner =
      det::net::make_curl_http_client();
};

std::shared_ptr<det::aws::credential_provider> creds() {
  return det::aws::make_static_credentials([] {
    det::aws::credentials c;
    c.access_key_id = "testing";
    c.secret_access_key = "testing";
    return c;
  }());
}

class memory_cursor final : public cursor_store {
public:
  std::string value;
  std::string load() override { return value; }
  caf::error save(const std::string& c) override {
    value = c;
    return {};
  }
};

class cloudwatch_against_moto : public ::testing::Test {
protected:
  void SetUp() override {
    moto_ = det::aws::test::moto_url();
    ASSERT_FALSE(moto_.empty()) << "no moto server: run through ctest";
    static std::atomic<int> n{0};
    group_ = "/determined/test-" + std::to_string(::getpid()) + "-"
             + std::to_string(n++);
  }

  std::shared_ptr<det::aws::logs_client>
  logs(const std::string& endpoint,
       std::shared_ptr<det::net::http_client> http = nullptr) {
    det::aws::logs_client_config c;
    c.region = region;
    c.endpoint_url = endpoint;
    c.timeout = 5s;
    return det::aws::make_logs_client(
        c, creds(), det::aws::process_environment(), std::move(http));
  }

  std::shared_ptr<det::aws::cloudwatch_client>
  metrics(const std::string& endpoint,
          std::shared_ptr<det::net::http_client> http = nullptr) {
    det::aws::cloudwatch_client_config c;
    c.region = region;
    c.endpoint_url = endpoint;
    c.timeout = 5s;
    return det::aws::make_cloudwatch_client(
        c, creds(), det::aws::process_environment(), std::move(http));
  }

  json events(const std::string& stream) {
    return cw_check(moto_, {"events", group_, stream});
  }

  std::string moto_;
  std::string group_;
};

// The fault proxy as a child process, and its control endpoint.
class fault_proxy {
public:
  explicit fault_proxy(const std::string& moto)
      : proc_({"python3", dir + "/fault_proxy.py", moto}) {
    url = proc_.read_line(30'000);
  }
  // The control endpoint, through Python's urllib (no curl needed).
  void mode(const std::string& m) {
    auto r = run_command(
        {"python3", "-c",
         "import sys, urllib.request as u; u.urlopen(u.Request(sys.argv[1], "
         "method='POST'), timeout=10).read()",
         url + "/__fault/" + m});
    ASSERT_EQ(r.status, 0);
  }
  json state() {
    auto r = run_command(
        {"python3", "-c",
         "import sys, urllib.request as u; "
         "print(u.urlopen(sys.argv[1], timeout=10).read().decode())",
         url + "/__fault"});
    return json::parse(r.out, nullptr, false);
  }
  std::string url;

private:
  child_process proc_;
};

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

} // namespace

TEST_F(cloudwatch_against_moto,
       what_arrives_equals_what_was_logged_in_time_order) {
  auto cursor = std::make_shared<memory_cursor>();
  log_shipper_options o;
  o.group = group_;
  o.stream = "i-0aaa";
  o.limits.max_events = 700; // several calls
  log_shipper s{o, logs(moto_), cursor};
  auto base = now_ms() - 60'000;
  std::vector<std::pair<int64_t, std::string>> logged;
  for (int i = 0; i < 2000; ++i) {
    // Out of time order now and then, as journald and own lines interleave.
    int64_t ts = base + i * 10 + (i % 7 == 0 ? -5 : 0);
    std::string msg = "line " + std::to_string(i) + " \"quoted\" \xc3\xa9";
    ASSERT_TRUE(s.offer({ts, msg, "s=x;i=" + std::to_string(i)}));
    logged.emplace_back(ts, msg);
  }
  for (int i = 0; i < 10 && s.stats().queued > 0; ++i)
    s.pump();
  EXPECT_EQ(s.stats().queued, 0u);
  EXPECT_EQ(s.stats().calls_ok, 3);
  EXPECT_EQ(cursor->value, "s=x;i=1999");
  auto got = events("i-0aaa");
  ASSERT_EQ(got.size(), logged.size());
  // Every event once; within each call, in time order.
  std::multiset<std::pair<int64_t, std::string>> want(logged.begin(),
                                                      logged.end());
  std::multiset<std::pair<int64_t, std::string>> have;
  for (const auto& e : got)
    have.emplace(e[0].get<int64_t>(), e[1].get<std::string>());
  EXPECT_EQ(have, want);
  // A second shipper on the same group and stream (a restart) creates them
  // again without error.
  log_shipper again{o, logs(moto_), cursor};
  ASSERT_TRUE(again.offer({now_ms(), "after restart", ""}));
  again.pump();
  EXPECT_EQ(again.stats().calls_ok, 1);
  EXPECT_EQ(events("i-0aaa").size(), logged.size() + 1);
}

TEST_F(cloudwatch_against_moto,
       an_outage_loses_nothing_and_never_blocks_the_producer) {
  fault_proxy proxy{moto_};
  ASSERT_FALSE(proxy.url.empty());
  proxy.mode("503");
  auto cursor = std::make_shared<memory_cursor>();
  log_shipper_options o;
  o.group = group_;
  o.stream = "i-0bbb";
  o.flush_interval = 50ms;
  o.backoff_initial = 20ms;
  o.backoff_max = 200ms;
  log_shipper s{o, logs(proxy.url), cursor};
  s.start();
  std::vector<std::string> logged;
  for (int i = 0; i < 300; ++i) {
    logged.push_back("during outage " + std::to_string(i));
    // offer() returns at once whatever CloudWatch does.
    ASSERT_TRUE(s.offer({now_ms(), logged.back(), "c" + std::to_string(i)}));
  }
  // The proxy has refused calls in both ways CloudWatch fails.
  for (int i = 0; i < 200 && proxy.state().value("refused", 0) < 3; ++i)
    std::this_thread::sleep_for(20ms);
  proxy.mode("throttle");
  int refused = proxy.state().value("refused", 0);
  for (int i = 0; i < 200 && proxy.state().value("refused", 0) < refused + 3;
       ++i)
    std::this_thread::sleep_for(20ms);
  EXPECT_GE(proxy.state().value("refused", 0), refused + 3);
  EXPECT_EQ(cursor->value, ""); // nothing accepted yet, nothing saved
  proxy.mode("ok");
  s.stop(60s); // drains: returns once all is sent
  EXPECT_EQ(s.stats().queued, 0u);
  EXPECT_GT(s.stats().calls_failed, 3);
  EXPECT_EQ(cursor->value, "c299");
  auto got = events("i-0bbb");
  std::vector<std::string> messages;
  for (const auto& e : got)
    messages.push_back(e[1].get<std::string>());
  EXPECT_EQ(messages, logged);
}

TEST_F(cloudwatch_against_moto,
       journald_resumes_after_a_restart_without_duplicates) {
  auto tmp = std::filesystem::temp_directory_path()
             / ("det-cw-journal-" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp);
  auto journal = (tmp / "journal").string();
  auto line = [](int i) {
    return json{{"__CURSOR", "s=j;i=" + std::to_string(i)},
                {"__REALTIME_TIMESTAMP", std::to_string(now_ms() * 1000)},
                {"SYSLOG_IDENTIFIER", "sshd"},
                {"_PID", "7"},
                {"MESSAGE", "entry " + std::to_string(i)}}
               .dump()
           + "\n";
  };
  {
    std::ofstream out{journal};
    for (int i = 1; i <= 5; ++i)
      out << line(i);
  }
  ::setenv("FAKE_JOURNAL", journal.c_str(), 1);
  auto cursor = std::make_shared<cursor_file>((tmp / "cursor").string());
  auto run = [&](size_t expect_sent) {
    log_shipper_options o;
    o.group = group_;
    o.stream = "i-0ccc";
    o.flush_interval = 50ms;
    auto shipper = std::make_shared<log_shipper>(o, logs(moto_), cursor);
    shipper->start();
    journald_options jo;
    jo.journalctl = dir + "/fake_journalctl";
    journald_source src{jo, cursor->load(),
                        [shipper](det::policy::queued_log_event ev,
                                  const std::atomic<bool>& cancel) {
                          return shipper->push_wait(std::move(ev), cancel);
                        }};
    src.start();
    for (int i = 0;
         i < 500 && src.entries() < static_cast<int64_t>(expect_sent); ++i)
      std::this_thread::sleep_for(10ms);
    src.stop();
    shipper->stop(30s);
    EXPECT_EQ(shipper->stats().events_sent, static_cast<int64_t>(expect_sent));
  };
  run(5);
  EXPECT_EQ(cursor->load(), "s=j;i=5");
  {
    std::ofstream out{journal, std::ios::app};
    for (int i = 6; i <= 8; ++i)
      out << line(i);
  }
  run(3); // a restart: from the saved cursor on
  std::vector<std::string> messages;
  for (const auto& e : events("i-0ccc"))
    messages.push_back(e[1].get<std::string>());
  std::vector<std::string> want;
  for (int i = 1; i <= 8; ++i)
    want.push_back("sshd[7]: entry " + std::to_string(i));
  EXPECT_EQ(messages, want);
  std::filesystem::remove_all(tmp);
}

TEST_F(cloudwatch_against_moto,
       metrics_arrive_as_measured_and_survive_an_outage) {
  fault_proxy proxy{moto_};
  ASSERT_FALSE(proxy.url.empty());
  auto ns = "DeterminedTest" + std::to_string(::getpid());
  host_sampler_options ho;
  ho.nvidia_smi = dir + "/fake_nvidia_smi";
  ho.dimensions = {
      {"Cluster", "c-test"}, {"Pool", "gpu-pool"}, {"Instance", "i-0ddd"}};
  auto sampler = std::make_shared<host_sampler>(ho);
  std::vector<det::aws::metric_datum> measured;
  metric_publisher_options mo;
  mo.name_space = ns;
  metric_publisher p{mo, metrics(proxy.url), [&](int64_t now) {
                       auto d = sampler->sample(now);
                       measured.insert(measured.end(), d.begin(), d.end());
                       return d;
                     }};
  proxy.mode("503");
  EXPECT_FALSE(p.round());
  proxy.mode("throttle");
  EXPECT_FALSE(p.round());
  proxy.mode("ok");
  EXPECT_TRUE(p.round());
  EXPECT_EQ(p.stats().pending, 0u);
  // Three rounds of GPU 0 at 87 %: three datums, none lost, none twice.
  json dims{{"Cluster", "c-test"},
            {"Pool", "gpu-pool"},
            {"Instance", "i-0ddd"},
            {"GPU", "0"}};
  auto gpu = cw_check(moto_, {"metric", ns, "GPUUtilization", dims.dump()});
  EXPECT_EQ(gpu["count"], 3);
  EXPECT_DOUBLE_EQ(gpu["sum"].get<double>(), 3 * 87.0);
  // Every datum measured is in CloudWatch with the same sum.
  std::map<std::string, std::pair<int, double>> want;
  for (const auto& d : measured) {
    json dj = json::object();
    for (const auto& [k, v] : d.dimensions)
      dj[k] = v;
    auto& w = want[d.name + " " + dj.dump()];
    ++w.first;
    w.second += d.value;
  }
  for (const auto& [key, w] : want) {
    auto space = key.find(' ');
    auto got = cw_check(
        moto_, {"metric", ns, key.substr(0, space), key.substr(space + 1)});
    EXPECT_EQ(got["count"], w.first) << key;
    EXPECT_NEAR(got["sum"].get<double>(), w.second, 1e-6 * (1 + w.second))
        << key;
  }
}

TEST_F(cloudwatch_against_moto, requests_are_signed_as_botocore_signs_them) {
  auto http = std::make_shared<recording_http>();
  ASSERT_FALSE(logs(moto_, http)->create_log_group(group_));
  ASSERT_FALSE(logs(moto_, http)->create_log_stream(group_, "i-0eee"));
  ASSERT_TRUE(logs(moto_, http)
                  ->put_log_events(group_, "i-0eee", {{now_ms(), "signed"}}));
  ASSERT_FALSE(metrics(moto_, http)
                   ->put_metric_data(
                       "DeterminedSig",
                       {{"M", {{"Cluster", "c"}}, 1.0, "Count", now_ms()}}));
  json input = json::array();
  std::vector<std::string> ours;
  for (const auto& req : http->sent) {
    json headers = json::array();
    std::string host, date;
    for (const auto& [k, v] : req.headers) {
      if (k == "Authorization") {
        ours.push_back(v);
        continue;
      }
      if (k == "X-Amz-Date") {
        date = v;
        continue;
      }
      if (k == "User-Agent")
        continue;
      if (k == "Host")
        host = v;
      headers.push_back({k, v});
    }
    std::tm tm{};
    ASSERT_TRUE(strptime(date.c_str(), "%Y%m%dT%H%M%SZ", &tm)) << date;
    std::string hex;
    static const char* digits = "0123456789abcdef";
    for (unsigned char c : req.body) {
      hex += digits[c >> 4];
      hex += digits[c & 15];
    }
    bool logs_call = req.body.rfind("{", 0) == 0;
    input.push_back({{"method", req.method},
                     {"host", host},
                     {"raw_path", "/"},
                     {"query", json::array()},
                     {"headers", headers},
                     {"body_hex", hex},
                     {"access_key_id", "testing"},
                     {"secret_access_key", "testing"},
                     {"session_token", ""},
                     {"region", region},
                     {"service", logs_call ? "logs" : "monitoring"},
                     {"epoch", timegm(&tm)},
                     {"add_content_sha256", false}});
  }
  ASSERT_EQ(input.size(), 4u);
  auto file = std::filesystem::temp_directory_path()
              / ("det-cw-sign-" + std::to_string(::getpid()) + ".json");
  std::ofstream{file} << input.dump();
  auto r = run_command(
      {"python3", det::aws::test::helper("botocore_sign.py"), file.string()});
  std::filesystem::remove(file);
  ASSERT_EQ(r.status, 0) << r.out;
  auto theirs = json::parse(r.out);
  ASSERT_EQ(theirs.size(), ours.size());
  for (size_t i = 0; i < ours.size(); ++i)
    EXPECT_EQ(ours[i], theirs[i]["authorization"].get<std::string>())
        << "request " << i << ": " << http->sent[i].body.substr(0, 80);
}
