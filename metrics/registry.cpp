#include "metrics/registry.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace det::metrics {

namespace {

struct series {
  /// Counter value, or histogram per-bucket counts (not cumulative) with
  /// the +Inf bucket last.
  double value = 0;
  std::vector<uint64_t> buckets;
  double sum = 0;
  uint64_t count = 0;
};

struct entry {
  family meta; // name, help, type; samples unused
  std::vector<double> bounds;
  std::map<labels, series> by_labels;
};

} // namespace

struct registry::impl {
  mutable std::mutex mtx;
  std::map<std::string, entry> families;

  entry& add(const std::string& name, const std::string& help,
             metric_type type) {
    if (!valid_metric_name(name))
      throw std::logic_error("metrics: invalid metric name '" + name + "'");
    std::lock_guard<std::mutex> guard{mtx};
    auto [it, fresh] = families.try_emplace(name);
    if (!fresh && it->second.meta.type != type)
      throw std::logic_error("metrics: '" + name
                             + "' registered twice with different types");
    if (fresh)
      it->second.meta = family{name, help, type, {}};
    return it->second;
  }
};

registry::registry() : impl_(std::make_unique<impl>()) {}

registry::~registry() = default;

counter registry::make_counter(const std::string& name,
                               const std::string& help) {
  impl_->add(name, help, metric_type::counter);
  return counter{this, name};
}

histogram registry::make_histogram(const std::string& name,
                                   const std::string& help,
                                   std::vector<double> bounds) {
  std::sort(bounds.begin(), bounds.end());
  auto& e = impl_->add(name, help, metric_type::histogram);
  std::lock_guard<std::mutex> guard{impl_->mtx};
  if (e.bounds.empty()) {
    e.bounds = std::move(bounds);
    e.by_labels[{}].buckets.assign(e.bounds.size() + 1, 0);
  }
  return histogram{this, name};
}

void counter::inc(const labels& label_pairs, double v) const {
  auto& im = *reg_->impl_;
  std::lock_guard<std::mutex> guard{im.mtx};
  im.families.at(name_).by_labels[label_pairs].value += v;
}

void histogram::observe(double v, const labels& label_pairs) const {
  auto& im = *reg_->impl_;
  std::lock_guard<std::mutex> guard{im.mtx};
  auto& e = im.families.at(name_);
  auto& s = e.by_labels[label_pairs];
  if (s.buckets.empty())
    s.buckets.assign(e.bounds.size() + 1, 0);
  auto i =
      std::lower_bound(e.bounds.begin(), e.bounds.end(), v) - e.bounds.begin();
  ++s.buckets[static_cast<size_t>(i)];
  s.sum += v;
  ++s.count;
}

std::vector<family> registry::collect() const {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  std::vector<family> out;
  for (const auto& [name, e] : impl_->families) {
    family f = e.meta;
    for (const auto& [ls, s] : e.by_labels) {
      if (f.type != metric_type::histogram) {
        f.samples.push_back({"", ls, s.value});
        continue;
      }
      uint64_t cumulative = 0;
      for (size_t i = 0; i < s.buckets.size(); ++i) {
        cumulative += s.buckets[i];
        auto bl = ls;
        bl.emplace_back("le", i < e.bounds.size() ? format_value(e.bounds[i])
                                                  : std::string{"+Inf"});
        f.samples.push_back({"_bucket", bl, static_cast<double>(cumulative)});
      }
      f.samples.push_back({"_sum", ls, s.sum});
      f.samples.push_back({"_count", ls, static_cast<double>(s.count)});
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::string registry::text() const {
  return encode(collect());
}

registry& global_registry() {
  static registry r;
  return r;
}

} // namespace det::metrics
