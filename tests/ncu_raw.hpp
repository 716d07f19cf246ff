// Nsight Compute's raw CSV (`ncu --csv --print-units base --metrics ...`) as the hardware
// corpus tests read it, gzip-compressed: chunks of launches concatenated, each chunk with
// its "==" lines and a header; one row per metric, the rows of one launch sharing an ID.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace bankcheck::test {

struct NcuLaunch {
  std::string kernel;
  std::map<std::string, double> metrics;  // metric name -> value
};

// One CSV line's fields; quotes group, and are dropped.
inline std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      fields.push_back(std::exchange(cur, {}));
    else if (c != '\r' && c != '\n')
      cur += c;
  }
  fields.push_back(cur);
  return fields;
}

// The launches of `path`, in launch order.
inline std::vector<NcuLaunch> read_ncu_raw(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << "cannot open " << path;
  std::vector<NcuLaunch> out;
  if (!f) return out;
  std::string last_id;
  char buf[8192];
  while (gzgets(f, buf, sizeof buf)) {
    std::string line(buf);
    if (line.rfind("==", 0) == 0 || line.rfind("\"ID\"", 0) == 0) {
      last_id.clear();
      continue;
    }
    auto fields = split_csv(line);
    if (fields.size() < 15) continue;
    if (fields[0] != last_id) {
      out.push_back({fields[4], {}});
      last_id = fields[0];
    }
    std::string value = fields[14];
    std::erase(value, ',');
    out.back().metrics[fields[12]] = std::stod(value);
  }
  gzclose(f);
  return out;
}

// The lines of a gzip file (any length), without their newlines.
inline std::vector<std::string> read_gzip_lines(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << "cannot open " << path;
  std::vector<std::string> out;
  if (!f) return out;
  std::string cur;
  char buf[8192];
  while (gzgets(f, buf, sizeof buf)) {
    cur += buf;
    if (!cur.empty() && cur.back() == '\n') {
      cur.pop_back();
      out.push_back(std::exchange(cur, {}));
    }
  }
  if (!cur.empty()) out.push_back(cur);
  gzclose(f);
  return out;
}

}  // namespace bankcheck::test
