// ScopedNames: the renaming of a function body's nested declarations (scoped_names.hpp).
#include "scoped_names.hpp"

#include <algorithm>

namespace bankcheck::ptx::detail {

void ScopedNames::enter_function() {
  names_.clear();
  ranges_.clear();
  scopes_.clear();
  scopes_.push_back(Scope{});
  live_names_ = 0;
  live_ranges_ = 0;
  block_counter_ = 0;
  parent_.assign(1, 0);
  open_ids_.assign(1, 0);
  labels_.clear();
  label_uses_.clear();
}

void ScopedNames::open_block() {
  scopes_.push_back(Scope{{}, ++block_counter_});
  parent_.push_back(open_ids_.back());
  open_ids_.push_back(block_counter_);
}

std::string ScopedNames::declare_label(std::string_view name) {
  if (open_ids_.size() <= 1) return std::string(name);
  const int id = open_ids_.back();
  std::string unique = std::string(name) + "$s" + std::to_string(id);
  labels_[{id, std::string(name)}] = unique;
  return unique;
}

void ScopedNames::label_use(std::size_t statement, std::size_t operand) {
  if (open_ids_.size() > 1) label_uses_.push_back({statement, operand, open_ids_.back()});
}

void ScopedNames::rename_label_uses(
    const std::function<std::string&(std::size_t, std::size_t)>& name_of) {
  if (labels_.empty()) return;
  for (const LabelUse& u : label_uses_) {
    std::string& name = name_of(u.statement, u.operand);
    for (int b = u.block; b > 0; b = parent_[static_cast<std::size_t>(b)]) {
      const auto it = labels_.find({b, name});
      if (it != labels_.end()) {
        name = it->second;
        break;
      }
    }
  }
}

std::string ScopedNames::declare(std::string_view name, bool is_reg, int count) {
  if (scopes_.empty()) return std::string(name);  // module scope
  const int d = depth();
  std::string unique(name);
  if (d > 0) {
    unique += "$s" + std::to_string(scopes_.back().id);
    if (count > 0) unique += '$';
  } else if (!is_reg || name.front() == '%') {
    return unique;
  }
  if (count > 0) {
    ranges_[std::string(name)].push_back(RangeBinding{unique, count, d});
    ++live_ranges_;
  } else {
    names_[std::string(name)].push_back(Binding{unique, d, is_reg});
    ++live_names_;
  }
  scopes_.back().keys.emplace_back(std::string(name), count > 0);
  return unique;
}

void ScopedNames::close() {
  for (const auto& [key, is_range] : scopes_.back().keys) {
    if (is_range) {
      ranges_.find(key)->second.pop_back();
      --live_ranges_;
    } else {
      names_.find(key)->second.pop_back();
      --live_names_;
    }
  }
  scopes_.pop_back();
  if (open_ids_.size() > 1) open_ids_.pop_back();
}

std::string ScopedNames::resolve(std::string_view name, bool& is_reg) const {
  is_reg = !name.empty() && name.front() == '%';
  if (live_names_ == 0 && live_ranges_ == 0) return std::string(name);
  int best = -1;
  std::string out;
  if (live_names_ > 0) {
    const auto it = names_.find(name);
    if (it != names_.end() && !it->second.empty()) {
      const Binding& b = it->second.back();
      best = b.depth;
      out = b.name;
      is_reg = b.is_reg;
    }
  }
  if (live_ranges_ > 0) {
    std::size_t k = name.size();
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9') --k;
    for (std::size_t s = std::max<std::size_t>(k, 1); s < name.size(); ++s) {
      const std::string_view digits = name.substr(s);
      if ((digits.size() > 1 && digits.front() == '0') || digits.size() > 18) continue;
      const auto it = ranges_.find(name.substr(0, s));
      if (it == ranges_.end() || it->second.empty()) continue;
      const RangeBinding& r = it->second.back();
      if (r.depth <= best) continue;
      std::int64_t index = 0;
      for (char c : digits) index = index * 10 + (c - '0');
      if (index >= r.count) continue;
      best = r.depth;
      out = r.prefix;
      out += digits;
      is_reg = true;
    }
  }
  return best < 0 ? std::string(name) : out;
}

}  // namespace bankcheck::ptx::detail
