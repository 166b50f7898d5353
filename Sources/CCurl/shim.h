#ifndef WEBCACHE_CCURL_SHIM_H
#define WEBCACHE_CCURL_SHIM_H

#include <curl/curl.h>

/* curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic, which Swift cannot call.
   Each typed wrapper below forwards one kind of argument. */
static inline CURLcode ccurl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
    return curl_easy_setopt(h, o, v);
}
/* For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION, which share one signature. */
static inline CURLcode ccurl_easy_setopt_write_callback(CURL *h, CURLoption o, curl_write_callback v) {
    return curl_easy_setopt(h, o, v);
}
/* For CURLOPT_READFUNCTION. */
static inline CURLcode ccurl_easy_setopt_read_callback(CURL *h, curl_read_callback v) {
    return curl_easy_setopt(h, CURLOPT_READFUNCTION, v);
}
/* For CURLOPT_OPENSOCKETFUNCTION. */
static inline CURLcode ccurl_easy_setopt_opensocket_callback(CURL *h, curl_opensocket_callback v) {
    return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, v);
}
/* For CURLOPT_PREREQFUNCTION. */
static inline CURLcode ccurl_easy_setopt_prereq_callback(CURL *h, curl_prereq_callback v) {
    return curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, v);
}
static inline CURLMcode ccurl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

static inline CURLcode ccurl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }

/* Macros Swift does not import. */
static inline size_t ccurl_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
static inline size_t ccurl_readfunc_pause(void) { return CURL_READFUNC_PAUSE; }
static inline size_t ccurl_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
static inline int ccurl_pause_cont(void) { return CURLPAUSE_CONT; }
static inline int ccurl_pause_send(void) { return CURLPAUSE_SEND; }
static inline int ccurl_pause_recv(void) { return CURLPAUSE_RECV; }
static inline long ccurl_pipe_multiplex(void) { return CURLPIPE_MULTIPLEX; }
static inline long ccurl_global_all(void) { return CURL_GLOBAL_ALL; }
static inline int ccurl_error_size(void) { return CURL_ERROR_SIZE; }
static inline curl_socket_t ccurl_socket_bad(void) { return CURL_SOCKET_BAD; }
static inline int ccurl_prereqfunc_ok(void) { return CURL_PREREQFUNC_OK; }
static inline int ccurl_prereqfunc_abort(void) { return CURL_PREREQFUNC_ABORT; }

/* The result of a finished transfer, from the union inside CURLMsg. */
static inline CURLcode ccurl_msg_result(const CURLMsg *m) { return m->data.result; }

#endif
