// sm_90a: cluster directives, mbarrier and distributed shared memory through inline asm.
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128) clus(int* out) {
  __shared__ int s[128];
  __shared__ unsigned long long bar;
  unsigned rank, bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar_addr), "r"(blockDim.x));
  s[threadIdx.x] = threadIdx.x + rank;
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"((unsigned)__cvta_generic_to_shared(&s[threadIdx.x ^ 1])), "r"(rank ^ 1));
  int v; asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote));
  unsigned long long state;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(bar_addr));
  asm volatile("{\n\t.reg .pred done;\n\tLAB_WAIT:\n\tmbarrier.try_wait.shared::cta.b64 done, [%0], %1;\n\t@!done bra LAB_WAIT;\n\t}" :: "r"(bar_addr), "l"(state));
  unsigned leader;
  asm volatile("{\n\t.reg .pred e;\n\t.reg .b32 l;\n\telect.sync l|e, 0xffffffff;\n\tselp.u32 %0, 1, 0, e;\n\t}" : "=r"(leader));
  out[blockIdx.x * blockDim.x + threadIdx.x] = v + (int)leader + __shfl_xor_sync(0xffffffff, v, 1);
}
