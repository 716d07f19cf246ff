// The launch-heavy programs' kernels (examples/launch_heavy, scan of examples/run) written as
// plain C++ on the host: the same arithmetic on buffers of the same sizes, split over the
// cores as the fast tier splits CTAs, outputs already touched. What each takes is a floor for
// any emulation of the kernel on this machine: no tier can run a launch faster than the host
// runs its work directly. native_floor.sh sets these beside the tiers' own launch times.
//
//   native_floor [THREADS [REPS]]   prints "NAME SECONDS" per kernel: the least of REPS runs
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

namespace {

int g_threads = 2;

// f(lo, hi) over [0, n), split into g_threads contiguous parts.
void parallel(std::size_t n, const std::function<void(std::size_t, std::size_t)>& f) {
  std::vector<std::thread> ts;
  const std::size_t part = (n + g_threads - 1) / g_threads;
  for (int i = 1; i < g_threads; ++i) {
    const std::size_t lo = std::min(n, part * i), hi = std::min(n, lo + part);
    ts.emplace_back(f, lo, hi);
  }
  f(0, std::min(n, part));
  for (auto& t : ts) t.join();
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
  }
  return v;
}

double seconds(const std::function<void()>& f, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

constexpr int B = 8, T = 1024, C = 768, NH = 12, HS = C / NH;

// Element idx of q (B, NH, T, HS): where permute reads it in qkv (B, T, 3, NH, HS), and where
// unpermute writes it in out (B, T, NH * HS).
struct Place {
  std::size_t b, h, t, d;
};
Place place(std::size_t idx) {
  const std::size_t rest = idx % (NH * T * HS);
  return {idx / (NH * T * HS), rest / (T * HS), (rest % (T * HS)) / HS, rest % HS};
}
std::size_t qkv_index(std::size_t idx) {
  const Place p = place(idx);
  return (p.b * T + p.t) * 3 * NH * HS + p.h * HS + p.d;
}
std::size_t out_index(std::size_t idx) {
  const Place p = place(idx);
  return (p.b * T + p.t) * NH * HS + p.h * HS + p.d;
}

}  // namespace

int main(int argc, char** argv) {
  g_threads = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2;
  const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  const std::size_t n = std::size_t{B} * T * C;
  volatile float sink = 0;

  {  // gelu_residual_forward: out = gelu(inp); out = inp1 + inp2
    const std::vector<float> a = random_floats(n, 1), b = random_floats(n, 2);
    std::vector<float> out(n);
    std::printf("gelu %.6f\n",
                seconds(
                    [&] {
                      parallel(n, [&](std::size_t lo, std::size_t hi) {
                        for (std::size_t i = lo; i < hi; ++i) {
                          const float x = a[i], cube = 0.044715f * x * x * x;
                          out[i] = 0.5f * x * (1.0f + std::tanh(0.7978845608028654f * (x + cube)));
                        }
                      });
                    },
                    reps));
    std::printf("residual %.6f\n", seconds(
                                       [&] {
                                         parallel(n, [&](std::size_t lo, std::size_t hi) {
                                           for (std::size_t i = lo; i < hi; ++i)
                                             out[i] = a[i] + b[i];
                                         });
                                       },
                                       reps));
    sink = sink + out[n / 2];
  }
  {  // encoder_forward: out[b,t,:] = wte[inp[b,t],:] + wpe[t,:]
    const int V = 50257;
    const std::vector<float> wte = random_floats(std::size_t{V} * C, 3),
                             wpe = random_floats(std::size_t{T} * C, 4);
    std::vector<int> inp(std::size_t{B} * T);
    unsigned s = 5;
    for (auto& x : inp) x = static_cast<int>((s = s * 1664525u + 1013904223u) % V);
    std::vector<float> out(n);
    std::printf("encoder %.6f\n",
                seconds(
                    [&] {
                      parallel(std::size_t{B} * T, [&](std::size_t lo, std::size_t hi) {
                        for (std::size_t bt = lo; bt < hi; ++bt) {
                          const float* e = &wte[std::size_t(inp[bt]) * C];
                          const float* p = &wpe[(bt % T) * C];
                          float* o = &out[bt * C];
                          for (int c = 0; c < C; ++c) o[c] = e[c] + p[c];
                        }
                      });
                    },
                    reps));
    sink = sink + out[n / 2];
  }
  {  // layernorm_forward: mean, rstd and the normalized, scaled and shifted row
    const std::vector<float> inp = random_floats(n, 6), w = random_floats(C, 7),
                             bias = random_floats(C, 8);
    std::vector<float> out(n), mean(std::size_t{B} * T), rstd(std::size_t{B} * T);
    std::printf("layernorm %.6f\n",
                seconds(
                    [&] {
                      parallel(std::size_t{B} * T, [&](std::size_t lo, std::size_t hi) {
                        for (std::size_t r = lo; r < hi; ++r) {
                          const float* x = &inp[r * C];
                          float m = 0;
                          for (int c = 0; c < C; ++c) m += x[c];
                          m /= C;
                          float v = 0;
                          for (int c = 0; c < C; ++c) v += (x[c] - m) * (x[c] - m);
                          const float s = 1.0f / std::sqrt(v / C + 1e-5f);
                          float* o = &out[r * C];
                          for (int c = 0; c < C; ++c) o[c] = s * (x[c] - m) * w[c] + bias[c];
                          mean[r] = m;
                          rstd[r] = s;
                        }
                      });
                    },
                    reps));
    sink = sink + out[n / 2];
  }
  {  // attention_forward: permute, the causal softmax of 4 heads' (T, T) scores, unpermute
    const std::vector<float> qkv = random_floats(3 * n, 9);
    std::vector<float> q(n), k(n), v(n), y(n);
    std::printf("permute %.6f\n", seconds(
                                      [&] {
                                        parallel(n, [&](std::size_t lo, std::size_t hi) {
                                          for (std::size_t idx = lo; idx < hi; ++idx) {
                                            const std::size_t from = qkv_index(idx);
                                            q[idx] = qkv[from];
                                            k[idx] = qkv[from + NH * HS];
                                            v[idx] = qkv[from + 2 * NH * HS];
                                          }
                                        });
                                      },
                                      reps));
    std::printf("unpermute %.6f\n", seconds(
                                        [&] {
                                          parallel(n, [&](std::size_t lo, std::size_t hi) {
                                            for (std::size_t idx = lo; idx < hi; ++idx)
                                              y[out_index(idx)] = q[idx];
                                          });
                                        },
                                        reps));
    const std::size_t rows = std::size_t{4} * T;
    const std::vector<float> att = random_floats(rows * T, 10);
    std::vector<float> p(rows * T);
    const float scale = 1.0f / std::sqrt(static_cast<float>(HS));
    std::printf("softmax %.6f\n", seconds(
                                      [&] {
                                        parallel(rows, [&](std::size_t lo, std::size_t hi) {
                                          for (std::size_t r = lo; r < hi; ++r) {
                                            const float* x = &att[r * T];
                                            float* o = &p[r * T];
                                            const std::size_t t = r % T;
                                            float mx = -3.4e38f;
                                            for (std::size_t i = 0; i <= t; ++i)
                                              mx = std::max(mx, x[i]);
                                            float sum = 0;
                                            for (std::size_t i = 0; i <= t; ++i)
                                              sum += std::exp(scale * (x[i] - mx));
                                            for (std::size_t i = 0; i < T; ++i)
                                              o[i] = i <= t ? std::exp(scale * (x[i] - mx)) / sum
                                                            : 0.0f;
                                          }
                                        });
                                      },
                                      reps));
    sink = sink + y[n / 2] + p[rows * T / 2];
  }
  {  // crossentropy_forward from the logits: log(sum(exp(x - max))) - (x[target] - max)
    const std::size_t N = std::size_t{B} * T, V = 4096;
    const std::vector<float> logits = random_floats(N * V, 11);
    std::vector<int> target(N);
    for (std::size_t i = 0; i < N; ++i) target[i] = static_cast<int>((i * 2654435761u) % V);
    std::vector<float> losses(N);
    std::printf("crossentropy %.6f\n", seconds(
                                           [&] {
                                             parallel(N, [&](std::size_t lo, std::size_t hi) {
                                               for (std::size_t r = lo; r < hi; ++r) {
                                                 const float* x = &logits[r * V];
                                                 float mx = -3.4e38f;
                                                 for (std::size_t i = 0; i < V; ++i)
                                                   mx = std::max(mx, x[i]);
                                                 float sum = 0;
                                                 for (std::size_t i = 0; i < V; ++i)
                                                   sum += std::exp(x[i] - mx);
                                                 losses[r] = std::log(sum) - (x[target[r]] - mx);
                                               }
                                             });
                                           },
                                           reps));
    sink = sink + losses[N / 2];
  }
  {  // scan 1048576: an exclusive scan of a million ints (its three kernels together)
    const std::size_t m = 1048576;
    std::vector<int> in(m), out(m);
    for (std::size_t i = 0; i < m; ++i) in[i] = static_cast<int>((i * 2654435761u >> 16) % 10);
    std::vector<long long> part(g_threads + 1);
    std::printf("scan %.6f\n", seconds(
                                   [&] {
                                     const std::size_t per = (m + g_threads - 1) / g_threads;
                                     parallel(m, [&](std::size_t lo, std::size_t hi) {
                                       int s = 0;
                                       for (std::size_t i = lo; i < hi; ++i) s += in[i];
                                       part[lo / per + 1] = s;
                                     });
                                     for (int i = 1; i <= g_threads; ++i) part[i] += part[i - 1];
                                     parallel(m, [&](std::size_t lo, std::size_t hi) {
                                       int s = static_cast<int>(part[lo / per]);
                                       for (std::size_t i = lo; i < hi; ++i) {
                                         out[i] = s;
                                         s += in[i];
                                       }
                                     });
                                   },
                                   reps));
    sink = sink + static_cast<float>(out[m / 2]);
  }
  return sink == 12345.0f ? 1 : 0;
}
