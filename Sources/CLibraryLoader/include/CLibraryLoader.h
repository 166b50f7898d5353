#ifndef WEBCACHE_CLIBRARYLOADER_H
#define WEBCACHE_CLIBRARYLOADER_H

#include <stddef.h>

/* A shared library loaded when first needed (dlopen), and what to say when it cannot be. */
struct clibrary {
    /* The file to open, such as "libcurl.so.4". */
    const char *soname;
    /* The library's name in messages, such as "libcurl". */
    const char *name;
    /* The Debian package that installs it, such as "libcurl4". */
    const char *package;
    /* What to install when a function is missing, such as "libcurl 7.80 or later". */
    const char *minimum;
};

/* One function to bind: its name in the library, and where its address goes (a function pointer,
   written through `void **` as POSIX's dlsym documentation does). */
struct clibrary_symbol {
    const char *name;
    void **slot;
};

/* Opens `library` and binds each of the `count` symbols. Returns 1 when every one is bound; else
   writes to `failure` (`size` bytes) one sentence naming the library, what went wrong and what to
   install, and returns 0. Callers run it once (pthread_once) and keep `failure`. */
int clibrary_bind(
    const struct clibrary *library, const struct clibrary_symbol symbols[], size_t count, char *failure,
    size_t size);

#endif
