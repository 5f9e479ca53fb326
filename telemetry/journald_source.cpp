#include "telemetry/journald_source.hpp"

#include "messages/errc.hpp"
#include "telemetry/subprocess.hpp"
#include "util/log.hpp"

#include <nlohmann/json.hpp>

namespace det::telemetry {

namespace {

using nlohmann::json;

std::string field(const json& doc, const char* key) {
  auto i = doc.find(key);
  if (i == doc.end())
    return {};
  if (i->is_string())
    return i->get<std::string>();
  // journald writes non-UTF-8 or binary values as arrays of bytes.
  if (i->is_array()) {
    std::string out;
    for (const auto& b : *i)
      if (b.is_number_unsigned() && b.get<unsigned>() < 256)
        out += static_cast<char>(b.get<unsigned>());
    return out;
  }
  return {};
}

} // namespace

std::optional<policy::queued_log_event>
parse_journal_entry(std::string_view line) {
  auto doc = json::parse(line, nullptr, false);
  if (!doc.is_object())
    return std::nullopt;
  auto cursor = field(doc, "__CURSOR");
  auto realtime = field(doc, "__REALTIME_TIMESTAMP");
  if (cursor.empty() || realtime.empty()
      || realtime.find_first_not_of("0123456789") != std::string::npos
      || realtime.size() > 19)
    return std::nullopt;
  policy::queued_log_event ev;
  ev.cursor = std::move(cursor);
  ev.timestamp_ms = std::stoll(realtime) / 1000;
  auto ident = field(doc, "SYSLOG_IDENTIFIER");
  if (ident.empty())
    ident = field(doc, "_COMM");
  if (ident.empty())
    ident = field(doc, "_SYSTEMD_UNIT");
  auto pid = field(doc, "_PID");
  if (!ident.empty())
    ev.message = ident + (pid.empty() ? "" : "[" + pid + "]") + ": ";
  ev.message += field(doc, "MESSAGE");
  return ev;
}

std::vector<std::string> journalctl_argv(const std::string& journalctl,
                                         const std::string& cursor) {
  std::vector<std::string> argv{journalctl, "-o", "json", "--no-tail", "-f"};
  if (cursor.empty()) {
    argv.emplace_back("-b");
  } else {
    argv.emplace_back("--after-cursor");
    argv.push_back(cursor);
  }
  return argv;
}

journald_source::journald_source(journald_options opts,
                                 std::string start_cursor, push_fn push)
    : opts_(std::move(opts)), cursor_(std::move(start_cursor)),
      push_(std::move(push)) {}

journald_source::~journald_source() {
  stop();
}

void journald_source::start() {
  thread_ = std::thread{[this] { run(); }};
}

void journald_source::stop() {
  stop_ = true;
  if (thread_.joinable())
    thread_.join();
}

void journald_source::run() {
  using namespace std::chrono;
  while (!stop_) {
    auto proc = subprocess::spawn(journalctl_argv(opts_.journalctl, cursor_));
    if (!proc) {
      log::warn() << "cloudwatch: journald: " << render(proc.error());
    } else {
      while (!stop_ && !proc->eof()) {
        auto line = proc->read_line(milliseconds{200});
        if (!line || line->empty())
          continue;
        auto ev = parse_journal_entry(*line);
        if (!ev)
          continue;
        auto cursor = ev->cursor;
        if (!push_(std::move(*ev), stop_))
          break;
        cursor_ = std::move(cursor);
        ++entries_;
      }
      proc->terminate();
      auto status = proc->wait();
      if (!stop_)
        log::warn() << "cloudwatch: journalctl ended (status " << status
                    << "); starting it again in " << opts_.restart_delay.count()
                    << " ms";
    }
    auto until = steady_clock::now() + opts_.restart_delay;
    while (!stop_ && steady_clock::now() < until)
      std::this_thread::sleep_for(milliseconds{50});
  }
}

} // namespace det::telemetry
