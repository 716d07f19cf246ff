// The driver's export tables (cuGetExportTable), which the CUDA runtime needs to start.
#pragma once

#include "driver.hpp"

namespace bankcheck::runtime {

// The table with UUID `id`: CUDA_SUCCESS and the table, or CUDA_ERROR_NOT_FOUND and null.
// `caller`: where the request came from; a table bankcheck does not have is named once with
// the library that asked (the runtime's own probe for one it expects absent excepted).
CUresult export_table(const void** table, const CUuuid* id, const void* caller = nullptr);

}  // namespace bankcheck::runtime
