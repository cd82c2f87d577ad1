/*
 * The meta-loader's header, compiled as strict C99 (see CMakeLists.txt). It
 * stands alone: it includes xgpu.h itself, without prototypes, so it is
 * checked in its own file.
 */
#include "xgpu/xgpu_meta.h"

int xgpu_headers_c99_meta(void);
int xgpu_headers_c99_meta(void) {
  XgpuDeviceDispatchTable table;
  (void)table;
  return xgpumetaGetInstanceVersion() == 0 && xgpuCreateInstance == 0;
}
