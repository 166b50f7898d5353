#ifndef WEBCACHE_CCURL_H
#define WEBCACHE_CCURL_H

#include <curl/curl.h>

/* libcurl, loaded when the first transfer needs it rather than by the dynamic loader at every
   start: libcurl and the libraries it needs (TLS, Kerberos, LDAP, SSH, HTTP/2, IDN, compression)
   take more of a start's instructions than any other libraries, and a run answered from the store
   never sends a request. The curl_* functions are reached only through the ccurl_* ones below. */

/* Loads libcurl once; NULL when it is loaded, else the reason it could not be (a complete sentence). */
const char *ccurl_load(void);

CURLcode ccurl_global_init(long flags);
CURL *ccurl_easy_init(void);
void ccurl_easy_cleanup(CURL *handle);
void ccurl_easy_reset(CURL *handle);
CURLcode ccurl_easy_pause(CURL *handle, int bitmask);
const char *ccurl_easy_strerror(CURLcode code);
CURLM *ccurl_multi_init(void);
CURLMcode ccurl_multi_cleanup(CURLM *multi);
CURLMcode ccurl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode ccurl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode ccurl_multi_perform(CURLM *multi, int *running);
CURLMcode ccurl_multi_poll(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout, int *ready);
CURLMcode ccurl_multi_wakeup(CURLM *multi);
CURLMsg *ccurl_multi_info_read(CURLM *multi, int *left);
struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *text);
void ccurl_slist_free_all(struct curl_slist *list);

/* curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic, which Swift cannot call.
   Each typed function below forwards one kind of argument. */
CURLcode ccurl_easy_setopt_long(CURL *h, CURLoption o, long v);
CURLcode ccurl_easy_setopt_pointer(CURL *h, CURLoption o, void *v);
CURLcode ccurl_easy_setopt_string(CURL *h, CURLoption o, const char *v);
CURLcode ccurl_easy_setopt_off_t(CURL *h, CURLoption o, curl_off_t v);
CURLcode ccurl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v);
/* For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION, which share one signature. */
CURLcode ccurl_easy_setopt_write_callback(CURL *h, CURLoption o, curl_write_callback v);
/* For CURLOPT_READFUNCTION. */
CURLcode ccurl_easy_setopt_read_callback(CURL *h, curl_read_callback v);
/* For CURLOPT_OPENSOCKETFUNCTION. */
CURLcode ccurl_easy_setopt_opensocket_callback(CURL *h, curl_opensocket_callback v);
/* For CURLOPT_PREREQFUNCTION. */
CURLcode ccurl_easy_setopt_prereq_callback(CURL *h, curl_prereq_callback v);
CURLMcode ccurl_multi_setopt_long(CURLM *m, CURLMoption o, long v);
CURLcode ccurl_easy_getinfo_long(CURL *h, CURLINFO i, long *v);
CURLcode ccurl_easy_getinfo_string(CURL *h, CURLINFO i, char **v);

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
