#include "cvector.h"
#include "runtime.h"

#include <stdlib.h>

typedef struct _PopplerDocument PopplerDocument;
typedef struct _PopplerPage PopplerPage;

/* poppler-glib 0.82+ (Debian 12 ships 22.12). */
static struct {
    PopplerDocument *(*document_new_from_bytes)(GBytes *, const char *, GError **);
    int (*document_get_n_pages)(PopplerDocument *);
    PopplerPage *(*document_get_page)(PopplerDocument *, int);
    void (*page_get_size)(PopplerPage *, double *, double *);
    void (*page_render)(PopplerPage *, cairo_t *);
} poppler;

static const char *const pdf_names[] = {
    "poppler_document_new_from_bytes", "poppler_document_get_n_pages", "poppler_document_get_page",
    "poppler_page_get_size", "poppler_page_render",
};
static cvector_library pdf_library = { "libpoppler-glib.so.8", pdf_names, 5, &poppler, NULL, "" };
_Static_assert(sizeof poppler == 5 * sizeof(void *), "one function pointer per name");

int cvector_pdf_load_library(char *message, size_t size) {
    return cvector_library_load(&pdf_library, message, size) != NULL ? 0 : -1;
}

struct cvector_pdf {
    GBytes *bytes;
    PopplerDocument *document;
};

cvector_pdf *cvector_pdf_open(const void *data, size_t length, char *message, size_t size) {
    if (cvector_pdf_load_library(message, size) != 0) return NULL;
    const cvector_runtime *rt = pdf_library.runtime;
    cvector_pdf *pdf = calloc(1, sizeof *pdf);
    if (pdf == NULL) {
        cvector_message(message, size, "", "out of memory");
        return NULL;
    }
    /* Not copied: the caller's bytes outlive the document. */
    pdf->bytes = rt->g_bytes_new_static(data, length);
    GError *error = NULL;
    pdf->document = poppler.document_new_from_bytes(pdf->bytes, NULL, &error);
    if (pdf->document == NULL) {
        cvector_take_error(rt, error, message, size, "poppler: ");
        cvector_pdf_free(pdf);
        return NULL;
    }
    return pdf;
}

int cvector_pdf_page_count(cvector_pdf *pdf) {
    return poppler.document_get_n_pages(pdf->document);
}

/* Page `index`, read from the page tree only as far as that page; NULL with a reason. */
static PopplerPage *pdf_page(cvector_pdf *pdf, int index, char *message, size_t size) {
    PopplerPage *page = index >= 0 && index < cvector_pdf_page_count(pdf)
        ? poppler.document_get_page(pdf->document, index)
        : NULL;
    if (page == NULL) cvector_message(message, size, "", "poppler: the page could not be read");
    return page;
}

int cvector_pdf_page_size(cvector_pdf *pdf, int index, double *width, double *height, char *message, size_t size) {
    PopplerPage *page = pdf_page(pdf, index, message, size);
    if (page == NULL) return -1;
    poppler.page_get_size(page, width, height);
    pdf_library.runtime->g_object_unref(page);
    return 0;
}

int cvector_pdf_render(cvector_pdf *pdf, int index, unsigned char *pixels, int width, int height,
                       char *message, size_t size) {
    const cvector_runtime *rt = pdf_library.runtime;
    PopplerPage *page = pdf_page(pdf, index, message, size);
    if (page == NULL) return -1;
    double page_width = 0, page_height = 0;
    poppler.page_get_size(page, &page_width, &page_height);
    cairo_surface_t *surface;
    cairo_t *context;
    if (page_width <= 0 || page_height <= 0
        || cvector_canvas_create(rt, pixels, width, height, &surface, &context, message, size) != 0) {
        if (page_width <= 0 || page_height <= 0) cvector_message(message, size, "", "poppler: the page has no size");
        rt->g_object_unref(page);
        return -1;
    }
    /* White paper first, as every PDF viewer (and pdftoppm) shows a page. */
    rt->cairo_set_source_rgb(context, 1, 1, 1);
    rt->cairo_paint(context);
    rt->cairo_scale(context, width / page_width, height / page_height);
    poppler.page_render(page, context);
    rt->g_object_unref(page);
    if (cvector_canvas_finish(rt, surface, context, message, size) != 0) return -1;
    cvector_argb32_to_rgba(pixels, (size_t)width * (size_t)height);
    return 0;
}

void cvector_pdf_free(cvector_pdf *pdf) {
    if (pdf == NULL) return;
    if (pdf->document != NULL) pdf_library.runtime->g_object_unref(pdf->document);
    if (pdf->bytes != NULL) pdf_library.runtime->g_bytes_unref(pdf->bytes);
    free(pdf);
}
