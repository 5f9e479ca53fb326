#pragma once

// Removes the files matching a checkpoint_file_removal's globs from one
// checkpoint (core/checkpoint_files.hpp) and lists what is left: shared_fs
// walks <host_path>/<storage_path>/<uuid> (never following a symbolic link
// out of it), s3 lists <prefix>/<uuid>/ and deletes the matching keys with
// batched DeleteObjects. Paths are matched relative to the checkpoint's
// folder; a checkpoint already gone leaves nothing. Blocking: run it off
// actor threads. Other storage types fail with errc::invalid_argument.

#include "aws/environment.hpp"
#include "core/checkpoint_files.hpp"

namespace det {

checkpoint_remove_files_fn
make_checkpoint_file_remover(aws::env_lookup env = aws::process_environment());

} // namespace det
