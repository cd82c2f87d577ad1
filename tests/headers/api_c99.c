/*
 * The public headers an application, a driver or a layer includes (a driver
 * also the print buffer's layout, kernel_print.h), compiled
 * as strict C99 (see CMakeLists.txt). Nothing here runs: the build failing
 * is the test.
 */
#include "xgpu/xgpu.h"
#include "xgpu/xgpu_dispatch_table.h"
#include "xgpu/xgpu_enum_string.h"
#include "xgpu/xgpu_icd.h"
#include "xgpu/xgpu_layer.h"
#include "xgpu/kernel_print.h"

/* Touch a few declarations so the headers' types are used, not only parsed. */
int xgpu_headers_c99_api(void);
int xgpu_headers_c99_api(void) {
  XgpuInstanceDispatchTable instance_table;
  XgpuDeviceDispatchTable device_table;
  XgpuNegotiateLayerInterface layer_interface;
  xgpu_print_buffer_header_t print_buffer;
  xgpu_print_record_t print_record;
  PFN_xgpuCreateInstance create = xgpuCreateInstance;
  (void)print_buffer;
  (void)print_record;
  (void)instance_table;
  (void)device_table;
  (void)layer_interface;
  return create != 0 && XGPU_API_VERSION_MAJOR(XGPU_API_VERSION_1_0) == 1 &&
         XGPU_ICD_LOADER_MAGIC != 0;
}
