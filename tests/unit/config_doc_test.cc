// docs/config.md is generated from the parameter catalogue; this keeps them equal.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "libconfig/param_catalog.h"

TEST(ConfigDoc, MatchesCatalog) {
  std::filesystem::path doc = std::filesystem::path(LSFSCHED_SOURCE_DIR) / "docs" / "config.md";
  std::string expected = lsf::config::render_config_doc();
  if (std::getenv("UPDATE_GOLDEN")) std::ofstream(doc) << expected;
  std::ifstream in(doc);
  std::stringstream actual;
  actual << in.rdbuf();
  EXPECT_EQ(actual.str(), expected) << "docs/config.md is stale; regenerate it with UPDATE_GOLDEN=1 "
                                       "build/tests/unit/unit_tests --gtest_filter=ConfigDoc.*";
}

TEST(ConfigDoc, EveryKeywordIsKnownOnce) {
  auto catalog = lsf::config::param_catalog();
  for (size_t i = 0; i < catalog.size(); ++i) {
    EXPECT_TRUE(lsf::config::find_section(catalog[i].file, catalog[i].section) || catalog[i].file == "lsf.conf")
        << catalog[i].file << " " << catalog[i].section;
    for (size_t j = i + 1; j < catalog.size(); ++j)
      EXPECT_FALSE(catalog[i].file == catalog[j].file && catalog[i].section == catalog[j].section &&
                   catalog[i].name == catalog[j].name)
          << "duplicate " << catalog[i].name;
  }
}
