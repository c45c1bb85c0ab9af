#ifndef CJPEG_SHIM_H
#define CJPEG_SHIM_H

/*
 * A thin, longjmp-safe layer over libjpeg(-turbo) for JPEGCoder.
 *
 * libjpeg reports fatal errors by calling error_exit, which must not return; the usual
 * answer is setjmp/longjmp, and Swift frames must never be jumped over. So every libjpeg
 * call that can fail is made here, inside a setjmp, and turned into a return code plus a
 * message. Policy (sizes, colour conversion, orientation) lives in Swift.
 */

#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>

/* Most scans a decode may read before it is abandoned (libjpeg-turbo's tjbench
 * -limitscans uses the same bound): a progressive file can hold thousands of tiny
 * scans, each costing a pass over the whole coefficient buffer. */
#define CJPEG_MAX_SCANS 500

/* Most APP1 and APP2 markers a header may hold before it is refused. libjpeg appends each
 * marker it saves by walking its list from the head, so n markers cost n²/2 steps: a
 * 640 KB file of 160,000 empty APP1 markers took 30 s. A real file has one EXIF and one
 * XMP block, an ICC profile in at most 255 pieces and, rarely, extended XMP in pieces of
 * 64 KB. */
#define CJPEG_MAX_SAVED_MARKERS 1000

/* ---- Decoding ---------------------------------------------------------------------- */

/* Opaque decoder state: libjpeg's decompressor and its error manager, read either one-shot
 * from memory (cjpeg_decoder_*) or incrementally (cjpeg_stream_*). */
typedef struct cjpeg_reader cjpeg_reader;

/* What the header says. */
typedef struct cjpeg_header {
    unsigned int width;
    unsigned int height;
    int num_components;
    J_COLOR_SPACE jpeg_color_space;
    int progressive;        /* a progressive (SOF2) file */
    int saw_adobe_marker;   /* an Adobe APP14 marker is present: its CMYK is stored inverted */
} cjpeg_header;

/* Releases everything the reader holds; NULL is allowed. */
void cjpeg_reader_free(cjpeg_reader *reader);

/* The message of the last failure (never NULL). After a failure a stream is unusable. */
const char *cjpeg_reader_message(const cjpeg_reader *reader);

/* Allocates a one-shot decoder. NULL when out of memory. Free with cjpeg_reader_free. */
cjpeg_reader *cjpeg_decoder_new(void);

/* Reads the header of `size` bytes at `data`, which must stay valid and unchanged until
 * the decoder is freed. Saves APP1 markers (EXIF, XMP). 0 on success. */
int cjpeg_decoder_read_header(cjpeg_reader *decoder, const unsigned char *data, size_t size,
                              cjpeg_header *header);

/* The payload of the first APP1 marker that starts with `signature` ("Exif\0\0" for EXIF,
 * "http://ns.adobe.com/xap/1.0/\0" for XMP), or 0 when there is none. The bytes belong
 * to the decoder. */
size_t cjpeg_decoder_app1(const cjpeg_reader *decoder, const unsigned char *signature,
                          size_t signature_length, const unsigned char **bytes);

/* The embedded ICC profile, reassembled from its APP2 markers, or 0 when there is none
 * or its markers are inconsistent. On success *bytes is a malloc'd copy the caller frees
 * with free(). Call after cjpeg_decoder_read_header. */
size_t cjpeg_decoder_icc_profile(cjpeg_reader *decoder, unsigned char **bytes);

/* Starts decompression to `out_color_space` at the DCT-domain scale scale_num/8
 * (scale_num in 1...16). For progressive and multi-scan files this reads all the
 * input. Reports the output size and bytes per pixel. 0 on success. */
int cjpeg_decoder_start(cjpeg_reader *decoder, J_COLOR_SPACE out_color_space,
                        unsigned int scale_num, unsigned int *out_width,
                        unsigned int *out_height, int *out_components);

/* Decodes the next output rows, up to max_rows of them (fewer at the end of the image),
 * and reports how many in *rows_read. Output row i goes to first_row + i * row_stride; a
 * negative stride writes the image bottom-up. 0 on success. */
int cjpeg_decoder_read_rows(cjpeg_reader *decoder, unsigned char *first_row,
                            ptrdiff_t row_stride, unsigned int max_rows,
                            unsigned int *rows_read);

/* Corrupt-data warnings seen so far (truncation, bad entropy codes). Damage that came
 * before any image data was decoded is not counted: it is a failure instead. */
long cjpeg_decoder_damage_warnings(const cjpeg_reader *decoder);

/* ---- Encoding ---------------------------------------------------------------------- */

/* What an encode writes besides the pixels; every pointer may be NULL (nothing written). */
typedef struct cjpeg_metadata {
    const unsigned char *icc_profile; /* in APP2 markers, split as ICC.1 Annex B says */
    unsigned int icc_length;
    const unsigned char *exif;        /* TIFF-structured; APP1 "Exif\0\0", skipped if over 65,527 bytes */
    unsigned int exif_length;
    const unsigned char *xmp;         /* the packet; APP1 with XMP's namespace, skipped if over 65,504 bytes */
    unsigned int xmp_length;
} cjpeg_metadata;

/* Encodes `height` rows of `width` 4-byte pixels (R, G, B, ignored) spaced row_stride
 * bytes apart as a baseline 4:2:0 JPEG with optimised Huffman tables, with `metadata`
 * (which may be NULL) after the JFIF marker: EXIF, XMP, then the ICC profile.
 * On success returns 0 and hands over a malloc'd buffer in *out / *out_size, which the
 * caller frees once with free(). On failure returns -1, sets *out to NULL and writes a
 * message into `message` (JMSG_LENGTH_MAX bytes). */
int cjpeg_encode_rgbx(const unsigned char *pixels, unsigned int width, unsigned int height,
                      size_t row_stride, int quality, const cjpeg_metadata *metadata,
                      unsigned char **out, unsigned long *out_size, char *message);

/* ---- Incremental decoding ---------------------------------------------------------- */

/*
 * A decoder fed with a download's bytes as they arrive (JPEGProgressiveDecoder). Its data
 * source suspends when the bytes so far run out (libjpeg's suspension protocol), so every
 * call below decodes what it can and returns; the next call resumes where libjpeg left
 * off. Each call is handed ALL the bytes received so far, which must extend the bytes of
 * the previous call; libjpeg only reads them during the call, so they may move between
 * calls. Progressive and other multi-scan files use buffered-image mode (one output pass
 * per scan that arrived), single-scan files give their rows as they arrive.
 */

/* Allocates a stream decoder. NULL when out of memory. Free with cjpeg_reader_free. */
cjpeg_reader *cjpeg_stream_new(void);

/* Reads the header from the bytes so far. 1 when it has been read (and fills `header`),
 * 0 when more bytes are needed, -1 on failure. */
int cjpeg_stream_read_header(cjpeg_reader *stream, const unsigned char *data, size_t size,
                             cjpeg_header *header);

/* Starts decompression (after the header) to `out_color_space` at the DCT-domain scale
 * scale_num/8, reporting the output size and bytes per pixel. 1 when started, 0 when it
 * needs more bytes, -1 on failure. */
int cjpeg_stream_start(cjpeg_reader *stream, const unsigned char *data, size_t size,
                       J_COLOR_SPACE out_color_space, unsigned int scale_num,
                       unsigned int *out_width, unsigned int *out_height, int *out_components);

/* Decodes what the bytes so far allow into `pixels` (output row i at pixels + i * row_stride,
 * which must hold every output row). Returns 1 after writing rows first_row ..<
 * first_row + row_count (possibly none, when an output pass began or ended): call again;
 * 0 when nothing more can be decoded until more bytes arrive (or the image is complete);
 * -1 on failure. Rows of a new pass overwrite those of the previous one from the top. */
int cjpeg_stream_read_rows(cjpeg_reader *stream, const unsigned char *data, size_t size,
                           unsigned char *pixels, ptrdiff_t row_stride,
                           unsigned int *first_row, unsigned int *row_count);

/* ---- Version ----------------------------------------------------------------------- */

/* libjpeg-turbo's version as its headers give it ("2.1.5"): the library has no run-time
 * version call, and its soname pins the ABI these headers describe. */
const char *cjpeg_library_version(void);

#endif
