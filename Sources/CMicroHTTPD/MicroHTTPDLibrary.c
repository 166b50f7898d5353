#include "MicroHTTPDLibrary.h"

#include <CLibraryLoader.h>

struct cmhd_functions cmhd_library;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
    /* libmicrohttpd's ABI 12, as Debian's libmicrohttpd12 installs it. */
    static const struct clibrary library = {
        "libmicrohttpd.so.12", "libmicrohttpd", "libmicrohttpd12", "libmicrohttpd 0.9.75 or later"};
    const struct clibrary_symbol symbols[] = {
        {"MHD_start_daemon", (void **)&cmhd_library.start_daemon},
        {"MHD_stop_daemon", (void **)&cmhd_library.stop_daemon},
        {"MHD_add_connection", (void **)&cmhd_library.add_connection},
        {"MHD_get_connection_info", (void **)&cmhd_library.get_connection_info},
        {"MHD_set_response_options", (void **)&cmhd_library.set_response_options},
        {"MHD_create_response_from_buffer", (void **)&cmhd_library.create_response_from_buffer},
        {"MHD_create_response_from_buffer_with_free_callback_cls",
         (void **)&cmhd_library.create_response_from_buffer_with_free_callback_cls},
        {"MHD_create_response_from_callback", (void **)&cmhd_library.create_response_from_callback},
        {"MHD_create_response_from_fd64", (void **)&cmhd_library.create_response_from_fd64},
        {"MHD_add_response_header", (void **)&cmhd_library.add_response_header},
        {"MHD_destroy_response", (void **)&cmhd_library.destroy_response},
        {"MHD_queue_response", (void **)&cmhd_library.queue_response},
        {"MHD_suspend_connection", (void **)&cmhd_library.suspend_connection},
        {"MHD_resume_connection", (void **)&cmhd_library.resume_connection},
        {"MHD_get_connection_values", (void **)&cmhd_library.get_connection_values},
    };
    (void)clibrary_bind(&library, symbols, sizeof symbols / sizeof symbols[0], failure, sizeof failure);
}

const char *cmhd_load(void) {
    pthread_once(&loaded, load);
    return failure[0] != '\0' ? failure : NULL;
}

struct MHD_Response *cmhd_create_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode) {
    return cmhd_library.create_response_from_buffer(size, buffer, mode);
}

struct MHD_Response *cmhd_create_response_from_buffer_with_free_callback_cls(
    size_t size, void *buffer, MHD_ContentReaderFreeCallback free_buffer, void *free_buffer_cls) {
    return cmhd_library.create_response_from_buffer_with_free_callback_cls(size, buffer, free_buffer, free_buffer_cls);
}

struct MHD_Response *cmhd_create_response_from_callback(
    uint64_t size, size_t block_size, MHD_ContentReaderCallback reader, void *reader_cls,
    MHD_ContentReaderFreeCallback free_reader) {
    return cmhd_library.create_response_from_callback(size, block_size, reader, reader_cls, free_reader);
}

struct MHD_Response *cmhd_create_response_from_fd64(uint64_t size, int fd) {
    return cmhd_library.create_response_from_fd64(size, fd);
}

enum MHD_Result cmhd_add_response_header(struct MHD_Response *response, const char *name, const char *value) {
    return cmhd_library.add_response_header(response, name, value);
}

void cmhd_destroy_response(struct MHD_Response *response) { cmhd_library.destroy_response(response); }

enum MHD_Result cmhd_queue_response(struct MHD_Connection *connection, unsigned int status, struct MHD_Response *r) {
    return cmhd_library.queue_response(connection, status, r);
}

void cmhd_suspend_connection(struct MHD_Connection *connection) { cmhd_library.suspend_connection(connection); }

void cmhd_resume_connection(struct MHD_Connection *connection) { cmhd_library.resume_connection(connection); }

int cmhd_get_connection_values(
    struct MHD_Connection *connection, enum MHD_ValueKind kind, MHD_KeyValueIterator iterator, void *iterator_cls) {
    return cmhd_library.get_connection_values(connection, kind, iterator, iterator_cls);
}
