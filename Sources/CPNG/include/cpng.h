#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H
#include <stddef.h>
#include <stdint.h>

// libpng reports fatal errors with longjmp, which must not cross Swift frames, so every
// libpng call that can fail runs inside a setjmp in shim.c. Swift sees plain return codes
// (0 = success) and a one-line message.

/// A reader of one PNG stream: either held in memory (cpng_decoder_*) or arriving in pieces
/// (cpng_stream_*). Owns its libpng structures and buffers.
typedef struct cpng_reader cpng_reader;

/// What IHDR says, plus whether a tRNS chunk was seen before the image data.
typedef struct {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    int interlaced;
    int has_trns;
} cpng_header;

/// A decoder over `size` bytes at `data` (not copied: they must outlive the decoder).
/// Images wider than `max_width` or taller than `max_height` are refused by libpng itself.
/// Returns NULL only when memory runs out.
cpng_reader *cpng_decoder_create(const uint8_t *data, size_t size, uint32_t max_width, uint32_t max_height);
/// Reads the chunks before the image data and sets the RGBA8 output transforms.
int cpng_decoder_read_header(cpng_reader *decoder, cpng_header *header);
/// What the chunks before the image data say about colour. `icc` points into the
/// decoder's own storage (valid until it is destroyed); fields are 0 when absent.
typedef struct {
    const uint8_t *icc;      /// the decompressed iCCP profile
    uint32_t icc_length;
    int srgb;                /// an sRGB chunk: the pixels are sRGB
    double gamma;            /// gAMA: the file's gamma (0.45455 for 1/2.2)
    int has_chromaticities;  /// cHRM, with the white point and primaries below
    double white_x, white_y, red_x, red_y, green_x, green_y, blue_x, blue_y;
} cpng_color;

/// The colour description read by cpng_decoder_read_header.
void cpng_decoder_color(const cpng_reader *decoder, cpng_color *color);
/// Decodes the whole image as 8-bit RGBA into `pixels` (`height` rows of `bytes_per_row`,
/// `buffer_size` bytes in all; checked). Call after cpng_decoder_read_header.
int cpng_decoder_read_rgba(cpng_reader *decoder, uint8_t *pixels, size_t bytes_per_row, size_t buffer_size);
/// The last error's message (empty when none). Valid until the reader is destroyed.
const char *cpng_reader_error(const cpng_reader *reader);
void cpng_reader_destroy(cpng_reader *reader);

/// A growable output buffer filled by cpng_encode; free it with cpng_buffer_free.
typedef struct {
    uint8_t *data;
    size_t size;
    size_t capacity;
} cpng_buffer;

/// cpng_encode's answer when libpng refuses the ICC profile it was given.
#define CPNG_PROFILE_REFUSED 2

/// Encodes 8-bit RGBA rows as a PNG: colour type RGBA, or RGB when `keep_alpha` is 0
/// (the fourth byte of each pixel is then dropped). `level` is zlib's 0...9. An iCCP chunk
/// holds the `icc_length` bytes at `icc_profile` when it is not NULL; when libpng refuses
/// those bytes, nothing is written and CPNG_PROFILE_REFUSED is returned.
/// On failure returns non-zero and writes a message into `message`.
int cpng_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t bytes_per_row,
                int keep_alpha, int level, const uint8_t *icc_profile, uint32_t icc_length,
                cpng_buffer *out, char *message, size_t message_size);
void cpng_buffer_free(cpng_buffer *buffer);

/// Progressive reading (libpng's png_process_data) of a PNG arriving in pieces; used by
/// PNGProgressiveDecoder. Rows are drawn into an RGBA canvas it owns as they decode;
/// interlaced passes are combined the blocky way browsers show them (each pass's pixels
/// fill their whole Adam7 block until a later pass refines it). Pixels no row has reached
/// yet are transparent black.
///
/// A reader that refuses (as an error) images wider than `max_width`, taller than
/// `max_height` or of more than `max_pixels` pixels, before allocating the canvas.
/// Returns NULL only when memory runs out.
cpng_reader *cpng_stream_create(uint32_t max_width, uint32_t max_height, uint64_t max_pixels);
/// Hands the next `size` bytes to libpng, which decodes what they complete. 0 on
/// success; after a failure (-1) the reader is unusable and every later call fails.
int cpng_stream_feed(cpng_reader *stream, const uint8_t *data, size_t size);
/// 1 once IHDR and the chunks before the image data were read (filling `header`), else 0.
int cpng_stream_header(const cpng_reader *stream, cpng_header *header);
/// The RGBA canvas (height rows of width * 4 bytes) once the header was read, else NULL;
/// `rows_drawn` is how many row callbacks drew into it so far.
const uint8_t *cpng_stream_canvas(const cpng_reader *stream, size_t *rows_drawn);
/// 1 once the end of the image data was reached.
int cpng_stream_finished(const cpng_reader *stream);

/// The version of the libpng loaded at run time ("1.6.39").
const char *cpng_library_version(void);

/// Inflates the zlib stream of `length` bytes at `data` (a zTXt chunk's text) into `out`,
/// at most `capacity` bytes. Returns the bytes written, or -1 when the stream is damaged,
/// cut short or would inflate past `capacity` (so a small chunk cannot become a large
/// allocation: the caller sizes `out`).
long cpng_inflate(const uint8_t *data, size_t length, uint8_t *out, size_t capacity);

#endif
