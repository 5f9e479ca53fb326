#pragma once

// The WebUI's files: the bundle `make` builds from webui/ (Vite's output,
// index.html plus content-hashed files under assets/), read into memory
// once at start and served by the router's fallback (router::set_fallback),
// without a session: the app signs in through the API itself.
//
// Only the files found when the bundle was loaded are served, looked up by
// exact name, so no request path can reach outside the folder. The app
// lives under /det/ as upstream's does (webui_base; its bundle is built
// with that base, webui/vite.config.ts): "/det/assets/x.js" is the file
// assets/x.js, a GET for any other path under /det/ that does not look
// like a file ("/det/experiments/7") answers index.html for the app's own
// routing, "/" and "/det" redirect (301) to "/det/". Every other path no
// route knows (an API or legacy path, a typo) is the API's JSON 404
// naming it, never HTML: a client that asked for JSON gets JSON.
// Immutable after load: answer() may run on any thread.

#include "http/http_message.hpp"
#include "http/router.hpp"

#include <caf/expected.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace det::api {

/// Where the app lives: every page and file is under "/det/".
inline constexpr std::string_view webui_base = "/det";

class webui_bundle {
public:
  /// Reads every regular file under `dir` (symbolic links are skipped).
  /// Fails (errc::invalid_argument, naming the folder) when it has no
  /// index.html, more than 2,000 files or more than 64 MiB.
  [[nodiscard]] static caf::expected<webui_bundle> load(const std::string& dir);

  /// The response to GET `path` (the request path, not decoded, its
  /// trailing '/' removed); `target` is the raw request target, which
  /// tells "/det" from "/det/".
  [[nodiscard]] http::http_response answer(std::string_view path,
                                           std::string_view target = {}) const;

  [[nodiscard]] size_t file_count() const { return files_.size(); }
  [[nodiscard]] const std::string& folder() const { return dir_; }

private:
  struct file {
    std::string body;
    std::string content_type;
    bool immutable = false; ///< under assets/: named by its content's hash
  };
  http::http_response serve(const file& f) const;

  std::string dir_;
  std::map<std::string, file, std::less<>> files_;
};

/// The bundle folder det-master serves when --webui-dir is not given: the
/// first of <exe_dir>/../share/determined/webui (cmake --install, the
/// .deb) and <exe_dir>/../webui (the build tree, where `make` puts it)
/// that has an index.html; "" when neither has.
[[nodiscard]] std::string default_webui_dir(const std::string& exe_path);

/// Serves `bundle` as the router's fallback (see above).
void add_webui_routes(http::router& r,
                      std::shared_ptr<const webui_bundle> bundle);

/// Serves the bundle in `dir` (empty: default_webui_dir of this process's
/// executable). No bundle there is only a warning in the master's log
/// (GET /det/ answers 404); a bundle that cannot be read is the error.
[[nodiscard]] caf::error add_webui_from(http::router& r, std::string dir);

} // namespace det::api
