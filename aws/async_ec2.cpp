#include "aws/async_ec2.hpp"

namespace det::aws {

async_ec2::async_ec2(std::shared_ptr<ec2_client> client,
                     std::shared_ptr<async_executor> executor)
    : client_(std::move(client)), executor_(std::move(executor)) {}

// Each lambda holds the client by shared_ptr, so a call in flight keeps it
// alive even if this async_ec2 is gone.

void async_ec2::run_instances(run_instances_request req,
                              ec2_callback<std::vector<instance>> done) {
  executor_->run<std::vector<instance>>(
      [c = client_, req = std::move(req)] { return c->run_instances(req); },
      std::move(done));
}

void async_ec2::describe_instances(describe_instances_request req,
                                   ec2_callback<std::vector<instance>> done) {
  executor_->run<std::vector<instance>>(
      [c = client_, req = std::move(req)] {
        return c->describe_instances(req);
      },
      std::move(done));
}

void async_ec2::terminate_instances(std::vector<std::string> ids,
                                    ec2_callback<terminate_result> done) {
  executor_->run<terminate_result>(
      [c = client_, ids = std::move(ids)] {
        return c->terminate_instances(ids);
      },
      std::move(done));
}

void async_ec2::create_tags(std::vector<std::string> ids,
                            std::vector<ec2_tag> tags,
                            ec2_callback<caf::unit_t> done) {
  executor_->run<caf::unit_t>(
      [c = client_, ids = std::move(ids),
       tags = std::move(tags)]() -> caf::expected<caf::unit_t> {
        if (auto err = c->create_tags(ids, tags))
          return err;
        return caf::unit;
      },
      std::move(done));
}

void async_ec2::request_spot_instances(
    spot_request_spec spec,
    ec2_callback<std::vector<spot_instance_request>> done) {
  executor_->run<std::vector<spot_instance_request>>(
      [c = client_, spec = std::move(spec)] {
        return c->request_spot_instances(spec);
      },
      std::move(done));
}

void async_ec2::describe_spot_instance_requests(
    describe_spot_requests_request req,
    ec2_callback<std::vector<spot_instance_request>> done) {
  executor_->run<std::vector<spot_instance_request>>(
      [c = client_, req = std::move(req)] {
        return c->describe_spot_instance_requests(req);
      },
      std::move(done));
}

void async_ec2::cancel_spot_instance_requests(
    std::vector<std::string> ids,
    ec2_callback<std::vector<spot_cancel_result>> done) {
  executor_->run<std::vector<spot_cancel_result>>(
      [c = client_, ids = std::move(ids)] {
        return c->cancel_spot_instance_requests(ids);
      },
      std::move(done));
}

} // namespace det::aws
