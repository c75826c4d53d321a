#include "cli/table_output.h"

#include <iostream>

#include "cli/cli_support.h"

namespace lsf::cli {

bool print_custom(const std::string& command, const char* format_variable,
                  const boost::program_options::variables_map& vm, const config::LsfConf& conf,
                  std::span<const FieldDef> fields, size_t count,
                  const std::function<std::string(size_t item, const Column&)>& value, const char* count_key) {
  auto spec = custom_format(vm, format_variable, conf);
  if (!spec) {
    if (vm.count("json")) {
      std::cerr << command << ": -json must be used with -o or " << format_variable << "\n";
      std::exit(255);
    }
    return false;
  }
  std::string error;
  auto format = parse_output_format(*spec, fields, &error);
  if (!format) {
    std::cerr << command << ": " << error << "\n";
    std::exit(255);
  }
  std::vector<Row> rows;
  for (size_t i = 0; i < count; ++i) {
    Row row;
    for (const auto& c : format->columns) row.push_back(value(i, c));
    rows.push_back(std::move(row));
  }
  if (vm.count("json"))
    print_json(std::cout, *format, fields, rows, command, count_key);
  else
    print_text(std::cout, *format, fields, rows, !vm.count("noheader"));
  return true;
}

}  // namespace lsf::cli
