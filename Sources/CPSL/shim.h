#ifndef WEBCACHE_CPSL_SHIM_H
#define WEBCACHE_CPSL_SHIM_H

/* libpsl: the Public Suffix List, used to refuse cookies whose Domain is a public suffix (RFC 6265 §5.3 step 5). */
#include <libpsl.h>

#endif
