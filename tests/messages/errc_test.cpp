#include "messages/errc.hpp"

#include <gtest/gtest.h>

namespace det {

TEST(errc, a_det_error_renders_its_code_name_and_message) {
  auto err = make_error(errc::conflict, "stream trial/1 is at version 3");
  EXPECT_EQ(code_of(err), errc::conflict);
  EXPECT_EQ(render(err), "conflict: stream trial/1 is at version 3");
}

TEST(errc, no_error_has_code_none) {
  EXPECT_EQ(code_of(caf::error{}), errc::none);
  EXPECT_EQ(render(caf::error{}), "no error");
}

} // namespace det
