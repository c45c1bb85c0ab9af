#include "cpng.h"
#include <limits.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// Ancillary chunks we never use: skipping them saves work and closes the zTXt
// decompression paths to hostile input. iCCP, sRGB, gAMA and cHRM are read (the colour
// description, see cpng_decoder_color); libpng applies none of them to the pixels.
static const png_byte ignored_chunks[] =
    "tEXt\0zTXt\0iTXt\0sPLT\0eXIf\0hIST\0pCAL\0sCAL\0sTER\0";

// One libpng read struct with our error text, limits and buffers. The one-shot decoder
// and the progressive stream differ only in how bytes reach libpng (png_set_read_fn or
// png_set_progressive_read_fn on the same png_struct, as libpng itself is built), so they
// share this type, its creation, error handling and clean-up.
struct cpng_reader {
    png_structp png;
    png_infop info;
    char message[160];
    // One-shot reading (cpng_decoder_*): the caller's bytes and the row pointers, kept
    // here so that they are freed even after a longjmp.
    const uint8_t *data;
    size_t size;
    size_t offset;
    png_bytep *rows;
    // Progressive reading (cpng_stream_*).
    uint64_t max_pixels;
    cpng_header header;
    int header_read;
    int finished;
    int failed;
    uint8_t *canvas;
    size_t rows_drawn;
};

static void copy_message(char *target, size_t capacity, const char *text) {
    if (capacity == 0) return;
    strncpy(target, text ? text : "libpng error", capacity - 1);
    target[capacity - 1] = '\0';
}

static void reader_error(png_structp png, png_const_charp message) {
    cpng_reader *reader = png_get_error_ptr(png);
    if (reader) copy_message(reader->message, sizeof reader->message, message);
    png_longjmp(png, 1);
}

static void silent_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

// Never reads past the bytes given: a short stream becomes a libpng error, not a crash.
static void read_memory(png_structp png, png_bytep out, size_t length) {
    cpng_reader *decoder = png_get_io_ptr(png);
    if (!decoder || length > decoder->size - decoder->offset) {
        png_error(png, "unexpected end of data");
    }
    memcpy(out, decoder->data + decoder->offset, length);
    decoder->offset += length;
}

// The safety limits every reader gets: dimensions, ancillary-chunk count and size, and
// unknown chunks dropped unread.
static void apply_limits(png_structp png, uint32_t max_width, uint32_t max_height) {
    png_set_user_limits(png, max_width, max_height);
    png_set_chunk_cache_max(png, 128);
    png_set_chunk_malloc_max(png, 8u << 20);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, ignored_chunks,
                                (int)(sizeof ignored_chunks / 5));
}

static void read_header_fields(png_structp png, png_infop info, cpng_header *header) {
    header->width = png_get_image_width(png, info);
    header->height = png_get_image_height(png, info);
    header->bit_depth = png_get_bit_depth(png, info);
    header->color_type = png_get_color_type(png, info);
    header->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    header->has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
}

// Everything becomes 8-bit RGBA: palette and low-depth grey expand, tRNS becomes alpha,
// 16-bit is scaled to 8 bits rounded (v * 255 / 65535, not the high byte, which is up to
// one step too dark), opaque types get alpha 255. Must run inside the caller's setjmp: a
// layout mismatch is a libpng error.
static void request_rgba8(png_structp png, png_infop info, const cpng_header *header) {
    png_set_expand(png);
    png_set_scale_16(png);
    png_set_gray_to_rgb(png);
    if (!(header->color_type & PNG_COLOR_MASK_ALPHA) && !header->has_trns) {
        png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    }
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)header->width * 4) {
        png_error(png, "unexpected row layout after transforms");
    }
}

// A reader with its libpng structures and limits, not yet told where bytes come from;
// NULL when memory runs out.
static cpng_reader *reader_create(uint32_t max_width, uint32_t max_height) {
    cpng_reader *reader = calloc(1, sizeof *reader);
    if (!reader) return NULL;
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader, reader_error, silent_warning);
    if (!reader->png) { free(reader); return NULL; }
    reader->info = png_create_info_struct(reader->png);
    if (!reader->info) { cpng_reader_destroy(reader); return NULL; }
    apply_limits(reader->png, max_width, max_height);
    return reader;
}

const char *cpng_reader_error(const cpng_reader *reader) {
    return reader ? reader->message : "";
}

void cpng_reader_destroy(cpng_reader *reader) {
    if (!reader) return;
    png_destroy_read_struct(&reader->png, reader->info ? &reader->info : NULL, NULL);
    free(reader->rows);
    free(reader->canvas);
    free(reader);
}

cpng_reader *cpng_decoder_create(const uint8_t *data, size_t size, uint32_t max_width, uint32_t max_height) {
    cpng_reader *decoder = reader_create(max_width, max_height);
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->size = data ? size : 0;
    png_set_read_fn(decoder->png, decoder, read_memory);
    return decoder;
}

int cpng_decoder_read_header(cpng_reader *decoder, cpng_header *header) {
    if (!decoder || !header) return -1;
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    if (setjmp(png_jmpbuf(png))) return -1;
    png_read_info(png, info);
    read_header_fields(png, info, header);
    request_rgba8(png, info, header);
    return 0;
}

void cpng_decoder_color(const cpng_reader *decoder, cpng_color *color) {
    memset(color, 0, sizeof *color);
    if (!decoder) return;
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 length = 0;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &length) == PNG_INFO_iCCP && profile) {
        color->icc = profile;
        color->icc_length = length;
    }
    int intent = 0;
    color->srgb = png_get_sRGB(png, info, &intent) == PNG_INFO_sRGB;
    double gamma = 0;
    if (png_get_gAMA(png, info, &gamma) == PNG_INFO_gAMA && gamma > 0) color->gamma = gamma;
    double wx, wy, rx, ry, gx, gy, bx, by;
    if (png_get_cHRM(png, info, &wx, &wy, &rx, &ry, &gx, &gy, &bx, &by) == PNG_INFO_cHRM) {
        color->has_chromaticities = 1;
        color->white_x = wx; color->white_y = wy;
        color->red_x = rx; color->red_y = ry;
        color->green_x = gx; color->green_y = gy;
        color->blue_x = bx; color->blue_y = by;
    }
}

int cpng_decoder_read_rgba(cpng_reader *decoder, uint8_t *pixels, size_t bytes_per_row, size_t buffer_size) {
    if (!decoder || !pixels) return -1;
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    if (setjmp(png_jmpbuf(png))) return -1;
    png_uint_32 width = png_get_image_width(png, info);
    png_uint_32 height = png_get_image_height(png, info);
    if (height == 0 || bytes_per_row < (size_t)width * 4 || buffer_size / bytes_per_row < height) {
        png_error(png, "pixel buffer too small");
    }
    free(decoder->rows);
    decoder->rows = malloc(sizeof(png_bytep) * height);
    if (!decoder->rows) png_error(png, "out of memory for row pointers");
    for (png_uint_32 y = 0; y < height; y++) decoder->rows[y] = pixels + (size_t)y * bytes_per_row;
    png_read_image(png, decoder->rows);
    return 0;
}

// MARK: Encoding

typedef struct {
    cpng_buffer *out;
    char message[160];
} encode_context;

static void encoder_error(png_structp png, png_const_charp message) {
    encode_context *context = png_get_error_ptr(png);
    if (context) copy_message(context->message, sizeof context->message, message);
    png_longjmp(png, 1);
}

static void write_memory(png_structp png, png_bytep bytes, size_t length) {
    encode_context *context = png_get_io_ptr(png);
    cpng_buffer *out = context->out;
    if (length > SIZE_MAX - out->size) png_error(png, "output too large");
    size_t needed = out->size + length;
    if (needed > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 4096;
        while (capacity < needed) {
            if (capacity > SIZE_MAX / 2) { capacity = needed; break; }
            capacity *= 2;
        }
        uint8_t *grown = realloc(out->data, capacity);
        if (!grown) png_error(png, "out of memory for output");
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->size, bytes, length);
    out->size = needed;
}

static void flush_memory(png_structp png) { (void)png; }

int cpng_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t bytes_per_row,
                int keep_alpha, int level, const uint8_t *icc_profile, uint32_t icc_length,
                cpng_buffer *out, char *message, size_t message_size) {
    if (!pixels || !out || width == 0 || height == 0 || bytes_per_row < (size_t)width * 4) {
        copy_message(message, message_size, "invalid encode arguments");
        return -1;
    }
    encode_context context = { .out = out, .message = "" };
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context, encoder_error, silent_warning);
    if (!png) { copy_message(message, message_size, "out of memory"); return -1; }
    png_infop info = png_create_info_struct(png);
    // Row pointers live outside the setjmp scope's locals so a longjmp cannot leave them
    // in an indeterminate register; `volatile` makes the later free see the real value.
    png_bytep *volatile rows = NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        free(rows);
        png_destroy_write_struct(&png, info ? &info : NULL);
        copy_message(message, message_size, context.message[0] ? context.message : "out of memory");
        return -1;
    }
    png_set_write_fn(png, &context, write_memory, flush_memory);
    png_set_compression_level(png, level < 0 ? 0 : level > 9 ? 9 : level);
    png_set_IHDR(png, info, width, height, 8,
                 keep_alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (icc_profile && icc_length > 0) {
        // The profile is written as the source had it. libpng checks it first and, by
        // default, fails the whole write for one it calls a "known incorrect sRGB profile":
        // HP's 1998 sRGB IEC61966-2.1, the profile of a large share of the web's photos
        // (Photoshop embeds it). Skip that comparison; any other complaint about a profile
        // (a malformed header, say) is made a warning, so the image is written without
        // the chunk instead of not at all. Benign errors stay warnings for the rest of the
        // write: turning them off again would also make libpng's application warnings
        // errors, which a write struct does not start with.
        png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
        png_set_benign_errors(png, 1);
        png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, icc_profile, icc_length);
        // A profile libpng refused (its header or tag table, by libpng's stricter rules than
        // Little CMS's) was dropped with a warning. Writing the pixels untagged would leave
        // them in that profile's colours with nothing saying so: the caller converts them to
        // sRGB and writes again, without the profile.
        if (!png_get_valid(png, info, PNG_INFO_iCCP)) {
            png_destroy_write_struct(&png, &info);
            copy_message(message, message_size, "libpng refused the ICC profile");
            return CPNG_PROFILE_REFUSED;
        }
    }
    png_write_info(png, info);
    if (!keep_alpha) png_set_filler(png, 0, PNG_FILLER_AFTER);
    png_bytep *allocated = malloc(sizeof(png_bytep) * height);
    rows = allocated;
    if (!allocated) png_error(png, "out of memory for row pointers");
    for (uint32_t y = 0; y < height; y++) allocated[y] = (png_bytep)(pixels + (size_t)y * bytes_per_row);
    png_write_image(png, allocated);
    png_write_end(png, NULL);
    free(allocated);
    rows = NULL;
    png_destroy_write_struct(&png, &info);
    return 0;
}

void cpng_buffer_free(cpng_buffer *buffer) {
    if (!buffer) return;
    free(buffer->data);
    buffer->data = NULL;
    buffer->size = 0;
    buffer->capacity = 0;
}

// MARK: Progressive reading


// Runs once IHDR and the chunks before IDAT are in: the same RGBA8 transforms as the
// one-shot reader, then the canvas, allocated only after the size passed the limits.
static void stream_info(png_structp png, png_infop info) {
    cpng_reader *stream = png_get_progressive_ptr(png);
    cpng_header *header = &stream->header;
    read_header_fields(png, info, header);
    if ((uint64_t)header->width * header->height > stream->max_pixels) png_error(png, "image too large");
    request_rgba8(png, info, header);
    stream->canvas = calloc((size_t)header->height, (size_t)header->width * 4);
    if (!stream->canvas) png_error(png, "out of memory for the canvas");
    stream->header_read = 1;
}

static void stream_row(png_structp png, png_bytep new_row, png_uint_32 row_number, int pass) {
    (void)pass;
    cpng_reader *stream = png_get_progressive_ptr(png);
    // NULL rows are Adam7 rows a pass does not touch: the canvas keeps what it has.
    if (!new_row || !stream->canvas || row_number >= stream->header.height) return;
    png_progressive_combine_row(png, stream->canvas + (size_t)row_number * stream->header.width * 4, new_row);
    stream->rows_drawn++;
}

static void stream_end(png_structp png, png_infop info) {
    (void)info;
    cpng_reader *stream = png_get_progressive_ptr(png);
    stream->finished = 1;
}

cpng_reader *cpng_stream_create(uint32_t max_width, uint32_t max_height, uint64_t max_pixels) {
    cpng_reader *stream = reader_create(max_width, max_height);
    if (!stream) return NULL;
    stream->max_pixels = max_pixels;
    png_set_progressive_read_fn(stream->png, stream, stream_info, stream_row, stream_end);
    return stream;
}

int cpng_stream_feed(cpng_reader *stream, const uint8_t *data, size_t size) {
    if (!stream || stream->failed) return -1;
    if (size == 0 || stream->finished) return 0;
    if (!data) return -1;
    if (setjmp(png_jmpbuf(stream->png))) {
        stream->failed = 1;
        return -1;
    }
    // libpng's API takes a mutable pointer but only reads (or copies) the bytes.
    png_process_data(stream->png, stream->info, (png_bytep)data, size);
    return 0;
}

int cpng_stream_header(const cpng_reader *stream, cpng_header *header) {
    if (!stream || !header || !stream->header_read) return 0;
    *header = stream->header;
    return 1;
}

const uint8_t *cpng_stream_canvas(const cpng_reader *stream, size_t *rows_drawn) {
    *rows_drawn = stream ? stream->rows_drawn : 0;
    return stream ? stream->canvas : NULL;
}

int cpng_stream_finished(const cpng_reader *stream) {
    return stream && stream->finished;
}

const char *cpng_library_version(void) {
    return png_get_libpng_ver(NULL);
}

long cpng_inflate(const uint8_t *data, size_t length, uint8_t *out, size_t capacity) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (length > UINT_MAX || capacity > UINT_MAX || inflateInit(&stream) != Z_OK) return -1;
    stream.next_in = (Bytef *)data;
    stream.avail_in = (uInt)length;
    stream.next_out = out;
    stream.avail_out = (uInt)capacity;
    /* One call with all input and all room: anything but the stream's end (a damaged or
     * truncated stream, or no room left) is a failure. */
    int status = inflate(&stream, Z_FINISH);
    long written = status == Z_STREAM_END ? (long)stream.total_out : -1;
    inflateEnd(&stream);
    return written;
}
