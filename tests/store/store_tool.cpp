// A helper process for the multi-process store tests (not a product
// program):
//   store_tool hold URL        take the writer lock, print "locked", then
//                              hold it until stdin closes
//   store_tool try URL         try the lock once (fail_fast); print "locked"
//                              or the error, exit 0 / 3
//   store_tool wait URL        take the lock, waiting; print what it was
//                              told while waiting, then "locked"
//   store_tool append-loop URL CALLERS
//                              CALLERS threads append through one
//                              group_appender forever; after each durable
//                              acknowledgement print
//                              "ack FIRST LAST STREAM VERSION"

#include "messages/errc.hpp"
#include "store/group_appender.hpp"
#include "store/pg_event_store.hpp"

#include <cstdio>
#include <iostream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace det;

namespace {

std::mutex out_mtx;

void say(const std::string& line) {
  std::lock_guard<std::mutex> guard{out_mtx};
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

int append_loop(event_store& store, int callers) {
  // Versions first: once the appender runs, it alone uses the store.
  std::vector<int64_t> versions;
  for (int c = 0; c < callers; ++c) {
    auto v = store.stream_version("caller/" + std::to_string(c));
    if (!v) {
      say("error " + render(v.error()));
      return 1;
    }
    versions.push_back(*v);
  }
  group_appender app{store};
  std::vector<std::thread> threads;
  for (int c = 0; c < callers; ++c) {
    auto stream = "caller/" + std::to_string(c);
    threads.emplace_back([&app, stream, version = versions[c], c]() mutable {
      std::minstd_rand rng(static_cast<unsigned>(c) * 7919u + 1u);
      for (;;) {
        auto n = 1 + rng() % 3;
        append_request req;
        for (unsigned i = 0; i < n; ++i)
          req.events.push_back({stream,
                                {"tick", 1,
                                 "{\"caller\":" + std::to_string(c) + ",\"n\":"
                                     + std::to_string(version + i + 1) + "}"}});
        req.expected.push_back({stream, version});
        auto res = app.submit(std::move(req)).get();
        if (!res) {
          say("error " + render(res.error()));
          std::_Exit(1);
        }
        version += n;
        say("ack " + std::to_string(res->first_position) + " "
            + std::to_string(res->last_position) + " " + stream + " "
            + std::to_string(version));
      }
    });
  }
  for (auto& t : threads)
    t.join();
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: store_tool hold|try|wait|append-loop URL [CALLERS]\n";
    return 2;
  }
  std::string cmd = argv[1];
  pg_store_options o;
  o.url = argv[2];
  o.lock = cmd == "try" ? lock_policy::fail_fast : lock_policy::wait;
  o.on_lock_wait = [](const std::string& msg) { say("waiting: " + msg); };
  auto store = pg_event_store::open(o);
  if (!store) {
    say(render(store.error()));
    return code_of(store.error()) == errc::lock_held ? 3 : 1;
  }
  if (cmd == "append-loop")
    return append_loop(**store, argc > 3 ? std::stoi(argv[3]) : 8);
  say("locked");
  if (cmd == "hold") {
    std::string line;
    while (std::getline(std::cin, line)) {
    }
  }
  return 0;
}
