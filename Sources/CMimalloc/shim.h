#ifndef WEBCACHE_CMIMALLOC_SHIM_H
#define WEBCACHE_CMIMALLOC_SHIM_H

// mimalloc, the memory allocator of the executables: linked by them, its malloc and free take the
// place of the C library's for every library in the process (see docs/design.md).
#include <mimalloc.h>

#endif
