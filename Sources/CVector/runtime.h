#ifndef CVECTOR_RUNTIME_H
#define CVECTOR_RUNTIME_H

/*
 * What the SVG and PDF renderers share: the cairo and GLib functions they call, resolved
 * once with dlsym, and the conversion of cairo's pixels to RGBA. Internal to CVector.
 */

#include <stddef.h>
#include <stdint.h>

/* Opaque library types, used only through pointers. */
typedef struct _cairo cairo_t;
typedef struct _cairo_surface cairo_surface_t;
typedef struct _GBytes GBytes;

/* GLib's GError, whose message we read. */
typedef struct {
    uint32_t domain;
    int code;
    char *message;
} GError;

enum { CVECTOR_CAIRO_FORMAT_ARGB32 = 0, CVECTOR_CAIRO_STATUS_SUCCESS = 0 };

/* cairo and GLib, from the libraries librsvg and poppler-glib already depend on. */
typedef struct {
    cairo_surface_t *(*cairo_image_surface_create_for_data)(unsigned char *, int, int, int, int);
    int (*cairo_surface_status)(cairo_surface_t *);
    void (*cairo_surface_flush)(cairo_surface_t *);
    void (*cairo_surface_destroy)(cairo_surface_t *);
    cairo_t *(*cairo_create)(cairo_surface_t *);
    int (*cairo_status)(cairo_t *);
    const char *(*cairo_status_to_string)(int);
    void (*cairo_scale)(cairo_t *, double, double);
    void (*cairo_set_source_rgb)(cairo_t *, double, double, double);
    void (*cairo_paint)(cairo_t *);
    void (*cairo_destroy)(cairo_t *);
    void (*g_error_free)(GError *);
    GBytes *(*g_bytes_new_static)(const void *, size_t);
    void (*g_bytes_unref)(GBytes *);
    void (*g_object_unref)(void *);
} cvector_runtime;

/* Opens `library` (a soname) and resolves `count` symbols (at most 16) into `functions`, a
 * struct of `count` function pointers declared in `names`' order; on failure writes the
 * reason (dlerror's) into `failure` and returns -1. Never dlclosed: the libraries stay for
 * the process's life, as a linked library would. */
int cvector_open_library(const char *library, const char *const *names, size_t count, void *functions,
                         char *failure, size_t size);

/* A renderer library opened on first use, with the cairo/GLib runtime it draws through. */
typedef struct {
    const char *soname;
    const char *const *names;
    size_t count;
    void *functions;                /* the library's table of `count` function pointers */
    const cvector_runtime *runtime; /* NULL until both the library and the runtime opened */
    char failure[256];
} cvector_library;

/* Opens `library` and the runtime on the first call (later calls only report); returns the
 * runtime, or NULL with the reason in `message`. */
const cvector_runtime *cvector_library_load(cvector_library *library, char *message, size_t size);

/* Resolves the cairo and GLib functions (once). Returns the table or NULL, with the reason. */
const cvector_runtime *cvector_runtime_load(char *failure, size_t size);

/* Copies `text` (may be NULL) after `prefix` into `message`, cut to `size`. */
void cvector_message(char *message, size_t size, const char *prefix, const char *text);

/* Takes ownership of `error`: writes its message after `prefix`, then frees it. */
void cvector_take_error(const cvector_runtime *runtime, GError *error, char *message, size_t size,
                        const char *prefix);

/* A cairo image surface over `pixels` (width*4 bytes a row) and a context on it; 0 or -1. */
int cvector_canvas_create(const cvector_runtime *runtime, unsigned char *pixels, int width, int height,
                          cairo_surface_t **surface, cairo_t **context, char *message, size_t size);

/* Flushes and frees the canvas; returns -1 (with cairo's reason) if drawing failed. */
int cvector_canvas_finish(const cvector_runtime *runtime, cairo_surface_t *surface, cairo_t *context,
                          char *message, size_t size);

/* Rewrites cairo's premultiplied, native-endian ARGB32 words in place as straight RGBA
 * bytes, unpremultiplied as cairo's own PNG writer does. */
void cvector_argb32_to_rgba(unsigned char *pixels, size_t pixel_count);

#endif
