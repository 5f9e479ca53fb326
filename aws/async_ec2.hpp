#pragma once

// The ec2_client calls, asynchronously: each runs on an async_executor
// worker and its result goes to a callback on that worker thread. What a
// provisioner actor uses, so that no EC2 call ever blocks an actor thread:
//
//   ec2.describe_instances(req, [self = actor](auto res) {
//     caf::anon_send(self, instances_described{std::move(res)});
//   });
//
// Every call gets exactly one callback (see async_executor).

#include "aws/async_executor.hpp"
#include "aws/ec2_client.hpp"

#include <functional>
#include <memory>

namespace det::aws {

template <class T> using ec2_callback = std::function<void(caf::expected<T>)>;

class async_ec2 {
public:
  async_ec2(std::shared_ptr<ec2_client> client,
            std::shared_ptr<async_executor> executor);

  void run_instances(run_instances_request req,
                     ec2_callback<std::vector<instance>> done);

  void describe_instances(describe_instances_request req,
                          ec2_callback<std::vector<instance>> done);

  void terminate_instances(std::vector<std::string> ids,
                           ec2_callback<terminate_result> done);

  /// The callback gets caf::unit on success.
  void create_tags(std::vector<std::string> ids, std::vector<ec2_tag> tags,
                   ec2_callback<caf::unit_t> done);

  void
  request_spot_instances(spot_request_spec spec,
                         ec2_callback<std::vector<spot_instance_request>> done);

  void describe_spot_instance_requests(
      describe_spot_requests_request req,
      ec2_callback<std::vector<spot_instance_request>> done);

  void cancel_spot_instance_requests(
      std::vector<std::string> ids,
      ec2_callback<std::vector<spot_cancel_result>> done);

private:
  std::shared_ptr<ec2_client> client_;
  std::shared_ptr<async_executor> executor_;
};

} // namespace det::aws
