// The driver's export tables (cuGetExportTable), which the CUDA runtime needs to start.
#pragma once

#include "driver.hpp"

namespace bankcheck::runtime {

// The table with UUID `id`: CUDA_SUCCESS and the table, or CUDA_ERROR_NOT_FOUND and null.
CUresult export_table(const void** table, const CUuuid* id);

}  // namespace bankcheck::runtime
