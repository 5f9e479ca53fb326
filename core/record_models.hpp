#pragma once

// The model registry's deciders (core/records.hpp): its commands
// (core/commands_records.hpp) checked against the models and versions the
// state holds. A model is named by its name or its id in decimal; a
// refusal names the field or the missing model, version, workspace or
// checkpoint.

#include "core/records.hpp"

namespace det {

record_outcome decide_record(const state::cluster_state& s,
                             const model_create& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s, const model_edit& c,
                             int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const model_archive& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const model_delete& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const version_register& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const version_edit& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const version_delete& c, int64_t now_us);

} // namespace det
