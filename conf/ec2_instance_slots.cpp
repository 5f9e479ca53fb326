#include "conf/ec2_instance_slots.hpp"

#include <string>
#include <utility>

namespace det::conf {

namespace {

struct entry {
  const char* type;
  int gpus;
};

// Exact types with GPUs.
constexpr entry gpu_types[] = {
    {"g4dn.xlarge", 1},   {"g4dn.2xlarge", 1},  {"g4dn.4xlarge", 1},
    {"g4dn.8xlarge", 1},  {"g4dn.16xlarge", 1}, {"g4dn.12xlarge", 4},
    {"g4dn.metal", 8},    {"g5.xlarge", 1},     {"g5.2xlarge", 1},
    {"g5.4xlarge", 1},    {"g5.8xlarge", 1},    {"g5.16xlarge", 1},
    {"g5.12xlarge", 4},   {"g5.24xlarge", 4},   {"g5.48xlarge", 8},
    {"p2.xlarge", 1},     {"p2.8xlarge", 8},    {"p2.16xlarge", 16},
    {"p3.2xlarge", 1},    {"p3.8xlarge", 4},    {"p3.16xlarge", 8},
    {"p3dn.24xlarge", 8}, {"p4d.24xlarge", 8},
};

// Families without GPUs; every size of these counts.
constexpr const char* cpu_families[] = {
    "t2", "t3",  "c4",   "c5",  "c5d",  "c5n", "m4",
    "m5", "m5d", "m5dn", "m5n", "m5zn", "m6i",
};

constexpr const char* cpu_sizes[] = {
    "nano",     "micro",    "small",    "medium",  "large",    "xlarge",
    "2xlarge",  "4xlarge",  "8xlarge",  "9xlarge", "12xlarge", "16xlarge",
    "18xlarge", "24xlarge", "32xlarge", "metal",
};

} // namespace

std::optional<int> ec2_gpu_count(std::string_view instance_type) {
  for (const auto& e : gpu_types)
    if (instance_type == e.type)
      return e.gpus;
  auto dot = instance_type.find('.');
  if (dot == std::string_view::npos)
    return std::nullopt;
  auto family = instance_type.substr(0, dot);
  auto size = instance_type.substr(dot + 1);
  for (auto f : cpu_families)
    if (family == f)
      for (auto s : cpu_sizes)
        if (size == s)
          return 0;
  return std::nullopt;
}

} // namespace det::conf
