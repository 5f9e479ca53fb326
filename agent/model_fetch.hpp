#pragma once

// Downloads an experiment's model directory from the master and unpacks it:
// GET {master}/api/v1/experiments/{id}/model_def -> {"b64Tgz": "..."} ->
// base64 -> .tar.gz -> unpacked into a directory (util/archive.hpp).
// Blocking (net/http_client, the disk): call it on a worker thread, never on an
// I/O thread.

#include "messages/errc.hpp"
#include "util/base64.hpp"

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace det::agent {

struct http_options {
  std::string bearer_token; ///< Authorization: Bearer, when not empty
  std::string ca_cert;      ///< PEM bundle for https; "" = system roots
  bool skip_verify = false;
  long timeout_s = 120;
};

/// The body of a 2xx answer to GET `url`. Fails with errc::remote_error
/// naming the status or transport error (never the token).
[[nodiscard]] caf::expected<std::string> http_get(const std::string& url,
                                                  const http_options& opts);

using det::base64_decode;

/// Unpacks gzip'd tar bytes into `dir` (created if missing); a hostile
/// entry (absolute, "..", through a symlink, a device) is refused.
[[nodiscard]] caf::error unpack_tgz(const std::string& tgz,
                                    const std::string& dir);

/// How fetch_model_def waits out a master that is away. A master that
/// restarts is a normal event (the trial's own calls ride it out the same
/// way, docs/agent_protocol.md): a transport error or HTTP 502, 503 or 504 is
/// tried again after 0.25 s, doubling to 5 s, for up to `budget` in all;
/// any other answer counts at once. `stop` (may be empty) is asked before
/// each wait: true gives up (the allocation was killed meanwhile). `sleep`
/// is std::this_thread::sleep_for unless a test sets it.
struct fetch_retry {
  std::chrono::milliseconds budget{60'000};
  std::function<bool()> stop;
  std::function<void(std::chrono::milliseconds)> sleep;
};

/// GET `url` answering {"b64Tgz": "..."}, its archive unpacked into `dir`
/// (an empty one: `dir` is only created).
[[nodiscard]] caf::error fetch_tgz(const std::string& url,
                                   const http_options& opts,
                                   const std::string& dir,
                                   const fetch_retry& retry = {});

/// A task's context directory (GET /api/v1/tasks/{id}/context_directory)
/// unpacked into `dir`.
[[nodiscard]] caf::error fetch_task_context(const std::string& master_url,
                                            const std::string& task_id,
                                            const http_options& opts,
                                            const std::string& dir,
                                            const fetch_retry& retry = {});

/// The whole download: model_def of `experiment_id` from `master_url`
/// ("http://host:port") unpacked into `dir`.
[[nodiscard]] caf::error fetch_model_def(const std::string& master_url,
                                         int64_t experiment_id,
                                         const http_options& opts,
                                         const std::string& dir,
                                         const fetch_retry& retry = {});

} // namespace det::agent
