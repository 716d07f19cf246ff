/* The one question a backend of `bankcheck run` asks bankcheck's NVTX injection library
 * (the library NVTX_INJECTION64_PATH names, loaded by NVTX at the program's first NVTX call):
 * is the calling thread, now, inside the ranges `--nvtx-include` names and outside those
 * `--nvtx-exclude` names? The injection library exports it; a backend finds it with
 * dlsym(RTLD_DEFAULT, BANKCHECK_NVTX_INCLUDED) when its launch ledger has NVTX filters, and
 * while it is not loaded (the program has made no NVTX call) no range is open.
 *
 * The library implements it with bankcheck::runtime::nvtx_included (nvtx_ranges.hpp) over the
 * ranges its NVTX callbacks record in bankcheck::runtime::nvtx_process_ranges():
 *   nvtxRangePush*, nvtxDomainRangePushEx  -> push(domain, message)
 *   nvtxRangePop, nvtxDomainRangePop       -> pop(domain)
 *   nvtxRangeStart*, nvtxDomainRangeStartEx -> start(id, domain, message)  (the id it returns)
 *   nvtxRangeEnd, nvtxDomainRangeEnd       -> end(id)
 * (domain "" for NVTX's default domain; a registered string's text for a registered message). */
#ifndef BANKCHECK_RUNTIME_NVTX_FEED_H
#define BANKCHECK_RUNTIME_NVTX_FEED_H

#include <stddef.h>

#define BANKCHECK_NVTX_INCLUDED "bankcheck_nvtx_included"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when included, 0 when not. `include` and `exclude` are the expressions as given. */
typedef int (*bankcheck_nvtx_included_fn)(const char* const* include, size_t includes,
                                          const char* const* exclude, size_t excludes);

#ifdef __cplusplus
}
#endif

#endif
