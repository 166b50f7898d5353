#ifndef CMICROHTTPD_LIBRARY_H
#define CMICROHTTPD_LIBRARY_H

#include "include/CMicroHTTPD.h"

/* libmicrohttpd's functions, bound once by cmhd_load; for this target's own C files. */
struct cmhd_functions {
    struct MHD_Daemon *(*start_daemon)(
        unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *, MHD_AccessHandlerCallback, void *, ...);
    void (*stop_daemon)(struct MHD_Daemon *);
    enum MHD_Result (*add_connection)(struct MHD_Daemon *, MHD_socket, const struct sockaddr *, socklen_t);
    const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
    enum MHD_Result (*set_response_options)(struct MHD_Response *, enum MHD_ResponseFlags, ...);
    struct MHD_Response *(*create_response_from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
    struct MHD_Response *(*create_response_from_buffer_with_free_callback_cls)(
        size_t, void *, MHD_ContentReaderFreeCallback, void *);
    struct MHD_Response *(*create_response_from_callback)(
        uint64_t, size_t, MHD_ContentReaderCallback, void *, MHD_ContentReaderFreeCallback);
    struct MHD_Response *(*create_response_from_fd64)(uint64_t, int);
    enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
    void (*destroy_response)(struct MHD_Response *);
    enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
    void (*suspend_connection)(struct MHD_Connection *);
    void (*resume_connection)(struct MHD_Connection *);
    int (*get_connection_values)(struct MHD_Connection *, enum MHD_ValueKind, MHD_KeyValueIterator, void *);
};

extern struct cmhd_functions cmhd_library;

#endif
