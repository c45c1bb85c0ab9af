#include "runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

void cvector_message(char *message, size_t size, const char *prefix, const char *text) {
    if (message == NULL || size == 0) return;
    snprintf(message, size, "%s%s", prefix, text != NULL ? text : "");
}

int cvector_open_library(const char *library, const char *const *names, size_t count, void *functions,
                         char *failure, size_t size) {
    void *slots[16];
    if (count > sizeof slots / sizeof slots[0]) {
        snprintf(failure, size, "%s: too many symbols", library);
        return -1;
    }
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        cvector_message(failure, size, "", dlerror());
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        slots[i] = dlsym(handle, names[i]);
        if (slots[i] == NULL) {
            snprintf(failure, size, "%s has no %s", library, names[i]);
            return -1;
        }
    }
    /* dlsym returns object pointers; POSIX guarantees they convert to function pointers,
     * which on every platform POSIX covers have the size and representation of `void *`,
     * so a struct of `count` of them is laid out as this array is. */
    memcpy(functions, slots, count * sizeof(void *));
    return 0;
}

static cvector_runtime runtime;
static int runtime_loaded;
static char runtime_failure[256];
static pthread_once_t runtime_once = PTHREAD_ONCE_INIT;

/* The members of cvector_runtime, in order: cairo's, then GLib's, then GObject's. */
static void runtime_load_once(void) {
    static const char *const cairo_names[] = {
        "cairo_image_surface_create_for_data", "cairo_surface_status", "cairo_surface_flush",
        "cairo_surface_destroy", "cairo_create", "cairo_status", "cairo_status_to_string",
        "cairo_scale", "cairo_set_source_rgb", "cairo_paint", "cairo_destroy",
    };
    static const char *const glib_names[] = { "g_error_free", "g_bytes_new_static", "g_bytes_unref" };
    static const char *const gobject_names[] = { "g_object_unref" };
    _Static_assert(sizeof runtime == 15 * sizeof(void *), "cvector_runtime is 15 function pointers");
    if (cvector_open_library("libcairo.so.2", cairo_names, 11, &runtime.cairo_image_surface_create_for_data,
                             runtime_failure, sizeof runtime_failure) != 0
        || cvector_open_library("libglib-2.0.so.0", glib_names, 3, &runtime.g_error_free, runtime_failure,
                                sizeof runtime_failure) != 0
        || cvector_open_library("libgobject-2.0.so.0", gobject_names, 1, &runtime.g_object_unref, runtime_failure,
                                sizeof runtime_failure) != 0) {
        return;
    }
    runtime_loaded = 1;
}

const cvector_runtime *cvector_runtime_load(char *failure, size_t size) {
    pthread_once(&runtime_once, runtime_load_once);
    if (!runtime_loaded) {
        cvector_message(failure, size, "", runtime_failure);
        return NULL;
    }
    return &runtime;
}

const cvector_runtime *cvector_library_load(cvector_library *library, char *message, size_t size) {
    /* pthread_once takes no argument, so the first caller opens under a lock instead; the
     * outcome is written once and read-only afterwards. */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    if (library->runtime == NULL && library->failure[0] == '\0') {
        if (cvector_open_library(library->soname, library->names, library->count, library->functions,
                                 library->failure, sizeof library->failure) == 0) {
            library->runtime = cvector_runtime_load(library->failure, sizeof library->failure);
        }
        if (library->runtime == NULL && library->failure[0] == '\0') {
            cvector_message(library->failure, sizeof library->failure, "", "could not be opened");
        }
    }
    const cvector_runtime *runtime = library->runtime;
    pthread_mutex_unlock(&lock);
    if (runtime == NULL) cvector_message(message, size, "", library->failure);
    return runtime;
}

void cvector_take_error(const cvector_runtime *rt, GError *error, char *message, size_t size, const char *prefix) {
    cvector_message(message, size, prefix, error != NULL ? error->message : "unknown error");
    if (error != NULL) rt->g_error_free(error);
}

int cvector_canvas_create(const cvector_runtime *rt, unsigned char *pixels, int width, int height,
                          cairo_surface_t **surface, cairo_t **context, char *message, size_t size) {
    /* ARGB32 rows need only 4-byte alignment, so width*4 is a valid cairo stride. */
    *surface = rt->cairo_image_surface_create_for_data(pixels, CVECTOR_CAIRO_FORMAT_ARGB32, width, height, width * 4);
    int status = rt->cairo_surface_status(*surface);
    if (status != CVECTOR_CAIRO_STATUS_SUCCESS) {
        cvector_message(message, size, "cairo: ", rt->cairo_status_to_string(status));
        rt->cairo_surface_destroy(*surface);
        return -1;
    }
    *context = rt->cairo_create(*surface);
    status = rt->cairo_status(*context);
    if (status != CVECTOR_CAIRO_STATUS_SUCCESS) {
        cvector_message(message, size, "cairo: ", rt->cairo_status_to_string(status));
        rt->cairo_destroy(*context);
        rt->cairo_surface_destroy(*surface);
        return -1;
    }
    return 0;
}

int cvector_canvas_finish(const cvector_runtime *rt, cairo_surface_t *surface, cairo_t *context,
                          char *message, size_t size) {
    int status = rt->cairo_status(context);
    rt->cairo_destroy(context);
    rt->cairo_surface_flush(surface);
    rt->cairo_surface_destroy(surface);
    if (status != CVECTOR_CAIRO_STATUS_SUCCESS) {
        cvector_message(message, size, "cairo: ", rt->cairo_status_to_string(status));
        return -1;
    }
    return 0;
}

void cvector_argb32_to_rgba(unsigned char *pixels, size_t pixel_count) {
    for (size_t i = 0; i < pixel_count; i++) {
        unsigned char *p = pixels + i * 4;
        uint32_t word;
        memcpy(&word, p, 4);
        unsigned alpha = word >> 24, red = (word >> 16) & 0xFF, green = (word >> 8) & 0xFF, blue = word & 0xFF;
        if (alpha != 0 && alpha != 255) {
            red = (red * 255 + alpha / 2) / alpha;
            green = (green * 255 + alpha / 2) / alpha;
            blue = (blue * 255 + alpha / 2) / alpha;
        }
        p[0] = (unsigned char)red;
        p[1] = (unsigned char)green;
        p[2] = (unsigned char)blue;
        p[3] = (unsigned char)alpha;
    }
}
