#pragma once

// An ordered map kept as a list of short sorted arrays ("chunks"), for a
// set that is walked in order far more often than it changes: a walk
// reads neighbours from the same cache lines instead of chasing one tree
// node per entry, and an insert or erase moves at most one chunk's
// entries. Keys are unique. Iterators are invalidated by any change.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace det::policy {

template <class Key, class Value, class Compare> class chunked_map {
public:
  using value_type = std::pair<Key, Value>;

  /// Inserts (key, value) unless the key is there; true when inserted.
  bool emplace(Key key, Value value) {
    if (chunks_.empty()) {
      chunks_.emplace_back();
      chunks_.back().reserve(max_chunk + 1);
      chunks_.back().emplace_back(std::move(key), std::move(value));
      size_ = 1;
      return true;
    }
    auto c = chunk_for(key);
    auto& items = chunks_[c];
    auto it = std::lower_bound(items.begin(), items.end(), key, key_less{});
    if (it != items.end() && !less_(key, it->first))
      return false;
    items.insert(it, value_type{std::move(key), std::move(value)});
    ++size_;
    if (items.size() > max_chunk) {
      // Split in halves; the upper half becomes the next chunk.
      std::vector<value_type> upper;
      upper.reserve(max_chunk + 1);
      auto mid = items.begin() + static_cast<std::ptrdiff_t>(items.size() / 2);
      upper.assign(std::make_move_iterator(mid),
                   std::make_move_iterator(items.end()));
      items.erase(mid, items.end());
      chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(c) + 1,
                     std::move(upper));
    }
    return true;
  }

  /// Erases the key's entry; true when there was one.
  bool erase(const Key& key) {
    if (chunks_.empty())
      return false;
    auto c = chunk_for(key);
    auto& items = chunks_[c];
    auto it = std::lower_bound(items.begin(), items.end(), key, key_less{});
    if (it == items.end() || less_(key, it->first))
      return false;
    items.erase(it);
    --size_;
    if (items.empty())
      chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(c));
    return true;
  }

  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }

  class const_iterator {
  public:
    const value_type& operator*() const { return (*chunks_)[c_][i_]; }
    const value_type* operator->() const { return &(*chunks_)[c_][i_]; }
    const_iterator& operator++() {
      if (++i_ == (*chunks_)[c_].size()) {
        ++c_;
        i_ = 0;
      }
      return *this;
    }
    const_iterator operator++(int) {
      auto old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.c_ == b.c_ && a.i_ == b.i_;
    }
    friend bool operator!=(const const_iterator& a, const const_iterator& b) {
      return !(a == b);
    }

  private:
    friend class chunked_map;
    const_iterator(const std::vector<std::vector<value_type>>* chunks, size_t c)
        : chunks_(chunks), c_(c) {}
    const std::vector<std::vector<value_type>>* chunks_;
    size_t c_;
    size_t i_ = 0;
  };

  [[nodiscard]] const_iterator begin() const { return {&chunks_, 0}; }
  [[nodiscard]] const_iterator end() const {
    return {&chunks_, chunks_.size()};
  }

private:
  static constexpr size_t max_chunk = 128;

  struct key_less {
    bool operator()(const value_type& v, const Key& k) const {
      return Compare{}(v.first, k);
    }
  };

  /// The chunk that holds `key` or would: the first whose last key is not
  /// below it, else the last.
  [[nodiscard]] size_t chunk_for(const Key& key) const {
    auto it = std::partition_point(chunks_.begin(), chunks_.end(),
                                   [&](const std::vector<value_type>& ch) {
                                     return less_(ch.back().first, key);
                                   });
    return it == chunks_.end() ? chunks_.size() - 1
                               : static_cast<size_t>(it - chunks_.begin());
  }

  Compare less_{};
  std::vector<std::vector<value_type>> chunks_; // none empty
  size_t size_ = 0;
};

} // namespace det::policy
