#ifndef WEBCACHE_CDEFLATE_SHIM_H
#define WEBCACHE_CDEFLATE_SHIM_H

// libdeflate, for the CRC-32 that each stored body chunk carries: the same CRC as zlib's `crc32`,
// computed with the CPU's carry-less multiply instructions where it has them, several times faster.
#include <libdeflate.h>

#endif
