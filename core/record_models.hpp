#pragma once

// The model registry's record commands: decide_record() (core/records.hpp)
// hands ops starting with "model." or "version." to decide_models().

#include "core/records.hpp"

namespace det {

/// decide_record() for the model registry: model.create, model.edit,
/// model.archive, model.delete, version.register, version.edit and
/// version.delete. A refusal names the field or the missing model.
record_outcome decide_models(const state::cluster_state& s,
                             const record_command& c, int64_t now_us);

} // namespace det
