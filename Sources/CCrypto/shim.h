#ifndef WEBCACHE_CCRYPTO_SHIM_H
#define WEBCACHE_CCRYPTO_SHIM_H

// OpenSSL's libcrypto, for SHA-256 through the EVP digest API (it uses the CPU's SHA extensions).
#include <openssl/evp.h>

#endif
