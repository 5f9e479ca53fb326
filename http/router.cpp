#include "http/router.hpp"

#include "http/grpc_error.hpp"
#include "http/url.hpp"
#include "messages/errc.hpp"
#include "util/log.hpp"

#include <algorithm>
#include <exception>

namespace det::http {

router& router::add(std::string_view method, std::string_view pattern,
                    handler h) {
  auto fail = [&](std::string why) -> router& {
    if (!error_)
      error_ = make_error(errc::invalid_argument,
                          "route " + std::string{method} + " "
                              + std::string{pattern} + ": " + why);
    return *this;
  };
  if (pattern.empty() || pattern.front() != '/')
    return fail("pattern must start with '/'");
  if (!h)
    return fail("no handler");
  route r;
  r.method = std::string{method};
  r.pattern = normalize_path(pattern);
  auto parts = path_segments(r.pattern);
  for (size_t i = 0; i < parts.size(); ++i) {
    auto p = parts[i];
    segment s;
    if (p.front() == '{') {
      if (p.back() != '}' || p.size() < 3)
        return fail("bad parameter '" + std::string{p} + "'");
      s.param = true;
      auto name = p.substr(1, p.size() - 2);
      if (name.back() == '*') {
        if (i + 1 != parts.size())
          return fail("'{name*}' must be the last segment");
        s.rest = true;
        name.remove_suffix(1);
      }
      if (name.empty() || name.find_first_of("{}/") != std::string_view::npos)
        return fail("bad parameter '" + std::string{p} + "'");
      s.text = std::string{name};
    } else {
      if (p.find_first_of("{}") != std::string_view::npos)
        return fail("braces inside a literal segment");
      s.text = percent_decode(p, false);
    }
    r.segments.push_back(std::move(s));
  }
  for (const auto& other : routes_)
    if (other.method == r.method && other.pattern == r.pattern)
      return fail("registered twice");
  r.h = std::move(h);
  size_t at = 0;
  for (const auto& seg : r.segments) {
    if (seg.rest)
      break;
    size_t next = seg.param ? nodes_[at].param : 0;
    if (!seg.param)
      if (auto c = nodes_[at].literal.find(seg.text);
          c != nodes_[at].literal.end())
        next = c->second;
    if (next == 0) {
      next = nodes_.size();
      nodes_.emplace_back();
      if (seg.param)
        nodes_[at].param = next;
      else
        nodes_[at].literal.emplace(seg.text, next);
    }
    at = next;
  }
  auto& leaf = nodes_[at];
  (!r.segments.empty() && r.segments.back().rest ? leaf.rests : leaf.ends)
      .push_back(routes_.size());
  routes_.push_back(std::move(r));
  return *this;
}

router& router::get(std::string_view pattern, handler h) {
  return add("GET", pattern, std::move(h));
}
router& router::post(std::string_view pattern, handler h) {
  return add("POST", pattern, std::move(h));
}
router& router::put(std::string_view pattern, handler h) {
  return add("PUT", pattern, std::move(h));
}
router& router::patch(std::string_view pattern, handler h) {
  return add("PATCH", pattern, std::move(h));
}
router& router::del(std::string_view pattern, handler h) {
  return add("DELETE", pattern, std::move(h));
}

std::vector<std::pair<std::string, std::string>> router::table() const {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(routes_.size());
  for (const auto& r : routes_)
    out.emplace_back(r.method, r.pattern);
  return out;
}

caf::error router::error() const {
  return error_;
}

long long
router::match_route(const route& r, const std::vector<std::string>& segs,
                    std::vector<std::pair<std::string, std::string>>* params) {
  // Score: each literal segment counts more than any number of parameter
  // positions after it, so the leftmost literal decides ties.
  long long score = 0;
  size_t i = 0;
  for (; i < r.segments.size(); ++i) {
    const auto& s = r.segments[i];
    if (s.rest) {
      if (params) {
        std::string rest;
        for (size_t j = i; j < segs.size(); ++j) {
          if (j > i)
            rest += '/';
          rest += segs[j];
        }
        params->emplace_back(s.text, std::move(rest));
      }
      return score * 2;
    }
    if (i >= segs.size())
      return -1;
    if (s.param) {
      if (params)
        params->emplace_back(s.text, segs[i]);
      score = score * 4 + 1;
    } else if (s.text == segs[i]) {
      score = score * 4 + 3;
    } else {
      return -1;
    }
  }
  return i == segs.size() ? score * 2 + 1 : -1;
}

namespace {

std::vector<std::string> decoded_segments(std::string_view path) {
  std::vector<std::string> segs;
  for (auto p : path_segments(path))
    segs.push_back(percent_decode(p, false));
  return segs;
}

} // namespace

void router::fitting(size_t at, const std::vector<std::string>& segs,
                     size_t depth, std::vector<size_t>& out) const {
  const auto& n = nodes_[at];
  out.insert(out.end(), n.rests.begin(), n.rests.end());
  if (depth == segs.size()) {
    out.insert(out.end(), n.ends.begin(), n.ends.end());
    return;
  }
  if (auto c = n.literal.find(segs[depth]); c != n.literal.end())
    fitting(c->second, segs, depth + 1, out);
  if (n.param != 0)
    fitting(n.param, segs, depth + 1, out);
}

router::match_result router::pick(std::string_view method,
                                  const std::vector<std::string>& segs,
                                  const std::vector<size_t>& candidates) const {
  match_result out;
  long long best = -1;
  const route* best_route = nullptr;
  for (auto i : candidates) {
    const auto& r = routes_[i];
    long long score = match_route(r, segs, nullptr);
    if (score < 0)
      continue;
    out.path_known = true;
    if (std::find(out.allow.begin(), out.allow.end(), r.method)
        == out.allow.end())
      out.allow.push_back(r.method);
    if (r.method == method && score > best) {
      best = score;
      best_route = &r;
    }
  }
  if (best_route) {
    out.h = &best_route->h;
    match_route(*best_route, segs, &out.params);
  }
  return out;
}

router::match_result router::match(std::string_view method,
                                   std::string_view path) const {
  auto segs = decoded_segments(path);
  std::vector<size_t> candidates;
  fitting(0, segs, 0, candidates);
  // Registration order, as the scan meets them: it decides ties and the
  // order of the allowed methods.
  std::sort(candidates.begin(), candidates.end());
  return pick(method, segs, candidates);
}

router::match_result router::match_by_scan(std::string_view method,
                                           std::string_view path) const {
  std::vector<size_t> all(routes_.size());
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  return pick(method, decoded_segments(path), all);
}

router& router::set_guard(request_guard g) {
  guard_ = std::move(g);
  return *this;
}

router& router::set_fallback(handler h) {
  fallback_ = std::move(h);
  return *this;
}

void router::dispatch(http_request req, responder res) const {
  auto m = match(req.method, req.path);
  if (!m.h) {
    if (!m.path_known && fallback_ && req.method == "GET") {
      try {
        fallback_(std::move(req), res);
      } catch (const std::exception& e) {
        res.send(error_response(grpc_code::internal,
                                std::string{"handler failed: "} + e.what()));
      }
      return;
    }
    if (!m.path_known) {
      // Loud on purpose: a client calling a path we do not serve is how a
      // missing endpoint shows up.
      log::warn() << "NO ROUTE for " << req.method << " " << req.path
                  << " (answered 404)";
      res.send(error_response(grpc_code::not_found,
                              "no route for " + req.method + " " + req.path));
      return;
    }
    auto r = error_response(
        grpc_code::unimplemented,
        "method " + req.method + " not allowed for " + req.path, 405);
    std::string allow;
    for (const auto& a : m.allow)
      allow += (allow.empty() ? "" : ", ") + a;
    r.headers.set("Allow", allow);
    res.send(std::move(r));
    return;
  }
  req.params = std::move(m.params);
  try {
    if (guard_)
      guard_(std::move(req), res, *m.h);
    else
      (*m.h)(std::move(req), res);
  } catch (const std::exception& e) {
    res.send(error_response(grpc_code::internal,
                            std::string{"handler failed: "} + e.what()));
  } catch (...) {
    res.send(error_response(grpc_code::internal, "handler failed"));
  }
}

} // namespace det::http
