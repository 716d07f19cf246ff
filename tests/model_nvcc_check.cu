// Compiled by nvcc in the test suite: the model headers must work in device code.
#include "bankcheck/model/analyze.hpp"

__global__ void model_on_device(const unsigned* addr, unsigned* out) {
  bankcheck::model::WarpAccess a;
  a.op = bankcheck::model::Op::Load;
  a.width = 4;
  for (int i = 0; i < 32; ++i) a.addr[i] = addr[i];
  bankcheck::model::Verdict v = bankcheck::model::analyze(a);
  out[threadIdx.x] = v.wavefronts + v.ways;
}

// The 64-bit CAS loop's model, f64 add included (a bit cast in device code).
__global__ void spin_on_device(const unsigned* addr, const unsigned long long* val, unsigned* out) {
  bankcheck::model::SpinAccess a;
  a.op = bankcheck::model::SpinOp::AddF64;
  a.active = 0xFFFFFFFFu;
  for (int i = 0; i < 32; ++i) {
    a.addr[i] = addr[i];
    a.operand[i] = val[i];
  }
  out[threadIdx.x] = bankcheck::model::atomic64_spin(a).wavefronts;
}
