#include "MicroHTTPDLibrary.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

/* Keeps the request target as the client sent it: no percent-decoding, so that the URL the gateway
 * builds is byte for byte the one requested. Returns the unchanged length. */
static size_t keep_escaped(void *cls, struct MHD_Connection *connection, char *value) {
    (void)cls;
    (void)connection;
    return strlen(value);
}

/* Counts the connections the daemon opens and closes, then passes the notice on. */
static void count_connection(
    void *cls, struct MHD_Connection *connection, void **socket_context, enum MHD_ConnectionNotificationCode code)
{
    struct cmhd_server *server = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) atomic_fetch_add(&server->connections, 1);
    else atomic_fetch_sub(&server->connections, 1);
    server->notify_connection(server->notify_connection_cls, connection, socket_context, code);
}

/* Accepts connections until the listening socket is shut down. While the daemon holds as many
 * connections as its limit, new ones wait in the listen queue, as they did when the daemon accepted
 * by itself (it looks again every 10 ms). A connection the daemon does not take (over the limit
 * per client, or refused by the accept policy) is closed by MHD_add_connection. */
static void *accept_connections(void *argument) {
    struct cmhd_server *server = argument;
    for (;;) {
        struct sockaddr_storage address;
        while (!atomic_load(&server->stopping)
               && atomic_load(&server->connections) >= server->connection_limit)
            usleep(10000);
        socklen_t length = sizeof address;
        int client = accept(server->listener, (struct sockaddr *)&address, &length);
        if (atomic_load(&server->stopping)) {
            if (client >= 0) close(client);
            return NULL;
        }
        if (client < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) usleep(10000);
            continue;
        }
        (void)cmhd_library.add_connection(server->daemon, client, (struct sockaddr *)&address, length);
    }
}

struct cmhd_server *cmhd_start(
    const char *address, uint16_t port,
    MHD_AccessHandlerCallback access, void *access_cls,
    void *(*uri_log)(void *cls, const char *uri, struct MHD_Connection *connection), void *uri_log_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    MHD_AcceptPolicyCallback accept_policy, void *accept_policy_cls,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_cls,
    unsigned int connection_timeout_seconds, unsigned int connection_limit,
    unsigned int per_client_connection_limit, size_t connection_memory_limit, unsigned int thread_pool_size)
{
    struct sockaddr_storage bound;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *socket_address;
    socklen_t address_length, bound_length = sizeof bound;
    int family, on = 1;
    unsigned int flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME
        | MHD_USE_NO_LISTEN_SOCKET;
    struct cmhd_server *server;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, address, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        socket_address = (const struct sockaddr *)&v4;
        address_length = sizeof v4;
        family = AF_INET;
    } else if (inet_pton(AF_INET6, address, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        socket_address = (const struct sockaddr *)&v6;
        address_length = sizeof v6;
        family = AF_INET6;
        flags |= MHD_USE_IPv6;
    } else {
        return NULL;
    }
    server = calloc(1, sizeof *server);
    if (server == NULL) return NULL;
    atomic_init(&server->stopping, 0);
    server->connection_limit = connection_limit;
    atomic_init(&server->connections, 0);
    server->notify_connection = notify_connection;
    server->notify_connection_cls = notify_connection_cls;
    server->listener = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (server->listener < 0) goto failed;
    (void)setsockopt(server->listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (family == AF_INET6) (void)setsockopt(server->listener, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    if (bind(server->listener, socket_address, address_length) != 0 || listen(server->listener, SOMAXCONN) != 0
        || getsockname(server->listener, (struct sockaddr *)&bound, &bound_length) != 0)
        goto failed;
    server->port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&bound)->sin_port
                                           : ((struct sockaddr_in6 *)&bound)->sin6_port);
    server->daemon = cmhd_library.start_daemon(
        flags, 0, accept_policy, accept_policy_cls, access, access_cls,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_NOTIFY_CONNECTION, count_connection, server,
        MHD_OPTION_UNESCAPE_CALLBACK, keep_escaped, NULL,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        /* The limit is kept by the accepting thread; the daemon splits its own evenly over its
         * threads and would refuse a connection while one that has closed is not yet cleaned up. */
        MHD_OPTION_CONNECTION_LIMIT, connection_limit * thread_pool_size,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_client_connection_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
        MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
        /* Requests the daemon would refuse itself at the strict level (an HTTP/1.1 request without
         * Host, a space in the target) reach the gateway, which answers them 400 naming why and logs
         * them: libmicrohttpd 0.9.75 writes the head of its own 400 answers twice. */
        MHD_OPTION_STRICT_FOR_CLIENT, (int)0,
        MHD_OPTION_END);
    if (server->daemon == NULL) goto failed;
    if (pthread_create(&server->acceptor, NULL, accept_connections, server) != 0) {
        cmhd_library.stop_daemon(server->daemon);
        goto failed;
    }
    return server;
failed:
    if (server->listener >= 0) close(server->listener);
    free(server);
    return NULL;
}

void cmhd_stop(struct cmhd_server *server) {
    atomic_store(&server->stopping, 1);
    shutdown(server->listener, SHUT_RDWR);
    pthread_join(server->acceptor, NULL);
    close(server->listener);
    cmhd_library.stop_daemon(server->daemon);
    free(server);
}

int cmhd_client_address(struct MHD_Connection *connection, uint8_t out[16]) {
    const union MHD_ConnectionInfo *info =
        cmhd_library.get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? 0 : cmhd_address_bytes(info->client_addr, out);
}

int cmhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        cmhd_library.get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

void *cmhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        cmhd_library.get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

enum MHD_Result cmhd_declare_no_length(struct MHD_Response *response) {
    return cmhd_library.set_response_options(response, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END);
}
