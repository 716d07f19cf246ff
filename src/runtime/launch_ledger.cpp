// The launch ledger of `bankcheck run` (launch_ledger.hpp).
#include "bankcheck/runtime/launch_ledger.hpp"

#include <algorithm>
#include <stdexcept>

#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/runtime/nvtx_ranges.hpp"

namespace bankcheck::runtime {
namespace {}  // namespace

std::string_view filter_mode_name(FilterMode m) {
  return m == FilterMode::Global ? "global" : "per-launch-config";
}

std::string_view kernel_name_base_name(KernelNameBase b) {
  switch (b) {
    case KernelNameBase::Demangled:
      return "demangled";
    case KernelNameBase::Mangled:
      return "mangled";
    default:
      return "function";
  }
}

std::optional<FilterMode> parse_filter_mode(std::string_view text) {
  for (const FilterMode m : {FilterMode::PerLaunchConfig, FilterMode::Global})
    if (filter_mode_name(m) == text) return m;
  return std::nullopt;
}

std::optional<KernelNameBase> parse_kernel_name_base(std::string_view text) {
  for (const KernelNameBase b :
       {KernelNameBase::Function, KernelNameBase::Demangled, KernelNameBase::Mangled})
    if (kernel_name_base_name(b) == text) return b;
  return std::nullopt;
}

KernelFilter parse_kernel_filter(std::string_view text) {
  KernelFilter f;
  f.text = std::string(text);
  if (text.starts_with("regex:")) {
    const std::string re(text.substr(6));
    if (re.empty()) throw std::invalid_argument("'regex:' is followed by no regular expression");
    try {
      f.re = std::make_shared<const std::regex>(re, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw std::invalid_argument("'" + re + "' is not a regular expression (" + e.what() + ")");
    }
  } else if (text.empty()) {
    throw std::invalid_argument("an empty kernel name");
  }
  return f;
}

bool KernelFilter::matches(const std::string& mangled, KernelNameBase base) const {
  if (base == KernelNameBase::Mangled)
    return re ? std::regex_search(mangled, *re) : mangled == text;
  const std::string demangled = driver::demangle(mangled);
  if (base == KernelNameBase::Demangled)
    return re ? std::regex_search(demangled, *re) : demangled == text;
  // The function's name: a regular expression reads its base name; a name is any of the
  // forms kernel_matches accepts (as `check --kernel` takes it).
  if (re) return std::regex_search(driver::parse_kernel_name(demangled).base, *re);
  return driver::kernel_matches(mangled, text);
}

std::uint64_t LaunchSelection::per_configuration() const {
  if (mode == FilterMode::Global) return launches.value_or(0);
  if (count) return *count;
  return launches.value_or(1);
}

std::uint64_t LaunchSelection::in_all() const {
  return mode == FilterMode::Global ? count.value_or(0) : 0;
}

LaunchLedger::LaunchLedger(LaunchSelection selection) : selection_(std::move(selection)) {
  for (const auto& k : selection_.kernels) filters_.push_back(parse_kernel_filter(k));
  auto include = std::make_shared<std::vector<NvtxFilter>>();
  auto exclude = std::make_shared<std::vector<NvtxFilter>>();
  for (const auto& f : selection_.nvtx_include) include->push_back(parse_nvtx_filter(f));
  for (const auto& f : selection_.nvtx_exclude) exclude->push_back(parse_nvtx_filter(f));
  // The process's ranges, as the NVTX injection library feeds them.
  nvtx_question_ = [include, exclude](const LaunchSelection&) {
    return nvtx_process_ranges().included(*include, *exclude);
  };
}

LaunchLedger::Kernel LaunchLedger::kernel(const void* key, const std::string& mangled,
                                          std::uint64_t module) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (const auto it = by_key_.find(key); it != by_key_.end()) return it->second;
  Entry e;
  e.mangled = mangled;
  e.module = module;
  e.selected =
      filters_.empty() || std::any_of(filters_.begin(), filters_.end(), [&](const KernelFilter& f) {
        return f.matches(mangled, selection_.name_base);
      });
  entries_.push_back(std::move(e));
  return by_key_[key] = entries_.size() - 1;
}

void LaunchLedger::retire(const void* key) {
  std::lock_guard<std::mutex> lock(mutex_);
  by_key_.erase(key);
}

bool LaunchLedger::selected(Kernel k) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.at(k).selected;
}

void LaunchLedger::set_nvtx_question(std::function<bool(const LaunchSelection&)> question) {
  std::lock_guard<std::mutex> lock(mutex_);
  nvtx_question_ = std::move(question);
}

bool LaunchLedger::nvtx_included() {
  if (selection_.nvtx_include.empty() && selection_.nvtx_exclude.empty()) return true;
  return nvtx_question_ && nvtx_question_(selection_);
}

LaunchLedger::Decision LaunchLedger::launch(Kernel k, const LaunchConfig& config) {
  std::lock_guard<std::mutex> lock(mutex_);
  Entry& e = entries_.at(k);
  Decision d;
  d.id = launches_++;
  auto& cs = e.configurations;
  d.config = 0;
  while (d.config < cs.size() &&
         !(cs[d.config].grid == config.grid && cs[d.config].block == config.block &&
           cs[d.config].dynamic_smem == config.dynamic_smem))
    ++d.config;
  if (d.config == cs.size()) {
    analysis::LaunchSummary s;
    s.grid = config.grid;
    s.block = config.block;
    s.dynamic_smem = config.dynamic_smem;
    cs.push_back(std::move(s));
    e.matched.push_back(0);
  }
  analysis::LaunchSummary& s = cs[d.config];
  ++s.launches;
  if (!e.selected || !nvtx_included()) return d;
  // Matched: the skip, then the counts.
  const std::uint64_t per_config = selection_.per_configuration();
  const std::uint64_t in_all = selection_.in_all();
  const std::uint64_t seen =
      selection_.mode == FilterMode::Global ? matched_++ : e.matched[d.config]++;
  if (selection_.mode == FilterMode::Global) ++e.matched[d.config];
  if (seen < selection_.skip) return d;
  if (per_config && s.analysed >= per_config) return d;
  if (in_all && analysed_ >= in_all) return d;
  d.analyse = true;
  ++s.analysed;
  ++analysed_;
  s.analysed_ids.push_back(d.id);
  e.first_analysed = std::min(e.first_analysed, d.id);
  e.lost_or_pending.emplace(d.id, std::nullopt);
  analysed_by_id_[d.id] = k;
  return d;
}

std::uint64_t LaunchLedger::launch_unknown() {
  std::lock_guard<std::mutex> lock(mutex_);
  return launches_++;
}

void LaunchLedger::skipped(Kernel k, std::size_t config) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++entries_.at(k).configurations.at(config).skipped;
}

void LaunchLedger::counted(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = analysed_by_id_.find(id);
  if (it == analysed_by_id_.end()) return;
  entries_[it->second].lost_or_pending.erase(id);
  analysed_by_id_.erase(it);
}

void LaunchLedger::lost(std::uint64_t id, std::string reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = analysed_by_id_.find(id);
  if (it == analysed_by_id_.end()) return;
  entries_[it->second].lost_or_pending[id] = std::move(reason);
  analysed_by_id_.erase(it);
}

LaunchLedger::Entry LaunchLedger::entry(Kernel k) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.at(k);
}

std::vector<std::vector<LaunchLedger::Kernel>> LaunchLedger::report_order() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Kernel> analysed;
  for (Kernel k = 0; k < entries_.size(); ++k)
    if (entries_[k].analysed()) analysed.push_back(k);
  std::stable_sort(analysed.begin(), analysed.end(), [&](Kernel a, Kernel b) {
    return entries_[a].first_analysed < entries_[b].first_analysed;
  });
  std::vector<std::vector<Kernel>> groups;
  std::map<std::uint64_t, std::size_t> group_of;  // module -> index in groups
  for (const Kernel k : analysed) {
    const auto [it, fresh] = group_of.emplace(entries_[k].module, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(k);
  }
  return groups;
}

std::vector<analysis::IncompleteLaunch> LaunchLedger::incomplete(
    Kernel k, const std::string& pending_reason) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<analysis::IncompleteLaunch> out;
  for (const auto& [id, reason] : entries_.at(k).lost_or_pending)
    out.push_back({id, reason ? *reason : pending_reason});
  return out;
}

std::uint64_t LaunchLedger::launches() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return launches_;
}

std::uint64_t LaunchLedger::analysed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return analysed_;
}

std::uint64_t LaunchLedger::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return analysed_by_id_.size();
}

void LaunchLedger::reset() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
  by_key_.clear();
  analysed_by_id_.clear();
  launches_ = matched_ = analysed_ = 0;
}

}  // namespace bankcheck::runtime
