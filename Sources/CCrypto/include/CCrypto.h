#ifndef WEBCACHE_CCRYPTO_H
#define WEBCACHE_CCRYPTO_H

/* OpenSSL's libcrypto, for SHA-256 and SHA-1 through the EVP digest API (it uses the CPU's SHA
   extensions), loaded when the first digest is made rather than by the dynamic loader at every
   start: a run that stores no body computes none. Its functions are reached only through the
   ccrypto_* ones below; ccrypto_load must have succeeded before any other is called. */
#include <openssl/evp.h>

/* Loads libcrypto once; NULL when it is loaded, else the reason it could not be (a sentence). */
const char *ccrypto_load(void);

/* The functions of libcrypto the digests call, with the same arguments. */
EVP_MD *ccrypto_md_fetch(OSSL_LIB_CTX *context, const char *algorithm, const char *properties);
const EVP_MD *ccrypto_sha1(void);
const EVP_MD *ccrypto_sha256(void);
EVP_MD_CTX *ccrypto_md_ctx_new(void);
void ccrypto_md_ctx_free(EVP_MD_CTX *context);
int ccrypto_md_ctx_copy_ex(EVP_MD_CTX *out, const EVP_MD_CTX *in);
int ccrypto_digest_init_ex(EVP_MD_CTX *context, const EVP_MD *type, ENGINE *engine);
int ccrypto_digest_update(EVP_MD_CTX *context, const void *data, size_t count);
int ccrypto_digest_final_ex(EVP_MD_CTX *context, unsigned char *digest, unsigned int *length);

#endif
