#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H
#include <stddef.h>
#include <stdint.h>

// libpng reports fatal errors with longjmp, which must not cross Swift frames, so every
// libpng call that can fail runs inside a setjmp in shim.c. Swift sees plain return codes
// (0 = success) and a one-line message.

/// A reader of one PNG stream held in memory. Owns its libpng structures.
typedef struct cpng_decoder cpng_decoder;

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
cpng_decoder *cpng_decoder_create(const uint8_t *data, size_t size, uint32_t max_width, uint32_t max_height);
/// Reads the chunks before the image data and sets the RGBA8 output transforms.
int cpng_decoder_read_header(cpng_decoder *decoder, cpng_header *header);
/// Decodes the whole image as 8-bit RGBA into `pixels` (`height` rows of `bytes_per_row`,
/// `buffer_size` bytes in all; checked). Call after cpng_decoder_read_header.
int cpng_decoder_read_rgba(cpng_decoder *decoder, uint8_t *pixels, size_t bytes_per_row, size_t buffer_size);
/// The last error's message (empty when none). Valid until the decoder is destroyed.
const char *cpng_decoder_error(const cpng_decoder *decoder);
void cpng_decoder_destroy(cpng_decoder *decoder);

/// A growable output buffer filled by cpng_encode; free it with cpng_buffer_free.
typedef struct {
    uint8_t *data;
    size_t size;
    size_t capacity;
} cpng_buffer;

/// Encodes 8-bit RGBA rows as a PNG: colour type RGBA, or RGB when `keep_alpha` is 0
/// (the fourth byte of each pixel is then dropped). `level` is zlib's 0...9.
/// On failure returns non-zero and writes a message into `message`.
int cpng_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t bytes_per_row,
                int keep_alpha, int level, cpng_buffer *out, char *message, size_t message_size);
void cpng_buffer_free(cpng_buffer *buffer);

#endif
