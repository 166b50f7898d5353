#ifndef WEBCACHE_CZLIB_SHIM_H
#define WEBCACHE_CZLIB_SHIM_H

// zlib, for the CRC-32 that each stored body chunk carries, and for decoding stored gzip and
// deflate content for callers that take content decoded.
#include <zlib.h>

#endif
