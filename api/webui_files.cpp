#include "api/webui_files.hpp"

#include "http/grpc_error.hpp"
#include "messages/errc.hpp"
#include "util/log.hpp"
#include "util/text.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace det::api {

namespace fs = std::filesystem;

namespace {

constexpr size_t max_files = 2000;
constexpr uintmax_t max_bytes = uintmax_t{64} << 20;

std::string content_type_of(const std::string& name) {
  static const std::pair<const char*, const char*> types[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".map", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".woff2", "font/woff2"},
      {".txt", "text/plain; charset=utf-8"},
  };
  for (const auto& [ext, type] : types) {
    std::string_view e{ext};
    if (name.size() > e.size()
        && name.compare(name.size() - e.size(), e.size(), e) == 0)
      return type;
  }
  return "application/octet-stream";
}

/// A 301 to `to`: the app's root is /det/ (upstream's webuiBaseRoute).
http::http_response redirect_to(std::string to) {
  http::http_response r;
  r.status = 301;
  r.headers.set("Location", std::move(to));
  r.headers.set("Content-Type", "text/plain; charset=utf-8");
  r.body = "moved to /det/\n";
  return r;
}

} // namespace

caf::expected<webui_bundle> webui_bundle::load(const std::string& dir) {
  webui_bundle b;
  b.dir_ = dir;
  std::error_code ec;
  fs::path root{dir};
  if (!fs::is_regular_file(fs::symlink_status(root / "index.html", ec)))
    return make_error(errc::invalid_argument,
                      "webui: " + dir + " has no index.html (build it: make)");
  uintmax_t total = 0;
  fs::recursive_directory_iterator it{root, ec};
  if (ec)
    return make_error(errc::invalid_argument,
                      "webui: cannot read " + dir + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator{}; it.increment(ec)) {
    if (ec)
      return make_error(errc::invalid_argument,
                        "webui: cannot read " + dir + ": " + ec.message());
    auto st = it->symlink_status(ec);
    if (ec || !fs::is_regular_file(st))
      continue;
    auto rel = fs::relative(it->path(), root, ec).generic_string();
    if (ec || rel.empty() || util::starts_with(rel, ".."))
      continue;
    if (rel.front() == '.' || rel.find("/.") != std::string::npos)
      continue; // the build's stamp files and the like
    if (b.files_.size() >= max_files)
      return make_error(errc::invalid_argument,
                        "webui: " + dir + " has more than "
                            + std::to_string(max_files) + " files");
    std::ifstream in{it->path(), std::ios::binary};
    std::ostringstream body;
    body << in.rdbuf();
    if (!in && !in.eof())
      return make_error(errc::invalid_argument,
                        "webui: cannot read " + it->path().string());
    file f;
    f.body = body.str();
    total += f.body.size();
    if (total > max_bytes)
      return make_error(errc::invalid_argument,
                        "webui: " + dir + " holds more than 64 MiB");
    f.content_type = content_type_of(rel);
    f.immutable = util::starts_with(rel, "assets/");
    b.files_.emplace(std::move(rel), std::move(f));
  }
  return b;
}

http::http_response webui_bundle::serve(const file& f) const {
  http::http_response r;
  r.status = 200;
  r.body = f.body;
  r.headers.set("Content-Type", f.content_type);
  r.headers.set("X-Content-Type-Options", "nosniff");
  if (f.immutable) {
    r.headers.set("Cache-Control", "public, max-age=31536000, immutable");
  } else {
    // index.html names the current hashed files: always revalidated.
    r.headers.set("Cache-Control", "no-cache");
    r.headers.set("X-Frame-Options", "DENY");
    r.headers.set("Referrer-Policy", "no-referrer");
    r.headers.set("Content-Security-Policy",
                  "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                  "img-src 'self' data:; frame-ancestors 'none'");
  }
  return r;
}

http::http_response webui_bundle::answer(std::string_view path,
                                         std::string_view target) const {
  auto raw = target.substr(0, target.find_first_of("?#"));
  if (path == "/" || raw == webui_base)
    return redirect_to(std::string{webui_base} + "/");
  if (path != webui_base
      && !util::starts_with(path, std::string{webui_base} + "/"))
    return http::error_response(http::grpc_code::not_found,
                                "no route for GET " + std::string{path});
  auto name = path.substr(webui_base.size());
  while (!name.empty() && name.front() == '/')
    name.remove_prefix(1);
  if (!name.empty())
    if (auto f = files_.find(name); f != files_.end())
      return serve(f->second);
  auto last = name.substr(
      name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1);
  // A missing file (an old hashed asset, a typo) is a 404, not the app:
  // a script tag that gets HTML back fails in a confusing way.
  if (last.find('.') != std::string_view::npos
      || util::starts_with(name, "assets/"))
    return http::http_response::text(404, "not found\n");
  return serve(files_.find("index.html")->second);
}

std::string default_webui_dir(const std::string& exe_path) {
  std::error_code ec;
  auto bin = fs::path{exe_path}.parent_path();
  for (auto candidate :
       {bin / ".." / "share" / "determined" / "webui", bin / ".." / "webui"}) {
    if (fs::is_regular_file(candidate / "index.html", ec))
      return fs::weakly_canonical(candidate, ec).string();
  }
  return {};
}

void add_webui_routes(http::router& r,
                      std::shared_ptr<const webui_bundle> bundle) {
  r.set_fallback([bundle](http::http_request req, http::responder res) {
    res.send(bundle->answer(req.path, req.target));
  });
}

caf::error add_webui_from(http::router& r, std::string dir) {
  if (dir.empty()) {
    std::error_code ec;
    dir = default_webui_dir(
        std::filesystem::read_symlink("/proc/self/exe", ec).string());
  }
  if (dir.empty()) {
    log::warn() << "WebUI: no built bundle found (make builds it); "
                   "GET /det/ answers 404";
    return {};
  }
  auto bundle = webui_bundle::load(dir);
  if (!bundle)
    return std::move(bundle.error());
  log::info() << "WebUI: " << bundle->file_count() << " files from " << dir;
  add_webui_routes(r, std::make_shared<const webui_bundle>(std::move(*bundle)));
  return {};
}

} // namespace det::api
