#include "k8s/watch.hpp"

#include "util/backoff.hpp"
#include "util/text.hpp"

#include <random>
#include <thread>

namespace det::k8s {

using nlohmann::json;

void line_splitter::feed(std::string_view chunk,
                         const std::function<void(std::string_view)>& fn) {
  while (!chunk.empty()) {
    auto nl = chunk.find('\n');
    auto part = chunk.substr(0, nl);
    if (!skipping_) {
      if (buf_.size() + part.size() > max_) {
        buf_.clear();
        skipping_ = true;
        ++dropped_;
      } else {
        buf_.append(part);
      }
    }
    if (nl == std::string_view::npos)
      return;
    if (!skipping_) {
      std::string_view line = buf_;
      if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
      fn(line);
    }
    buf_.clear();
    skipping_ = false;
    chunk.remove_prefix(nl + 1);
  }
}

std::optional<watch_event> parse_watch_line(std::string_view line) {
  auto j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return std::nullopt;
  auto t = j.find("type");
  auto o = j.find("object");
  if (t == j.end() || !t->is_string() || o == j.end() || !o->is_object())
    return std::nullopt;
  return watch_event{t->get<std::string>(), std::move(*o)};
}

watch_cursor::next watch_cursor::on_event(const watch_event& ev) {
  if (ev.type == "ERROR")
    return next::relist;
  auto rv =
      ev.object.value("/metadata/resourceVersion"_json_pointer, std::string{});
  if (ev.type == "BOOKMARK") {
    if (!rv.empty())
      rv_ = rv;
    return next::skip;
  }
  if (ev.type != "ADDED" && ev.type != "MODIFIED" && ev.type != "DELETED")
    return next::relist;
  if (!rv.empty())
    rv_ = rv;
  return next::deliver;
}

std::string watch_path(const kind_path& k, const std::string& ns,
                       const std::string& selector, const std::string& rv,
                       int timeout_seconds) {
  std::string p = k.collection(ns) + "?watch=1&allowWatchBookmarks=true"
                  + "&timeoutSeconds=" + std::to_string(timeout_seconds);
  if (!rv.empty())
    p += "&resourceVersion=" + util::percent_encode(rv);
  if (!selector.empty())
    p += "&labelSelector=" + util::percent_encode(selector);
  return p;
}

namespace {

void pause(std::chrono::milliseconds d, const std::atomic<bool>& stop) {
  auto end = std::chrono::steady_clock::now() + d;
  while (!stop.load() && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::min<int64_t>(100, d.count())));
}

void note(const watch_handlers& h, const std::string& text) {
  if (h.on_note)
    h.on_note(text);
}

} // namespace

void watch_loop(resources& res, const kind_path& k, const std::string& ns,
                const watch_options& opts, const watch_handlers& h,
                const std::atomic<bool>& stop) {
  std::mt19937 gen{std::random_device{}()};
  int failures = 0;
  int lists = 0;
  bool need_list = true;
  watch_cursor cur;
  auto back_off = [&] {
    ++failures;
    double ms = util::backoff_delay(
        static_cast<double>(opts.base_delay.count()), 2.0,
        static_cast<double>(opts.max_delay.count()), failures, 0.5,
        std::uniform_real_distribution<double>(0, 1)(gen));
    pause(std::chrono::milliseconds(static_cast<int64_t>(ms)), stop);
  };
  while (!stop.load()) {
    if (need_list) {
      if (opts.max_lists > 0 && lists >= opts.max_lists)
        return;
      ++lists;
      auto l = res.list(k, ns, opts.label_selector);
      if (!l) {
        note(h, "list " + k.plural + ": " + render(l.error()));
        back_off();
        continue;
      }
      cur.listed(l->resource_version);
      if (h.on_sync)
        h.on_sync(l->items);
      need_list = false;
    }
    line_splitter lines;
    std::string err_body;
    auto path = watch_path(k, ns, opts.label_selector, cur.resource_version(),
                           opts.timeout_seconds);
    auto status = res.client().stream(
        path,
        [&](std::string_view chunk) {
          lines.feed(chunk, [&](std::string_view line) {
            if (need_list)
              return;
            auto ev = parse_watch_line(line);
            if (!ev)
              return;
            switch (cur.on_event(*ev)) {
            case watch_cursor::next::deliver:
              failures = 0;
              if (h.on_event)
                h.on_event(*ev);
              break;
            case watch_cursor::next::skip:
              failures = 0;
              break;
            case watch_cursor::next::relist:
              note(h, "relist " + k.plural + ": "
                          + ev->object.value("message", std::string{"ERROR"}));
              need_list = true;
              break;
            }
          });
          return !need_list;
        },
        stop, std::chrono::seconds(opts.timeout_seconds + 30), &err_body);
    if (!status) {
      note(h, "watch " + k.plural + ": " + render(status.error()));
      back_off();
    } else if (*status == 410) {
      note(h, "relist " + k.plural + ": 410 Gone");
      need_list = true;
    } else if (*status < 200 || *status >= 300) {
      note(h, "watch " + k.plural + ": HTTP " + std::to_string(*status) + " "
                  + err_body.substr(0, 200));
      need_list = true;
      back_off();
    }
  }
}

caf::error follow_pod_log(api_client& client, const std::string& ns,
                          const std::string& pod, const std::string& container,
                          const std::function<void(std::string_view)>& on_line,
                          const std::atomic<bool>& stop, int since_seconds) {
  std::string path = pods_kind().item(ns, pod) + "/log?follow=true"
                     + "&container=" + util::percent_encode(container);
  if (since_seconds > 0)
    path += "&sinceSeconds=" + std::to_string(since_seconds);
  line_splitter lines{1u << 20};
  std::string err_body;
  auto status = client.stream(
      path,
      [&](std::string_view chunk) {
        lines.feed(chunk, on_line);
        return true;
      },
      stop, std::chrono::milliseconds(0), &err_body);
  if (!status)
    return status.error();
  if (*status < 200 || *status >= 300)
    return make_error(*status == 404 ? errc::not_found : errc::remote_error,
                      "log of pod " + pod + ": HTTP " + std::to_string(*status)
                          + " " + err_body.substr(0, 300));
  return {};
}

} // namespace det::k8s
