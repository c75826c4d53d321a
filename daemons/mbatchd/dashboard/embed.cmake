# Writes the dashboard's files into a C++ source as raw string literals, so that mbatchd
# serves them without reading files at run time. Run by daemons/mbatchd/CMakeLists.txt
# with DIR (this directory) and OUT (the source to write).
set(text "// Generated from daemons/mbatchd/dashboard by embed.cmake; do not edit.\n")
string(APPEND text "#include \"daemons/mbatchd/dashboard_assets.h\"\n\nnamespace lsf::mbd {\nnamespace {\n")
set(entries "")
set(n 0)
foreach(pair "index.html|/|text/html; charset=utf-8" "dashboard.js|/dashboard.js|text/javascript; charset=utf-8"
        "dashboard.css|/dashboard.css|text/css; charset=utf-8")
  string(REPLACE "|" ";" parts "${pair}")
  list(GET parts 0 file)
  list(GET parts 1 path)
  list(GET parts 2 type)
  file(READ "${DIR}/${file}" body)
  string(APPEND text "const char kAsset${n}[] = R\"LSFDASH(${body})LSFDASH\";\n")
  string(APPEND entries "    {\"${path}\", \"${type}\", kAsset${n}},\n")
  math(EXPR n "${n} + 1")
endforeach()
string(APPEND text "const DashboardAsset kAssets[] = {\n${entries}};\n\n}  // namespace\n\n")
string(APPEND text "std::span<const DashboardAsset> dashboard_assets() { return kAssets; }\n\n}  // namespace lsf::mbd\n")
file(WRITE "${OUT}.tmp" "${text}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
