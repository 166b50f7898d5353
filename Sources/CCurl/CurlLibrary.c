#include "CCurl.h"

#include <CLibraryLoader.h>

#include <pthread.h>

/* libcurl's functions, bound once by load(). */
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_pause)(CURL *, int);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} curl;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
    /* libcurl's ABI 4, as Debian's libcurl4 (and libcurl4t64) installs it. */
    static const struct clibrary library = {"libcurl.so.4", "libcurl", "libcurl4", "libcurl 7.80 or later"};
    const struct clibrary_symbol symbols[] = {
        {"curl_global_init", (void **)&curl.global_init},
        {"curl_easy_init", (void **)&curl.easy_init},
        {"curl_easy_cleanup", (void **)&curl.easy_cleanup},
        {"curl_easy_reset", (void **)&curl.easy_reset},
        {"curl_easy_pause", (void **)&curl.easy_pause},
        {"curl_easy_strerror", (void **)&curl.easy_strerror},
        {"curl_easy_setopt", (void **)&curl.easy_setopt},
        {"curl_easy_getinfo", (void **)&curl.easy_getinfo},
        {"curl_multi_init", (void **)&curl.multi_init},
        {"curl_multi_cleanup", (void **)&curl.multi_cleanup},
        {"curl_multi_add_handle", (void **)&curl.multi_add_handle},
        {"curl_multi_remove_handle", (void **)&curl.multi_remove_handle},
        {"curl_multi_perform", (void **)&curl.multi_perform},
        {"curl_multi_poll", (void **)&curl.multi_poll},
        {"curl_multi_wakeup", (void **)&curl.multi_wakeup},
        {"curl_multi_info_read", (void **)&curl.multi_info_read},
        {"curl_multi_setopt", (void **)&curl.multi_setopt},
        {"curl_slist_append", (void **)&curl.slist_append},
        {"curl_slist_free_all", (void **)&curl.slist_free_all},
    };
    (void)clibrary_bind(&library, symbols, sizeof symbols / sizeof symbols[0], failure, sizeof failure);
}

const char *ccurl_load(void) {
    pthread_once(&loaded, load);
    return failure[0] != '\0' ? failure : NULL;
}

CURLcode ccurl_global_init(long flags) { return curl.global_init(flags); }
CURL *ccurl_easy_init(void) { return curl.easy_init(); }
void ccurl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
void ccurl_easy_reset(CURL *handle) { curl.easy_reset(handle); }
CURLcode ccurl_easy_pause(CURL *handle, int bitmask) { return curl.easy_pause(handle, bitmask); }
const char *ccurl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }
CURLM *ccurl_multi_init(void) { return curl.multi_init(); }
CURLMcode ccurl_multi_cleanup(CURLM *multi) { return curl.multi_cleanup(multi); }
CURLMcode ccurl_multi_add_handle(CURLM *multi, CURL *handle) { return curl.multi_add_handle(multi, handle); }
CURLMcode ccurl_multi_remove_handle(CURLM *multi, CURL *handle) { return curl.multi_remove_handle(multi, handle); }
CURLMcode ccurl_multi_perform(CURLM *multi, int *running) { return curl.multi_perform(multi, running); }
CURLMcode ccurl_multi_poll(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout, int *ready) {
    return curl.multi_poll(multi, extra, count, timeout, ready);
}
CURLMcode ccurl_multi_wakeup(CURLM *multi) { return curl.multi_wakeup(multi); }
CURLMsg *ccurl_multi_info_read(CURLM *multi, int *left) { return curl.multi_info_read(multi, left); }
struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *text) {
    return curl.slist_append(list, text);
}
void ccurl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLcode ccurl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl.easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl.easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl.easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) { return curl.easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl.easy_setopt(h, o, v); }
CURLcode ccurl_easy_setopt_write_callback(CURL *h, CURLoption o, curl_write_callback v) {
    return curl.easy_setopt(h, o, v);
}
CURLcode ccurl_easy_setopt_read_callback(CURL *h, curl_read_callback v) {
    return curl.easy_setopt(h, CURLOPT_READFUNCTION, v);
}
CURLcode ccurl_easy_setopt_opensocket_callback(CURL *h, curl_opensocket_callback v) {
    return curl.easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, v);
}
CURLcode ccurl_easy_setopt_prereq_callback(CURL *h, curl_prereq_callback v) {
    return curl.easy_setopt(h, CURLOPT_PREREQFUNCTION, v);
}
CURLMcode ccurl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl.multi_setopt(m, o, v); }
CURLcode ccurl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl.easy_getinfo(h, i, v); }
CURLcode ccurl_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl.easy_getinfo(h, i, v); }
