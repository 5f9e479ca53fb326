#include "telemetry/host_metrics.hpp"

#include "messages/errc.hpp"
#include "telemetry/subprocess.hpp"
#include "util/log.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

namespace det::telemetry {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty()
         && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::optional<double> number(std::string_view s) {
  s = trim(s);
  if (s.empty())
    return std::nullopt;
  std::string text{s};
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || v != v)
    return std::nullopt;
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    auto at = s.find(sep, start);
    out.push_back(s.substr(start, at - start));
    if (at == std::string_view::npos)
      return out;
    start = at + 1;
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in{path};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

aws::metric_datum datum(std::string name, double value, std::string unit,
                        const dimension_list& dims, int64_t now_ms) {
  return {std::move(name), dims, value, std::move(unit), now_ms};
}

} // namespace

std::optional<cpu_times> parse_proc_stat(std::string_view text) {
  for (auto line : split(text, '\n')) {
    if (line.substr(0, 4) != "cpu ")
      continue;
    cpu_times t;
    int i = 0;
    for (auto f : split(line.substr(4), ' ')) {
      if (f.empty())
        continue;
      uint64_t v = 0;
      auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
      if (ec != std::errc{})
        return std::nullopt;
      // user nice system idle iowait irq softirq steal guest guest_nice;
      // guest time is already in user and nice.
      if (i < 8) {
        t.total += v;
        if (i != 3 && i != 4)
          t.busy += v;
      }
      ++i;
    }
    if (i < 4)
      return std::nullopt;
    return t;
  }
  return std::nullopt;
}

std::optional<double> cpu_percent(const cpu_times& before,
                                  const cpu_times& after) {
  if (after.total <= before.total || after.busy < before.busy)
    return std::nullopt;
  return 100.0 * static_cast<double>(after.busy - before.busy)
         / static_cast<double>(after.total - before.total);
}

std::optional<memory_info> parse_meminfo(std::string_view text) {
  std::optional<uint64_t> total, available;
  for (auto line : split(text, '\n')) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos)
      continue;
    auto key = line.substr(0, colon);
    auto rest = trim(line.substr(colon + 1));
    auto space = rest.find(' ');
    auto digits = rest.substr(0, space);
    uint64_t kib = 0;
    auto [p, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), kib);
    if (ec != std::errc{})
      continue;
    if (key == "MemTotal")
      total = kib * 1024;
    else if (key == "MemAvailable")
      available = kib * 1024;
  }
  if (!total || !available || *total == 0)
    return std::nullopt;
  return memory_info{*total, *available};
}

std::vector<gpu_sample> parse_nvidia_smi_csv(std::string_view text) {
  std::vector<gpu_sample> out;
  for (auto line : split(text, '\n')) {
    auto f = split(line, ',');
    if (f.size() != 5)
      continue;
    gpu_sample g;
    g.index = std::string{trim(f[0])};
    g.uuid = std::string{trim(f[1])};
    if (g.index.empty()
        || g.index.find_first_not_of("0123456789") != std::string::npos)
      continue;
    g.utilization_percent = number(f[2]);
    g.memory_used_mib = number(f[3]);
    g.memory_total_mib = number(f[4]);
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<std::string> nvidia_smi_argv(const std::string& nvidia_smi) {
  return {nvidia_smi,
          "--query-gpu=index,uuid,utilization.gpu,memory.used,memory.total",
          "--format=csv,noheader,nounits"};
}

std::vector<aws::metric_datum> gpu_datums(const std::vector<gpu_sample>& gpus,
                                          const dimension_list& dims,
                                          int64_t now_ms) {
  std::vector<aws::metric_datum> out;
  for (const auto& g : gpus) {
    auto d = dims;
    d.emplace_back("GPU", g.index);
    if (g.utilization_percent)
      out.push_back(datum("GPUUtilization", *g.utilization_percent, "Percent",
                          d, now_ms));
    if (g.memory_used_mib)
      out.push_back(
          datum("GPUMemoryUsed", *g.memory_used_mib, "Megabytes", d, now_ms));
    if (g.memory_used_mib && g.memory_total_mib && *g.memory_total_mib > 0)
      out.push_back(datum("GPUMemoryUtilization",
                          100.0 * *g.memory_used_mib / *g.memory_total_mib,
                          "Percent", d, now_ms));
  }
  return out;
}

host_sampler::host_sampler(host_sampler_options opts)
    : opts_(std::move(opts)) {}

std::vector<aws::metric_datum> host_sampler::sample(int64_t now_ms) {
  std::vector<aws::metric_datum> out;
  const auto& dims = opts_.dimensions;
  if (auto cpu = parse_proc_stat(read_file(opts_.proc_root + "/stat"))) {
    if (last_cpu_)
      if (auto pct = cpu_percent(*last_cpu_, *cpu))
        out.push_back(datum("CPUUtilization", *pct, "Percent", dims, now_ms));
    last_cpu_ = cpu;
  }
  if (auto mem = parse_meminfo(read_file(opts_.proc_root + "/meminfo"))) {
    auto used = static_cast<double>(
        mem->total_bytes - std::min(mem->total_bytes, mem->available_bytes));
    out.push_back(datum("MemoryUtilization",
                        100.0 * used / static_cast<double>(mem->total_bytes),
                        "Percent", dims, now_ms));
    out.push_back(datum("MemoryUsed", used, "Bytes", dims, now_ms));
  }
  if (!opts_.nvidia_smi.empty() && !gpus_absent_) {
    auto csv = run_capture(nvidia_smi_argv(opts_.nvidia_smi),
                           std::chrono::seconds{10});
    if (csv) {
      for (auto& d : gpu_datums(parse_nvidia_smi_csv(*csv), dims, now_ms))
        out.push_back(std::move(d));
    } else if (code_of(csv.error()) == errc::not_found) {
      // No nvidia-smi: a machine without GPUs. Not asked again.
      gpus_absent_ = true;
    } else {
      log::warn() << "cloudwatch: " << render(csv.error());
    }
  }
  return out;
}

} // namespace det::telemetry
