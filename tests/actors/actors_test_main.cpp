// The CAF test runner's main for the actor suites.
#define CAF_TEST_NO_MAIN_SUITE
#include <caf/test/unit_test_impl.hpp>
