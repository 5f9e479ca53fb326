#pragma once

// An api_client that answers from a script, for the drivers' decisions
// (retries, re-lists) where a real API server cannot be made to misbehave
// on cue. Each call pops the next answer; streams hand their chunks over.

#include "k8s/api_client.hpp"

#include <deque>
#include <string>
#include <vector>

namespace det::k8s::testing {

struct scripted_answer {
  long status = 200;
  nlohmann::json body;
  bool transport_error = false;
  /// For stream(): the chunks to deliver.
  std::vector<std::string> chunks{};
};

class scripted_client : public api_client {
public:
  std::deque<scripted_answer> answers;
  std::vector<std::string> calls; ///< "METHOD path"
  std::vector<nlohmann::json> bodies;

  caf::expected<api_response> call(const std::string& method,
                                   const std::string& path,
                                   const nlohmann::json& body,
                                   const std::string&) override {
    calls.push_back(method + " " + path);
    bodies.push_back(body);
    auto a = next();
    if (a.transport_error)
      return make_error(errc::remote_error, "[transport curl:7] refused");
    return api_response{a.status, a.body};
  }

  caf::expected<long> stream(const std::string& path,
                             const std::function<bool(std::string_view)>& fn,
                             const std::atomic<bool>&,
                             std::chrono::milliseconds,
                             std::string* error_body) override {
    calls.push_back("STREAM " + path);
    auto a = next();
    if (a.transport_error)
      return make_error(errc::remote_error, "[transport curl:56] reset");
    if (a.status != 200) {
      if (error_body != nullptr)
        *error_body = a.body.dump();
      return a.status;
    }
    for (const auto& c : a.chunks)
      if (!fn(c))
        break;
    return a.status;
  }

  const api_counters& counters() const override { return counters_; }

private:
  scripted_answer next() {
    if (answers.empty())
      return scripted_answer{500, {{"message", "script exhausted"}}};
    auto a = answers.front();
    answers.pop_front();
    return a;
  }
  api_counters counters_;
};

} // namespace det::k8s::testing
