// libzip and libplist for `notti-media app` and `--app` (SPEC 22), opened on first use (dlopen), so the
// tool's other commands never load them: linked, the two cost every start-up 0.26 ms (2.6% of
// `--version`, which the start-up row, within curl --version, has no room for). Their headers give the
// types; the calls go through the table build_functions_load fills.
#ifndef CBUILDSHIM_H
#define CBUILDSHIM_H

#include <stddef.h>
#include <plist/plist.h>
#include <zip.h>

#define BUILD_ZIP_FUNCTIONS(X)                                                                                     \
    X(zip_fdopen) X(zip_get_num_entries) X(zip_get_name) X(zip_file_get_external_attributes) X(zip_discard)        \
    X(zip_stat_init) X(zip_stat_index) X(zip_fopen_index) X(zip_fread) X(zip_fclose) X(zip_strerror)               \
    X(zip_file_strerror) X(zip_error_init_with_code) X(zip_error_strerror) X(zip_error_fini)

#define BUILD_PLIST_FUNCTIONS(X)                                                                                   \
    X(plist_from_memory) X(plist_free) X(plist_get_node_type) X(plist_dict_new_iter) X(plist_dict_next_item)       \
    X(plist_array_get_size) X(plist_array_get_item) X(plist_get_string_val) X(plist_get_bool_val)                 \
    X(plist_get_uint_val) X(plist_get_real_val) X(plist_get_date_val) X(plist_get_data_val)

/// The functions `app` calls, each as its library declares it.
struct build_functions {
#define BUILD_FIELD(name) __typeof__(name) *_Nonnull name;
    BUILD_ZIP_FUNCTIONS(BUILD_FIELD)
    BUILD_PLIST_FUNCTIONS(BUILD_FIELD)
#undef BUILD_FIELD
};

/// Opens libzip and libplist, once (from any thread): the table, or NULL and why in `error` (at most `size` bytes).
const struct build_functions *_Nullable build_functions_load(char *_Nonnull error, size_t size);

#endif
