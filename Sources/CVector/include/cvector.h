#ifndef CVECTOR_H
#define CVECTOR_H

/*
 * SVG (librsvg) and PDF (poppler-glib) rendering for SVGCoder and PDFCoder, with the
 * libraries opened by dlopen on first use rather than linked.
 *
 * librsvg and poppler pull in GLib, GIO, cairo, pango, fontconfig and more: tens of
 * megabytes mapped and relocated at start-up by every process that links them, whether it
 * ever sees an SVG or not. Opened here only when the first such file is decoded, a process
 * that never sees one pays nothing. The few functions used are declared here with their
 * C signatures; their types are opaque, so no -dev package is needed to build.
 *
 * Policy (sizes, limits, thumbnails) lives in Swift; these functions only load, measure
 * and render. Every function is thread-safe for distinct documents; one document is used
 * by one thread at a time. Failures return NULL or -1 and write a one-line reason into
 * `message` (always NUL-terminated when `size` > 0).
 */

#include <stddef.h>

/* ---- SVG ------------------------------------------------------------------------------ */

/* Opens librsvg (once per process); 0 when it is usable. */
int cvector_svg_load_library(char *message, size_t size);

/* A parsed SVG document. */
typedef struct cvector_svg cvector_svg;

/* Parses `length` bytes of SVG (or SVGZ) with no base file or URL, so librsvg resolves no
 * external reference (files, http): only `data:` URLs load. Returns NULL on failure. */
cvector_svg *cvector_svg_open(const void *data, size_t length, char *message, size_t size);

/* The document's intrinsic size in CSS pixels at 96 dpi: its absolute `width` and
 * `height`, else its viewBox's size. Returns 0, or -1 when it declares neither. */
int cvector_svg_intrinsic_size(cvector_svg *svg, double *width, double *height);

/* Renders the document, laid out at `document_width` x `document_height` CSS pixels and
 * scaled (as vectors) to `width` x `height` pixels, into `pixels` (width*height*4 bytes,
 * zeroed by the caller) as straight-alpha RGBA. Returns 0 or -1. */
int cvector_svg_render(cvector_svg *svg, double document_width, double document_height,
                       unsigned char *pixels, int width, int height, char *message, size_t size);

void cvector_svg_free(cvector_svg *svg);

/* ---- PDF ------------------------------------------------------------------------------ */

/* Opens poppler-glib (once per process); 0 when it is usable. */
int cvector_pdf_load_library(char *message, size_t size);

/* A parsed PDF document. Its bytes are not copied: they must outlive it. */
typedef struct cvector_pdf cvector_pdf;

/* Reads the cross-reference table and the catalogue; pages are read only when asked for. */
cvector_pdf *cvector_pdf_open(const void *data, size_t length, char *message, size_t size);

/* The number of pages the page tree declares. */
int cvector_pdf_page_count(cvector_pdf *pdf);

/* The size in points (1/72 inch) of page `index` (from 0), after its /Rotate. */
int cvector_pdf_page_size(cvector_pdf *pdf, int index, double *width, double *height,
                          char *message, size_t size);

/* Renders page `index` scaled to `width` x `height` pixels onto white paper, into `pixels`
 * (width*height*4 bytes) as RGBA. Returns 0 or -1. */
int cvector_pdf_render(cvector_pdf *pdf, int index, unsigned char *pixels, int width, int height,
                       char *message, size_t size);

void cvector_pdf_free(cvector_pdf *pdf);

#endif
