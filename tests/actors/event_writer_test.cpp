#define CAF_SUITE event_writer
#define FAIL(x) CAF_FAIL(x)

#include "actors/event_writer.hpp"

#include "messages/errc.hpp"
#include "store/memory_event_store.hpp"

#include <caf/scoped_actor.hpp>
#include <caf/test/dsl.hpp>

using namespace det;

namespace {

append_request one(const std::string& stream,
                   std::optional<int64_t> expect = std::nullopt) {
  append_request r{{{stream, {"e", 1, "{}"}}}, {}};
  if (expect)
    r.expected.push_back({stream, expect});
  return r;
}

struct fixture : test_coordinator_fixture<> {
  memory_event_store store;
  event_writer_actor writer;
  fixture() {
    writer = spawn_event_writer(sys, store, writer_mode::synchronous);
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(event_writer_tests, fixture)

CAF_TEST(an append is answered with its positions after it is in the log) {
  auto r = request<append_result>(writer, append_atom::value, one("trial/1"));
  CAF_CHECK_EQUAL(r.first_position, 1);
  CAF_CHECK_EQUAL(r.last_position, 1);
  auto last = store.last_position();
  CAF_REQUIRE(last);
  CAF_CHECK_EQUAL(*last, 1);
}

CAF_TEST(a conflicting append is answered with the conflict error) {
  CAF_REQUIRE(store.append(one("trial/1")));
  auto h = self->request(writer, caf::infinite, append_atom::value,
                         one("trial/1", 0));
  run();
  h.receive([](const append_result&) { CAF_FAIL("expected a conflict"); },
            [](const caf::error& err) {
              CAF_CHECK_EQUAL(code_of(err), errc::conflict);
            });
  auto last = store.last_position();
  CAF_REQUIRE(last);
  CAF_CHECK_EQUAL(*last, 1);
}

CAF_TEST_FIXTURE_SCOPE_END()

CAF_TEST(in group commit mode many requesters are all acknowledged) {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  memory_event_store store;
  auto writer = spawn_event_writer(sys, store, writer_mode::group_commit);
  caf::scoped_actor self{sys};
  int acked = 0;
  for (int i = 0; i < 100; ++i)
    self->request(writer, std::chrono::seconds(30), append_atom::value,
                  one("s/" + std::to_string(i % 7)))
        .receive(
            [&](const append_result& r) {
              CAF_CHECK_EQUAL(r.first_position, i + 1);
              ++acked;
            },
            [&](const caf::error& err) { CAF_FAIL(render(err)); });
  CAF_CHECK_EQUAL(acked, 100);
  self->send_exit(writer, caf::exit_reason::user_shutdown);
}
