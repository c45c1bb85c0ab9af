#include "cvector.h"
#include "runtime.h"

#include <stdlib.h>

typedef struct _RsvgHandle RsvgHandle;
typedef struct { double x, y, width, height; } RsvgRectangle;
typedef struct { double length; int unit; } RsvgLength;
typedef int gboolean;

/* librsvg 2.52+ (Debian 12 ships 2.54). */
static struct {
    RsvgHandle *(*new_from_data)(const unsigned char *, size_t, GError **);
    void (*set_dpi)(RsvgHandle *, double);
    gboolean (*get_intrinsic_size_in_pixels)(RsvgHandle *, double *, double *);
    void (*get_intrinsic_dimensions)(RsvgHandle *, gboolean *, RsvgLength *, gboolean *, RsvgLength *, gboolean *,
                                     RsvgRectangle *);
    gboolean (*render_document)(RsvgHandle *, cairo_t *, const RsvgRectangle *, GError **);
} rsvg;

static const char *const svg_names[] = {
    "rsvg_handle_new_from_data", "rsvg_handle_set_dpi", "rsvg_handle_get_intrinsic_size_in_pixels",
    "rsvg_handle_get_intrinsic_dimensions", "rsvg_handle_render_document",
};
static cvector_library svg_library = { "librsvg-2.so.2", svg_names, 5, &rsvg, NULL, "" };
_Static_assert(sizeof rsvg == 5 * sizeof(void *), "one function pointer per name");

int cvector_svg_load_library(char *message, size_t size) {
    return cvector_library_load(&svg_library, message, size) != NULL ? 0 : -1;
}

struct cvector_svg {
    RsvgHandle *handle;
};

cvector_svg *cvector_svg_open(const void *data, size_t length, char *message, size_t size) {
    if (cvector_svg_load_library(message, size) != 0) return NULL;
    GError *error = NULL;
    /* No base file or URL: librsvg then refuses every reference but data: URLs. No
     * RSVG_HANDLE_FLAG_UNLIMITED either, so libxml2's limits on huge documents hold. */
    RsvgHandle *handle = rsvg.new_from_data(data, length, &error);
    if (handle == NULL) {
        cvector_take_error(svg_library.runtime, error, message, size, "librsvg: ");
        return NULL;
    }
    rsvg.set_dpi(handle, 96);
    cvector_svg *svg = malloc(sizeof *svg);
    if (svg == NULL) {
        svg_library.runtime->g_object_unref(handle);
        cvector_message(message, size, "", "out of memory");
        return NULL;
    }
    svg->handle = handle;
    return svg;
}

int cvector_svg_intrinsic_size(cvector_svg *svg, double *width, double *height) {
    if (rsvg.get_intrinsic_size_in_pixels(svg->handle, width, height)) return 0;
    /* Width or height in percent (or absent, which SVG 2 makes 100%): the viewBox gives the
     * size, as librsvg's own rsvg-convert does. */
    gboolean has_width = 0, has_height = 0, has_viewbox = 0;
    RsvgLength w, h;
    RsvgRectangle viewbox = { 0, 0, 0, 0 };
    rsvg.get_intrinsic_dimensions(svg->handle, &has_width, &w, &has_height, &h, &has_viewbox, &viewbox);
    if (!has_viewbox) return -1;
    *width = viewbox.width;
    *height = viewbox.height;
    return 0;
}

int cvector_svg_render(cvector_svg *svg, double document_width, double document_height,
                       unsigned char *pixels, int width, int height, char *message, size_t size) {
    const cvector_runtime *rt = svg_library.runtime;
    cairo_surface_t *surface;
    cairo_t *context;
    if (cvector_canvas_create(rt, pixels, width, height, &surface, &context, message, size) != 0) return -1;
    /* Laid out at its own size and scaled by cairo, so the vectors are drawn at the target
     * size (not a bitmap scaled afterwards) and a box of another aspect ratio stretches it. */
    rt->cairo_scale(context, width / document_width, height / document_height);
    RsvgRectangle viewport = { 0, 0, document_width, document_height };
    GError *error = NULL;
    gboolean rendered = rsvg.render_document(svg->handle, context, &viewport, &error);
    if (!rendered) {
        cvector_take_error(rt, error, message, size, "librsvg: ");
        rt->cairo_destroy(context);
        rt->cairo_surface_destroy(surface);
        return -1;
    }
    if (cvector_canvas_finish(rt, surface, context, message, size) != 0) return -1;
    cvector_argb32_to_rgba(pixels, (size_t)width * (size_t)height);
    return 0;
}

void cvector_svg_free(cvector_svg *svg) {
    if (svg == NULL) return;
    svg_library.runtime->g_object_unref(svg->handle);
    free(svg);
}
