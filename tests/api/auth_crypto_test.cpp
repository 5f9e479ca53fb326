#include "api/auth_crypto.hpp"

#include <gtest/gtest.h>

using namespace det::api;

TEST(auth_crypto, client_hash_is_what_det_0_38_1_sends) {
  // python3: hashlib.sha512(("GubPEmmotfiK9TMD6Zdw" + "hunter2").encode())
  EXPECT_EQ(client_hash("hunter2"),
            "44c4c5de661c31d00839de32ed6831fd52dcfc39421a7336c3d9bef64ee5f5f1"
            "e2157c24ce74d9c56d1070328bfb904203a374914221ac7efac462a284fbc4af");
  EXPECT_EQ(client_hash(""), "");
}

TEST(auth_crypto, a_token_is_kept_as_its_sha256) {
  // python3: hashlib.sha256(b"abc").hexdigest(); twice: the fetched
  // algorithm is reused.
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(token_hash("abc"), "ba7816bf8f01cfea414140de5dae2223"
                                 "b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(token_hash(""), "e3b0c44298fc1c149afbf4c8996fb924"
                            "27ae41e4649b934ca495991b7852b855");
}

TEST(auth_crypto, a_stored_password_opens_only_with_its_client_hash) {
  auto stored = store_password(client_hash("hunter2"));
  EXPECT_EQ(stored.rfind("pbkdf2-sha256$", 0), 0u) << stored;
  EXPECT_EQ(stored.find(client_hash("hunter2")), std::string::npos);
  EXPECT_TRUE(password_matches(stored, client_hash("hunter2")));
  EXPECT_FALSE(password_matches(stored, client_hash("hunter3")));
  EXPECT_FALSE(password_matches(stored, ""));
  // Two stores of one password differ (fresh salt).
  EXPECT_NE(stored, store_password(client_hash("hunter2")));
}

TEST(auth_crypto, a_blank_password_opens_only_with_a_blank_hash) {
  EXPECT_EQ(store_password(""), "");
  EXPECT_TRUE(password_matches("", ""));
  EXPECT_FALSE(password_matches("", client_hash("x")));
  EXPECT_FALSE(password_matches("garbage$", "abc"));
}

TEST(auth_crypto, tokens_are_random_and_kept_only_as_hashes) {
  auto a = new_token();
  EXPECT_EQ(a.size(), 64u);
  EXPECT_NE(a, new_token());
  EXPECT_EQ(token_hash(a).size(), 64u);
  EXPECT_NE(token_hash(a), a);
  EXPECT_EQ(token_hash(a), token_hash(a));
}
