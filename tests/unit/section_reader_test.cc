// Sections in both layouts, and the mistakes LSF would silently swallow.
#include <gtest/gtest.h>

#include "libconfig/section_reader.h"

using namespace lsf::config;

namespace {

SectionFile read(const std::string& text, Diagnostics& d) {
  return read_sections(preprocess_config_text(text, "lsb.hosts", "/", {3, 12, 0}, d), d);
}

TEST(Sections, TableLayoutWithDefaultsAndParentheses) {
  Diagnostics d;
  auto f = read("Begin Host\n"
                "HOST_NAME     MXJ JL/U   r1m    pg    DISPATCH_WINDOW  # Keywords\n"
                "host0        1    1   3.5/4.5  15/   ()\t\t   # Example\n"
                "host1       ()   -     3.5  15/18   (5:19:00-1:8:30 20:00-8:30)\n"
                "End Host\n",
                d);
  ASSERT_EQ(f.sections.size(), 1u);
  const Section& s = f.sections[0];
  EXPECT_TRUE(s.table);
  EXPECT_EQ(s.columns, (std::vector<std::string>{"HOST_NAME", "MXJ", "JL/U", "R1M", "PG", "DISPATCH_WINDOW"}));
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(s.cell(s.rows[0], "pg"), "15/");
  EXPECT_FALSE(s.cell(s.rows[0], "DISPATCH_WINDOW"));
  EXPECT_FALSE(s.cell(s.rows[1], "MXJ"));
  EXPECT_FALSE(s.cell(s.rows[1], "JL/U"));
  EXPECT_EQ(s.cell(s.rows[1], "DISPATCH_WINDOW"), "5:19:00-1:8:30 20:00-8:30");
  EXPECT_EQ(s.rows[1].where.line, 4);
  EXPECT_FALSE(d.has_errors()) << d.to_string();
}

TEST(Sections, KeyValueLayout) {
  Diagnostics d;
  auto f = read("Begin Queue\nQUEUE_NAME = q\nPRIORITY=5\nPRIORITY = 6\nEnd Queue\n", d);
  const Section& s = f.sections[0];
  EXPECT_FALSE(s.table);
  ASSERT_EQ(s.entries.size(), 3u);
  EXPECT_EQ(s.entries[1].key, "PRIORITY");
  EXPECT_EQ(s.entries[1].value, "5");
  EXPECT_EQ(d.to_string(),
            "lsb.hosts:4: warning: section Queue: PRIORITY is set again (first at line 3); the later value is used\n");
}

TEST(Sections, StructuralErrorsNameTheLine) {
  Diagnostics d;
  read("stray line\n"
       "Begin Queue\nQUEUE_NAME = a\nnot a key value\nEnd Queue\n"
       "End Host\n"
       "Begin Host\nHOST_NAME MXJ\nh1 1 2\nh2\n(h3\n",
       d);
  EXPECT_EQ(d.to_string(),
            "lsb.hosts:1: \"stray line\" is outside any Begin/End section\n"
            "lsb.hosts:4: section Queue: expected KEY = value, found \"not a key value\"\n"
            "lsb.hosts:6: End Host without a matching Begin\n"
            "lsb.hosts:9: section Host: row has 3 values but the keyword line names 2 columns\n"
            "lsb.hosts:10: warning: section Host: row has 1 of 2 values; the missing ones take their defaults\n"
            "lsb.hosts:11: section Host: missing ')'\n"
            "lsb.hosts:11: warning: section Host: row has 1 of 2 values; the missing ones take their defaults\n"
            "lsb.hosts:7: Begin Host has no matching End Host\n");
}

}  // namespace
