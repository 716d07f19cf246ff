// Launches read from the host code: the launch sites (`k<<<...>>>(...)`, cudaLaunchKernel,
// cudaLaunchKernelEx) in the host functions of the file, each read once per scope its function
// runs in (host_scopes.cpp), its settings evaluated (host_values.cpp).
#include "host_reader.hpp"

namespace bankcheck::driver {
namespace host_code {

using explain::angle_backward;
using explain::angle_forward;
using explain::join;
using explain::match_backward;
using explain::match_forward;
using explain::split_commas;
using explain::tokenize;

std::vector<HostLaunch> Reader::launches() {
  std::vector<HostLaunch> out;
  for (std::size_t i = 0; i < t_.size(); ++i) {
    const int f = owner_[i];
    if (f < 0 || fns_[static_cast<std::size_t>(f)].global) continue;
    if (t_[i].text == "<<<") chevron_launch(i, out);
    if (t_[i].ident() && (t_[i].text == "cudaLaunchKernel" || t_[i].text == "cudaLaunchKernelEx") &&
        i + 1 < t_.size() && t_[i + 1].text == "(")
      api_launch(i, out);
  }
  for (std::size_t k = 0; k < out.size(); ++k) out[k].index = static_cast<int>(k + 1);
  return out;
}

std::string Reader::eval_targ(std::size_t from, std::size_t to, const Scope* s, bool& known) {
  if (to - from == 1 && (t_[from].text == "true" || t_[from].text == "false"))
    return t_[from].text;  // as written, and as the demangled name spells it
  if (auto v = eval_int(t_, from, to, s)) return std::to_string(*v);
  if (to - from == 1 && s)
    if (auto it = s->bound.find(t_[from].text); it != s->bound.end()) {
      const Binding& b = it->second.first;
      return eval_targ(b.from, b.to, it->second.second, known);
    }
  const std::string text = join(t_, from, to);
  // A template parameter of a launcher nobody calls stays unknown.
  for (const Scope* q = s; q && q->fn; q = q->caller)
    for (std::size_t j = from; j < to; ++j)
      if (std::find(q->fn->tparams.begin(), q->fn->tparams.end(), t_[j].text) !=
              q->fn->tparams.end() &&
          !q->bound.count(t_[j].text))
        known = false;
  return text;
}

void Reader::fill(HostLaunch& h, const Scope* s, std::size_t grid_a, std::size_t grid_b,
                  std::size_t block_a, std::size_t block_b,
                  std::optional<std::pair<std::size_t, std::size_t>> smem,
                  const std::vector<std::pair<std::size_t, std::size_t>>& args) {
  h.via = describe(s);
  // The names each setting lacks, when it is unset.
  auto needs = [&](bool unset) {
    std::vector<std::string> names;
    if (unset)
      for (const auto& n : missing_) {
        names.push_back(n);
        h.why[n] = why_[n];
        if (const auto d = defaults_.find(n); d != defaults_.end()) h.defaults[n] = d->second;
      }
    missing_.clear();
    return names;
  };
  missing_.clear();
  used_.clear();
  h.grid = to_dim3(eval_dim(t_, grid_a, grid_b, s));
  h.needs["grid"] = needs(!h.grid);
  h.block = to_dim3(eval_dim(t_, block_a, block_b, s));
  h.needs["block"] = needs(!h.block);
  h.grid_expr = written(grid_a, grid_b);
  h.block_expr = written(block_a, block_b);
  if (smem) {
    h.smem_expr = written(smem->first, smem->second);
    if (auto v = eval_int(t_, smem->first, smem->second, s); v && *v >= 0)
      h.smem = static_cast<std::uint64_t>(*v);
  } else {
    h.smem = 0;
  }
  h.needs["smem"] = needs(!h.smem);
  for (auto [a, b] : args) {
    HostArg arg;
    arg.expr = written(a, b);
    if (auto v = eval_int(t_, a, b, s))
      arg.value = std::to_string(*v);
    else if (auto f = eval_float(t_, a, b, s))
      arg.value = *f;
    else
      arg.value = eval_pointer(t_, a, b, s);
    arg.needs = needs(!arg.value);
    h.args.push_back(std::move(arg));
  }
  h.host_values_used = used_;
}

Reader::Named Reader::kernel_before(std::size_t end, std::size_t floor) const {
  Named n;
  std::size_t j = end;
  if (j > floor && t_[j - 1].text == ">") {
    const std::size_t o = angle_backward(t_, j - 1);
    if (o >= t_.size() || o <= floor) return n;
    n.targs = split_commas(t_, o + 1, j - 1, true);
    j = o;
  }
  if (j <= floor || !t_[j - 1].ident()) return n;
  std::size_t a = j - 1;
  while (a >= floor + 2 && t_[a - 1].text == "::" && t_[a - 2].ident()) a -= 2;
  n.name = join(t_, a, j);
  n.ok = true;
  return n;
}

void Reader::chevron_launch(std::size_t i, std::vector<HostLaunch>& out) {
  const std::size_t end = [&] {
    for (std::size_t j = i + 1; j < t_.size(); ++j)
      if (t_[j].text == ">>>") return j;
    return t_.size();
  }();
  if (end + 1 >= t_.size() || t_[end + 1].text != "(") return;
  const Function& fn = fns_[static_cast<std::size_t>(owner_[i])];
  const Named k = kernel_before(i, fn.body_open);
  if (!k.ok) return;
  const auto cfg = split_commas(t_, i + 1, end, false);
  if (cfg.size() < 2) return;
  const std::size_t close = match_forward(t_, end + 1);
  const auto args = split_commas(t_, end + 2, close, false);
  for (const Scope* s : scopes_for(fn, i)) {
    HostLaunch h;
    h.kernel = k.name;
    h.form = "<<<>>>";
    h.line = line_of(i);
    h.file = file_of(i);
    h.col = col_of(i);
    for (auto [a, b] : k.targs)
      h.template_args.push_back(eval_targ(a, b, s, h.template_args_known));
    std::optional<std::pair<std::size_t, std::size_t>> smem;
    if (cfg.size() >= 3) smem = cfg[2];
    fill(h, s, cfg[0].first, cfg[0].second, cfg[1].first, cfg[1].second, smem, args);
    out.push_back(std::move(h));
  }
}

void Reader::api_launch(std::size_t i, std::vector<HostLaunch>& out) {
  const Function& fn = fns_[static_cast<std::size_t>(owner_[i])];
  const std::size_t close = match_forward(t_, i + 1);
  const auto parts = split_commas(t_, i + 2, close, true);
  const bool ex = t_[i].text == "cudaLaunchKernelEx";
  if (parts.size() < (ex ? 2u : 4u)) return;
  // The kernel: the last name (with template arguments) of its part.
  auto [ka, kb] = parts[ex ? 1 : 0];
  while (kb > ka && t_[kb - 1].text == ")") --kb;
  const Named k = kernel_before(kb, ka > 0 ? ka - 1 : 0);
  if (!k.ok) return;
  for (const Scope* s : scopes_for(fn, i)) {
    HostLaunch h;
    h.kernel = k.name;
    while (h.kernel.starts_with("&")) h.kernel.erase(0, 1);
    h.form = t_[i].text;
    h.line = line_of(i);
    h.file = file_of(i);
    h.col = col_of(i);
    for (auto [a, b] : k.targs)
      h.template_args.push_back(eval_targ(a, b, s, h.template_args_known));
    std::vector<std::pair<std::size_t, std::size_t>> args;
    if (!ex) {
      // the args array
      auto [aa, ab] = parts[3];
      if (ab == aa + 1 && t_[aa].ident())
        if (auto f = lookup(t_[aa].text, s);
            f && !f->header && f->b.from < t_.size() && t_[f->b.from].text == "{") {
          const std::size_t c = match_forward(t_, f->b.from);
          for (auto [x, y] : split_commas(t_, f->b.from + 1, c, true)) {
            while (x < y && (t_[x].text == "&" || t_[x].text == "(")) {
              if (t_[x].text == "(") x = match_forward(t_, x);
              ++x;
            }
            args.push_back({x, y});
          }
        }
      std::optional<std::pair<std::size_t, std::size_t>> smem;
      if (parts.size() >= 5) smem = parts[4];
      fill(h, s, parts[1].first, parts[1].second, parts[2].first, parts[2].second, smem, args);
    } else {
      for (std::size_t p = 2; p < parts.size(); ++p) args.push_back(parts[p]);
      auto [ca, cb] = parts[0];
      while (ca < cb && t_[ca].text == "&") ++ca;
      if (cb != ca + 1) continue;
      const std::string cfg = t_[ca].text;
      std::optional<std::pair<std::size_t, std::size_t>> g, b, m;
      for (std::size_t j = fn.body_open; j + 3 < i; ++j)
        if (t_[j].text == cfg && (t_[j + 1].text == "." || t_[j + 1].text == "->") &&
            t_[j + 3].text == "=") {
          const std::pair<std::size_t, std::size_t> r{j + 4, expr_end(t_, j + 4)};
          if (t_[j + 2].text == "gridDim") g = r;
          if (t_[j + 2].text == "blockDim") b = r;
          if (t_[j + 2].text == "dynamicSmemBytes") m = r;
        }
      if (!g || !b) continue;
      fill(h, s, g->first, g->second, b->first, b->second, m, args);
    }
    out.push_back(std::move(h));
  }
}

}  // namespace host_code

std::vector<HostLaunch> find_host_launches(std::string_view source, std::string_view headers,
                                           const std::map<std::string, std::string>& defines,
                                           const HostValues& host_values) {
  return find_host_launches(HostSource{std::string(source), {}}, headers, defines, host_values);
}

std::vector<HostLaunch> find_host_launches(const HostSource& source, std::string_view headers,
                                           const std::map<std::string, std::string>& defines,
                                           const HostValues& host_values) {
  try {
    host_code::Reader r(source, headers, defines, host_values);
    return r.launches();
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace bankcheck::driver
