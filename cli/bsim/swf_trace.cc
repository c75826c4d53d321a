#include "cli/bsim/swf_trace.h"

#include <zlib.h>

#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace lsf::bsim {
namespace {

// gzread reads plain files too, so one reader serves .swf and .swf.gz.
struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using Gz = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

bool read_line(gzFile in, std::string& line) {
  line.clear();
  char buf[4096];
  while (gzgets(in, buf, sizeof buf)) {
    line += buf;
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return true;
    }
  }
  return !line.empty();
}

// ";  MaxProcs: 128" -> 128
std::optional<std::int64_t> header_value(const std::string& line, const std::string& key) {
  auto at = line.find(key + ":");
  if (at == std::string::npos) return std::nullopt;
  try {
    return std::stoll(line.substr(at + key.size() + 1));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

SwfTrace read_swf(const std::filesystem::path& path, std::size_t limit) {
  Gz in(gzopen(path.c_str(), "rb"));
  if (!in) throw std::runtime_error(path.string() + ": cannot open");
  SwfTrace trace;
  std::string line;
  std::size_t number = 0;
  while (read_line(in.get(), line)) {
    ++number;
    auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (line[first] == ';') {
      if (auto v = header_value(line, "MaxProcs")) trace.max_procs = v;
      if (auto v = header_value(line, "MaxNodes")) trace.max_nodes = v;
      if (auto v = header_value(line, "UnixStartTime")) trace.unix_start_time = *v;
      continue;
    }
    // strtod, not a stream per line, which would make reading a tenth of a whole-trace run.
    std::vector<double> f;
    f.reserve(18);
    bool words = false;  // something that is not a number
    for (const char* p = line.c_str();;) {
      while (*p == ' ' || *p == '\t') ++p;
      if (!*p) break;
      char* end = nullptr;
      double v = std::strtod(p, &end);
      if (end == p) {
        words = true;
        break;
      }
      f.push_back(v);
      p = end;
    }
    if (f.size() != 18 || words)
      throw std::runtime_error(path.string() + ":" + std::to_string(number) + ": a job line has 18 numbers, this has " +
                               std::to_string(f.size()));
    auto n = [&](size_t i) { return static_cast<std::int64_t>(f[i - 1]); };
    SwfJob j;
    j.id = n(1);
    j.submit = n(2);
    j.wait = n(3);
    j.run = n(4);
    j.alloc_procs = n(5);
    j.req_procs = n(8);
    j.req_time = n(9);
    j.status = n(11);
    j.user = n(12);
    j.group = n(13);
    j.queue = n(15);
    j.partition = n(16);
    j.line = number;
    trace.jobs.push_back(j);
    if (limit && trace.jobs.size() >= limit) break;
  }
  int err = 0;
  const char* message = gzerror(in.get(), &err);
  if (err != Z_OK && err != Z_STREAM_END) throw std::runtime_error(path.string() + ": " + message);
  return trace;
}

std::string swf_line(const SwfJob& j) {
  std::ostringstream out;
  out << j.id << ' ' << j.submit << ' ' << j.wait << ' ' << j.run << ' ' << j.alloc_procs << " -1 -1 " << j.req_procs
      << ' ' << j.req_time << " -1 " << j.status << ' ' << j.user << ' ' << j.group << " -1 " << j.queue << ' '
      << j.partition << " -1 -1";
  return out.str();
}

}  // namespace lsf::bsim
