#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

/* Swift cannot call C variadic functions, so the ones that the gateway needs, MHD_start_daemon,
 * MHD_get_daemon_info and MHD_set_response_options, get fixed-argument wrappers here. */

/* The end-of-stream and error results of a content reader; the macros cast to ssize_t, which Swift
 * does not import. */
static inline ssize_t cmhd_reader_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t cmhd_reader_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
static inline uint64_t cmhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

/* Keeps the request target as the client sent it: no percent-decoding, so that the URL the gateway
 * builds is byte for byte the one requested. Returns the unchanged length. */
static inline size_t cmhd_keep_escaped(void *cls, struct MHD_Connection *connection, char *value) {
    (void)cls;
    (void)connection;
    return strlen(value);
}

/* Starts a daemon whose `thread_pool_size` threads each run an epoll event loop over their share of
 * the connections (suspend/resume allowed: a callback that must wait suspends its connection, and
 * another thread resumes it), listening on `address` (IPv4 or IPv6 text) and `port` (0 picks a free
 * one). `uri_log` receives the request target exactly as sent, query
 * included; what it returns becomes the request's context pointer. Returns NULL when the address
 * cannot be parsed or the daemon cannot start. */
static inline struct MHD_Daemon *cmhd_start(
    const char *address, uint16_t port,
    MHD_AccessHandlerCallback access, void *access_cls,
    void *(*uri_log)(void *cls, const char *uri, struct MHD_Connection *connection), void *uri_log_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    MHD_AcceptPolicyCallback accept_policy, void *accept_policy_cls,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_cls,
    unsigned int connection_timeout_seconds, unsigned int connection_limit,
    unsigned int per_client_connection_limit, size_t connection_memory_limit, unsigned int thread_pool_size)
{
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *socket_address;
    unsigned int flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, address, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        socket_address = (const struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, address, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        socket_address = (const struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        return NULL;
    }
    return MHD_start_daemon(
        flags, port, accept_policy, accept_policy_cls, access, access_cls,
        MHD_OPTION_SOCK_ADDR, socket_address,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_NOTIFY_CONNECTION, notify_connection, notify_connection_cls,
        MHD_OPTION_UNESCAPE_CALLBACK, cmhd_keep_escaped, NULL,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_client_connection_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
        MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
        MHD_OPTION_END);
}

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
static inline int cmhd_client_address(struct MHD_Connection *connection, uint8_t out[16]) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? 0 : cmhd_address_bytes(info->client_addr, out);
}

/* The socket of a connection; -1 if unknown. */
static inline int cmhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/* The pointer the connection notice stored for a connection (its socket context); NULL if none. */
static inline void *cmhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/* Makes a response of unknown size that sends no content (the answer to HEAD, a 304) declare no
 * length at all, and close the connection after its head. Left as it is, libmicrohttpd declares
 * it chunked and then sends the last chunk, which the client reads as the start of the next
 * response. */
static inline enum MHD_Result cmhd_declare_no_length(struct MHD_Response *response) {
    return MHD_set_response_options(response, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END);
}

/* The port a daemon listens on (useful after asking for port 0); 0 if unknown. */
static inline uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

#endif
