// The PostgreSQL log_archive (table log_lines, migration 005): one writer
// thread owns the connection. libpqxx stays inside this file.

#include "messages/errc.hpp"
#include "store/insert_text.hpp"
#include "store/log_archive.hpp"
#include "util/log.hpp"

#include <pqxx/pqxx>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <variant>

namespace det {

log_archive::~log_archive() = default;

std::string storable_log_text(const std::string& text) {
  if (text.find('\0') == std::string::npos)
    return text;
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text)
    if (c == '\0')
      out += "\xEF\xBF\xBD";
    else
      out += c;
  return out;
}

namespace {

constexpr size_t batch_rows = 2000;
/// How long the writer waits before it retries after a failure.
constexpr auto retry_after = std::chrono::seconds(1);

class pg_log_archive : public log_archive {
public:
  pg_log_archive(std::string url, size_t max_queued)
      : url_(std::move(url)), max_queued_(max_queued) {}

  ~pg_log_archive() override {
    {
      std::lock_guard lock{mu_};
      stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable())
      thread_.join();
  }

  caf::error start() {
    if (auto err = connect())
      return err;
    thread_ = std::thread{[this] { run(); }};
    return {};
  }

  void save(std::vector<archived_line> lines) override {
    if (lines.empty())
      return;
    {
      std::lock_guard lock{mu_};
      for (auto& l : lines) {
        if (lines_queued_ >= max_queued_) {
          drop_oldest_line();
        }
        queue_.emplace_back(std::move(l));
        ++lines_queued_;
        ++enqueued_;
      }
    }
    cv_.notify_all();
  }

  void forget(std::vector<std::string> keys) override {
    if (keys.empty())
      return;
    {
      std::lock_guard lock{mu_};
      queue_.emplace_back(std::move(keys));
      ++enqueued_;
    }
    cv_.notify_all();
  }

  caf::expected<std::vector<archived_line>> load(const std::string& prefix,
                                                 size_t per_key) override {
    std::lock_guard io{io_mu_};
    std::vector<archived_line> out;
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (!conn_ || !conn_->is_open())
        if (auto err = connect())
          return err;
      try {
        pqxx::read_transaction tx{*conn_};
        auto r = tx.exec_params(
            "SELECT key, id, agent_id, at_us, source, line FROM ("
            " SELECT *, row_number() OVER (PARTITION BY key ORDER BY id DESC)"
            " AS n FROM log_lines WHERE starts_with(key, $2)) last"
            " WHERE n <= $1 ORDER BY key, id",
            static_cast<int64_t>(per_key), prefix);
        out.reserve(r.size());
        for (const auto& row : r)
          out.push_back({row[0].as<std::string>(), row[1].as<int64_t>(),
                         row[2].as<std::string>(), row[3].as<int64_t>(),
                         row[4].as<std::string>(), row[5].as<std::string>()});
        return out;
      } catch (const pqxx::broken_connection&) {
        conn_.reset();
      } catch (const std::exception& e) {
        return make_error(errc::store_unavailable,
                          std::string{"log lines: "} + e.what());
      }
    }
    return make_error(errc::store_unavailable, "log lines: connection lost");
  }

  void flush() override {
    std::unique_lock lock{mu_};
    auto target = enqueued_;
    cv_.notify_all();
    // Bounded: a database that is away must not hold a shutdown.
    done_cv_.wait_for(lock, std::chrono::seconds(10),
                      [&] { return finished_ >= target || stopping_; });
  }

private:
  /// A batch of lines to write, or keys to forget.
  using item = std::variant<archived_line, std::vector<std::string>>;

  caf::error connect() {
    try {
      conn_ = std::make_unique<pqxx::connection>(url_);
      return {};
    } catch (const std::exception& e) {
      conn_.reset();
      return make_error(errc::store_unavailable,
                        std::string{"log lines: "} + e.what());
    }
  }

  /// Under mu_: the queue is full; the oldest line goes.
  void drop_oldest_line() {
    for (auto i = queue_.begin(); i != queue_.end(); ++i)
      if (std::holds_alternative<archived_line>(*i)) {
        queue_.erase(i);
        --lines_queued_;
        ++finished_;
        if (!dropping_) {
          dropping_ = true;
          log::warn() << "log lines: the database is behind; dropping the "
                         "oldest unsaved lines (the queue holds "
                      << max_queued_ << ")";
        }
        return;
      }
  }

  void run() {
    std::unique_lock lock{mu_};
    while (true) {
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty())
        return; // stopping, everything written
      // Lines up to the first forget (in order), or one forget.
      std::vector<archived_line> lines;
      std::vector<std::string> keys;
      if (auto* k = std::get_if<std::vector<std::string>>(&queue_.front())) {
        keys = std::move(*k);
        queue_.pop_front();
      } else {
        while (!queue_.empty() && lines.size() < batch_rows
               && std::holds_alternative<archived_line>(queue_.front())) {
          lines.push_back(std::move(std::get<archived_line>(queue_.front())));
          queue_.pop_front();
          --lines_queued_;
        }
      }
      bool stopping = stopping_;
      lock.unlock();
      auto err = write(lines, keys);
      lock.lock();
      if (!err.empty() && !stopping_ && !stopping) {
        // Put it back and wait: the database may come back.
        if (!keys.empty())
          queue_.emplace_front(std::move(keys));
        else
          for (auto i = lines.rbegin(); i != lines.rend(); ++i) {
            queue_.emplace_front(std::move(*i));
            ++lines_queued_;
          }
        if (!failing_)
          log::error() << "log lines: " << err << " (retrying)";
        failing_ = true;
        cv_.wait_for(lock, retry_after, [&] { return stopping_; });
        continue;
      }
      if (err.empty() && failing_) {
        log::info() << "log lines: written again";
        failing_ = false;
        dropping_ = false;
      }
      finished_ += keys.empty() ? lines.size() : 1;
      done_cv_.notify_all();
    }
  }

  /// Writes one batch; the reason on failure.
  std::string write(const std::vector<archived_line>& lines,
                    const std::vector<std::string>& keys) {
    std::lock_guard io{io_mu_};
    std::string sql;
    if (!keys.empty()) {
      sql = "DELETE FROM log_lines WHERE key IN (";
      for (size_t i = 0; i < keys.size(); ++i) {
        if (i > 0)
          sql += ',';
        append_sql_literal(sql, keys[i]);
      }
      sql += ')';
    } else {
      sql = "INSERT INTO log_lines (key, id, agent_id, at_us, source, line) "
            "VALUES ";
      for (size_t i = 0; i < lines.size(); ++i) {
        const auto& l = lines[i];
        sql += i == 0 ? "(" : ",(";
        append_sql_literal(sql, l.key);
        sql += ',' + std::to_string(l.id) + ',';
        append_sql_literal(sql, l.agent_id);
        sql += ',' + std::to_string(l.at_us) + ',';
        append_sql_literal(sql, l.source);
        sql += ',';
        append_sql_literal(sql, storable_log_text(l.text));
        sql += ')';
      }
      sql += " ON CONFLICT DO NOTHING";
    }
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (!conn_ || !conn_->is_open())
        if (auto err = connect())
          return render(err);
      try {
        pqxx::work tx{*conn_};
        tx.exec0(sql);
        tx.commit();
        return {};
      } catch (const pqxx::broken_connection&) {
        conn_.reset();
      } catch (const std::exception& e) {
        return e.what();
      }
    }
    return "connection lost";
  }

  std::string url_;
  size_t max_queued_;
  std::mutex io_mu_; ///< the connection: the writer and load()
  std::unique_ptr<pqxx::connection> conn_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable done_cv_;
  std::deque<item> queue_;
  size_t lines_queued_ = 0;
  uint64_t enqueued_ = 0; ///< items ever queued
  uint64_t finished_ = 0; ///< items written or dropped
  bool stopping_ = false;
  bool failing_ = false;
  bool dropping_ = false;
  std::thread thread_;
};

} // namespace

caf::expected<std::unique_ptr<log_archive>>
open_pg_log_archive(const std::string& url, size_t max_queued) {
  auto a = std::make_unique<pg_log_archive>(url, max_queued);
  if (auto err = a->start())
    return err;
  return std::unique_ptr<log_archive>{std::move(a)};
}

} // namespace det
