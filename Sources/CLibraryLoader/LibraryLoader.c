#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <stdio.h>

int clibrary_bind(
    const struct clibrary *library, const struct clibrary_symbol symbols[], size_t count, char *failure,
    size_t size) {
    /* Lazily: the functions a library calls in its own dependencies are bound when first called,
       and most never are (libcurl's LDAP, SSH and Kerberos ones, say). The functions bound below
       are looked up now, so a missing one is still reported here. */
    void *handle = dlopen(library->soname, RTLD_LAZY | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(failure, size, "%s could not be loaded (%s); install it (Debian: %s).", library->name, dlerror(),
                 library->package);
        return 0;
    }
    for (size_t index = 0; index < count; index++) {
        if ((*symbols[index].slot = dlsym(handle, symbols[index].name)) == NULL) {
            snprintf(failure, size, "The library %s has no function %s; install %s.", library->soname,
                     symbols[index].name, library->minimum);
            return 0;
        }
    }
    return 1;
}
