#include "CCrypto.h"

#include <CLibraryLoader.h>

#include <pthread.h>

/* libcrypto's functions, bound once by load(). */
static struct {
    EVP_MD *(*md_fetch)(OSSL_LIB_CTX *, const char *, const char *);
    const EVP_MD *(*sha1)(void);
    const EVP_MD *(*sha256)(void);
    EVP_MD_CTX *(*md_ctx_new)(void);
    void (*md_ctx_free)(EVP_MD_CTX *);
    int (*md_ctx_copy_ex)(EVP_MD_CTX *, const EVP_MD_CTX *);
    int (*digest_init_ex)(EVP_MD_CTX *, const EVP_MD *, ENGINE *);
    int (*digest_update)(EVP_MD_CTX *, const void *, size_t);
    int (*digest_final_ex)(EVP_MD_CTX *, unsigned char *, unsigned int *);
} crypto;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
    /* OpenSSL 3's libcrypto, as Debian's libssl3 installs it. */
    static const struct clibrary library = {"libcrypto.so.3", "libcrypto", "libssl3", "OpenSSL 3"};
    const struct clibrary_symbol symbols[] = {
        {"EVP_MD_fetch", (void **)&crypto.md_fetch},
        {"EVP_sha1", (void **)&crypto.sha1},
        {"EVP_sha256", (void **)&crypto.sha256},
        {"EVP_MD_CTX_new", (void **)&crypto.md_ctx_new},
        {"EVP_MD_CTX_free", (void **)&crypto.md_ctx_free},
        {"EVP_MD_CTX_copy_ex", (void **)&crypto.md_ctx_copy_ex},
        {"EVP_DigestInit_ex", (void **)&crypto.digest_init_ex},
        {"EVP_DigestUpdate", (void **)&crypto.digest_update},
        {"EVP_DigestFinal_ex", (void **)&crypto.digest_final_ex},
    };
    (void)clibrary_bind(&library, symbols, sizeof symbols / sizeof symbols[0], failure, sizeof failure);
}

const char *ccrypto_load(void) {
    pthread_once(&loaded, load);
    return failure[0] != '\0' ? failure : NULL;
}

EVP_MD *ccrypto_md_fetch(OSSL_LIB_CTX *context, const char *algorithm, const char *properties) {
    return crypto.md_fetch(context, algorithm, properties);
}
const EVP_MD *ccrypto_sha1(void) { return crypto.sha1(); }
const EVP_MD *ccrypto_sha256(void) { return crypto.sha256(); }
EVP_MD_CTX *ccrypto_md_ctx_new(void) { return crypto.md_ctx_new(); }
void ccrypto_md_ctx_free(EVP_MD_CTX *context) { crypto.md_ctx_free(context); }
int ccrypto_md_ctx_copy_ex(EVP_MD_CTX *out, const EVP_MD_CTX *in) { return crypto.md_ctx_copy_ex(out, in); }
int ccrypto_digest_init_ex(EVP_MD_CTX *context, const EVP_MD *type, ENGINE *engine) {
    return crypto.digest_init_ex(context, type, engine);
}
int ccrypto_digest_update(EVP_MD_CTX *context, const void *data, size_t count) {
    return crypto.digest_update(context, data, count);
}
int ccrypto_digest_final_ex(EVP_MD_CTX *context, unsigned char *digest, unsigned int *length) {
    return crypto.digest_final_ex(context, digest, length);
}
