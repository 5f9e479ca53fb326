#pragma once

// Internal to searcher.cpp: constructors of the concrete search methods.

#include "policy/searcher.hpp"

namespace det::policy::detail {

/// single, grid and random: a fixed list of trials, each trained to
/// max_length. `points` holds the grid (empty for single and random).
std::unique_ptr<searcher> make_fixed_search(const searcher_config& config,
                                            const hparam_space& space,
                                            uint64_t seed,
                                            std::vector<nlohmann::json> points);

/// adaptive_asha: a tournament of asynchronous successive-halving brackets.
std::unique_ptr<searcher> make_asha_search(const searcher_config& config,
                                           const hparam_space& space,
                                           uint64_t seed);

} // namespace det::policy::detail
