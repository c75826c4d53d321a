// The dashboard's page, script and style sheet (daemons/mbatchd/dashboard/), compiled
// into mbatchd by dashboard/embed.cmake: plain HTML, CSS and JavaScript with no build
// step and no library, served as they are.
#pragma once

#include <span>
#include <string_view>

namespace lsf::mbd {

struct DashboardAsset {
  std::string_view path;  // "/", "/dashboard.js", ...
  std::string_view content_type;
  std::string_view body;
};

std::span<const DashboardAsset> dashboard_assets();

}  // namespace lsf::mbd
