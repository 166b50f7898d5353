#ifndef CMICROHTTPD_H
#define CMICROHTTPD_H

#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

/* libmicrohttpd, loaded when a gateway starts rather than by the dynamic loader at every start of
   the executable: it brings GnuTLS and the libraries GnuTLS needs, and only `webcache serve` uses
   it. Its functions are reached only through the cmhd_* ones below; cmhd_load must have
   succeeded before any other is called. */

/* Loads libmicrohttpd once; NULL when it is loaded, else the reason it could not be (a sentence). */
const char *cmhd_load(void);

/* The functions of libmicrohttpd the gateway calls, with the same arguments. */
struct MHD_Response *cmhd_create_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);
struct MHD_Response *cmhd_create_response_from_buffer_with_free_callback_cls(
    size_t size, void *buffer, MHD_ContentReaderFreeCallback free_buffer, void *free_buffer_cls);
struct MHD_Response *cmhd_create_response_from_callback(
    uint64_t size, size_t block_size, MHD_ContentReaderCallback reader, void *reader_cls,
    MHD_ContentReaderFreeCallback free_reader);
struct MHD_Response *cmhd_create_response_from_fd64(uint64_t size, int fd);
enum MHD_Result cmhd_add_response_header(struct MHD_Response *response, const char *name, const char *value);
void cmhd_destroy_response(struct MHD_Response *response);
enum MHD_Result cmhd_queue_response(struct MHD_Connection *connection, unsigned int status, struct MHD_Response *r);
void cmhd_suspend_connection(struct MHD_Connection *connection);
void cmhd_resume_connection(struct MHD_Connection *connection);
int cmhd_get_connection_values(
    struct MHD_Connection *connection, enum MHD_ValueKind kind, MHD_KeyValueIterator iterator, void *iterator_cls);

/* The end-of-stream and error results of a content reader; the macros cast to ssize_t, which Swift
 * does not import. */
static inline ssize_t cmhd_reader_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t cmhd_reader_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
static inline uint64_t cmhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

/* A daemon whose connections the gateway accepts itself, on a thread of its own, and hands to the
 * daemon's event-loop threads in turn (MHD_add_connection spreads them over its thread pool by
 * socket number). Left to accept on its own, the first event-loop thread to wake takes a whole
 * series of new connections at once, and the others are left idle. */
struct cmhd_server {
    struct MHD_Daemon *daemon;
    int listener;
    uint16_t port;
    unsigned int connection_limit;
    /* The connections the daemon holds, counted by the connection notice. */
    atomic_uint connections;
    MHD_NotifyConnectionCallback notify_connection;
    void *notify_connection_cls;
    pthread_t acceptor;
    atomic_int stopping;
};

/* Starts a daemon whose `thread_pool_size` threads each run an epoll event loop over their share of
 * the connections (suspend/resume allowed: a callback that must wait suspends its connection, and
 * another thread resumes it), listening on `address` (IPv4 or IPv6 text) and `port` (0 picks a free
 * one). `uri_log` receives the request target exactly as sent, query included; what it returns
 * becomes the request's context pointer. Returns NULL (errno set where there is one) when the
 * address cannot be parsed or the daemon cannot start. */
struct cmhd_server *cmhd_start(
    const char *address, uint16_t port,
    MHD_AccessHandlerCallback access, void *access_cls,
    void *(*uri_log)(void *cls, const char *uri, struct MHD_Connection *connection), void *uri_log_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    MHD_AcceptPolicyCallback accept_policy, void *accept_policy_cls,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_cls,
    unsigned int connection_timeout_seconds, unsigned int connection_limit,
    unsigned int per_client_connection_limit, size_t connection_memory_limit, unsigned int thread_pool_size);

/* Stops accepting, joins the accepting thread, then stops the daemon, which closes every connection
 * and joins its threads; frees `server`. */
void cmhd_stop(struct cmhd_server *server);

/* The port a server listens on (useful after asking for port 0). */
static inline uint16_t cmhd_bound_port(const struct cmhd_server *server) { return server->port; }

/* The IP address bytes (4 or 16) of `address`, written to `out`; returns their count, 0 for another family. */
static inline int cmhd_address_bytes(const struct sockaddr *address, uint8_t out[16]) {
    if (address == NULL) return 0;
    if (address->sa_family == AF_INET) {
        memcpy(out, &((const struct sockaddr_in *)address)->sin_addr, 4);
        return 4;
    }
    if (address->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)address)->sin6_addr, 16);
        return 16;
    }
    return 0;
}

/* The client address of a connection as bytes (see cmhd_address_bytes); 0 if unknown. */
int cmhd_client_address(struct MHD_Connection *connection, uint8_t out[16]);

/* The socket of a connection; -1 if unknown. */
int cmhd_connection_socket(struct MHD_Connection *connection);

/* The pointer the connection notice stored for a connection (its socket context); NULL if none. */
void *cmhd_socket_context(struct MHD_Connection *connection);

/* Makes a response of unknown size that sends no content (the answer to HEAD, a 304) declare no
 * length at all, and close the connection after its head. Left as it is, libmicrohttpd declares
 * it chunked and then sends the last chunk, which the client reads as the start of the next
 * response. */
enum MHD_Result cmhd_declare_no_length(struct MHD_Response *response);

/* Opens a new file without a name in `folder` for reading and writing, closed on exec (O_TMPFILE,
 * which glibc's headers name only for _GNU_SOURCE; its value differs between architectures).
 * Returns -1 with errno set where the file system has no such files. */
static inline int cmhd_open_unnamed_file(const char *folder) {
    return open(folder, __O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

#endif
