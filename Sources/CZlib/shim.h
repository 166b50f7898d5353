#ifndef WEBCACHE_CZLIB_SHIM_H
#define WEBCACHE_CZLIB_SHIM_H

// zlib, for the CRC-32 that each stored body chunk carries.
#include <zlib.h>

#endif
