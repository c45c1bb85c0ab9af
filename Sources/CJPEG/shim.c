/*
 * longjmp-safe wrappers around libjpeg(-turbo); see include/cjpeg.h.
 *
 * Each public function that calls into libjpeg sets a jmp_buf first; the error manager's
 * error_exit formats the message and jumps back there, so the failure surfaces as a
 * return code and never unwinds through Swift. libjpeg's state after such a jump is only
 * good for jpeg_destroy_*, which is all that follows.
 */

#include "cjpeg.h"

#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct cjpeg_error_mgr {
    struct jpeg_error_mgr pub; /* first member: libjpeg's cinfo->err points here */
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    long damage_warnings;
} cjpeg_error_mgr;

/* One libjpeg decompressor with our error manager. The one-shot decoder and the
 * incremental stream differ only in how bytes reach libjpeg (jpeg_mem_src, or our
 * suspending source manager), the way libjpeg itself uses one jpeg_decompress_struct for
 * both; so they share this type, its creation, its message and its clean-up. */
struct cjpeg_reader {
    struct jpeg_decompress_struct info;
    cjpeg_error_mgr error;
    /* One-shot decoding (cjpeg_decoder_*): the scan limit's monitor. */
    struct jpeg_progress_mgr progress;
    /* Incremental decoding (cjpeg_stream_*). */
    struct jpeg_source_mgr source;
    const unsigned char *base; /* the caller's bytes during a call, NULL between calls */
    size_t offset;             /* bytes libjpeg has consumed for good */
    size_t skip_pending;       /* bytes libjpeg asked to skip that had not arrived yet */
    int markers_saved;         /* jpeg_save_markers called (streams: on the first header read) */
    size_t marker_scan_offset; /* where count_saved_markers goes on (streams: across calls) */
    unsigned marker_scan_count;/* APP1 and APP2 markers it has met */
    int marker_scan_done;      /* it reached the first SOS or EOI */
    int header_read;
    int started;
    int buffered;              /* buffered-image mode (a multi-scan file) */
    int pass;                  /* PASS_* of the current output pass */
    int shown_scan;            /* the input scan the latest output pass showed */
    int failed;
};

static void fail_with_current_message(j_common_ptr cinfo) {
    cjpeg_error_mgr *error = (cjpeg_error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->message);
    longjmp(error->jump, 1);
}

/* libjpeg's default would print to stderr; a library must stay quiet. */
static void output_nothing(j_common_ptr cinfo) { (void)cinfo; }

/* Warnings that mean the entropy-coded data is missing or damaged from this point on. */
static int is_damage_warning(int code) {
    switch (code) {
    case JWRN_JPEG_EOF:       /* data ended early; libjpeg inserts a fake EOI */
    case JWRN_HIT_MARKER:     /* a scan's data ended early */
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_MUST_RESYNC:
        return 1;
    default:
        return 0;
    }
}

/*
 * Warnings (msg_level -1) are counted and decoding goes on, as in browsers: libjpeg fills
 * what it cannot read (grey for missing rows), so the rows before the damage are good.
 * Damage before the first iMCU row of the first scan was complete would leave nothing
 * good at all, so that becomes a failure, and we stop before decoding a grey image.
 */
static void emit_message(j_common_ptr cinfo, int msg_level) {
    if (msg_level >= 0) return; /* trace messages */
    cjpeg_error_mgr *error = (cjpeg_error_mgr *)cinfo->err;
    cinfo->err->num_warnings++;
    if (!cinfo->is_decompressor || !is_damage_warning(cinfo->err->msg_code)) return;
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    if (dinfo->input_scan_number <= 1 && dinfo->input_iMCU_row == 0) fail_with_current_message(cinfo);
    error->damage_warnings++;
}

/* Called once per iMCU row and once per scan while input is consumed. */
static void limit_scans(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    if (((j_decompress_ptr)cinfo)->input_scan_number > CJPEG_MAX_SCANS) {
        cjpeg_error_mgr *error = (cjpeg_error_mgr *)cinfo->err;
        snprintf(error->message, sizeof error->message, "more than %d scans", CJPEG_MAX_SCANS);
        longjmp(error->jump, 1);
    }
}

static void install_error_manager(cjpeg_error_mgr *error) {
    jpeg_std_error(&error->pub);
    error->pub.error_exit = fail_with_current_message;
    error->pub.output_message = output_nothing;
    error->pub.emit_message = emit_message;
    error->message[0] = '\0';
}

/* ---- Decoding: what the one-shot decoder and the incremental stream share --------- */

/* Counts the APP1 and APP2 markers before the first SOS, finding markers the way libjpeg's
 * next_marker does (extraneous bytes skipped, fill bytes skipped, a stuffed zero
 * discarded), from where the last call stopped; -1 once there are more than
 * CJPEG_MAX_SAVED_MARKERS. A stream offers its bytes so far on every call, so the walk
 * resumes instead of starting over, and the whole walk is linear in the file. */
static int count_saved_markers(cjpeg_reader *reader, const unsigned char *data, size_t size) {
    size_t at = reader->marker_scan_offset < 2 ? 2 : reader->marker_scan_offset; /* after SOI */
    while (!reader->marker_scan_done) {
        while (at < size && data[at] != 0xFF) at++;
        size_t first = at;
        while (at < size && data[at] == 0xFF) at++;
        if (at >= size) {
            /* Fill bytes are interchangeable: resume at the last one. */
            reader->marker_scan_offset = at > first ? at - 1 : at;
            return 0;
        }
        unsigned code = data[at];
        if (code == 0x00) { at++; continue; }
        if (code == 0xDA || code == 0xD9) { reader->marker_scan_done = 1; break; } /* SOS, EOI */
        if ((code >= 0xD0 && code <= 0xD8) || code == 0x01) { at++; continue; }   /* no length */
        if (size - at < 3) {
            reader->marker_scan_offset = at - 1; /* the length has not arrived: resume at 0xFF */
            return 0;
        }
        size_t length = ((size_t)data[at + 1] << 8) | data[at + 2];
        if ((code == 0xE1 || code == 0xE2) && ++reader->marker_scan_count > CJPEG_MAX_SAVED_MARKERS) return -1;
        if (length < 2) {
            /* libjpeg reads an APPn, COM or DNL marker whose length is under 2 as empty and
             * goes on after its two length bytes (so must the count, or one such marker
             * would hide every APP1 after it); it refuses any other marker so spelled. */
            if ((code >= 0xE0 && code <= 0xEF) || code == 0xFE || code == 0xDC) { at += 3; continue; }
            reader->marker_scan_done = 1;
            break;
        }
        at += 1 + length;
    }
    reader->marker_scan_offset = at;
    return 0;
}

static int fail_too_many_markers(cjpeg_reader *reader) {
    snprintf(reader->error.message, sizeof reader->error.message,
             "more than %d APP1/APP2 markers", CJPEG_MAX_SAVED_MARKERS);
    return -1;
}

/* Makes `info` a libjpeg decompressor that reports through `error`; -1 when libjpeg
 * fails (out of memory), leaving `info` safe to destroy. The setjmp may live in this
 * helper: libjpeg can only jump to it from jpeg_create_decompress, called from this
 * frame, and every later entry point sets its own. */
static int create_decompress(struct jpeg_decompress_struct *info, cjpeg_error_mgr *error) {
    install_error_manager(error);
    info->err = &error->pub;
    if (setjmp(error->jump)) return -1;
    jpeg_create_decompress(info);
    return 0;
}

/* The header fields the Swift side plans a decode with, from a header libjpeg has read. */
static void copy_header(const struct jpeg_decompress_struct *info, cjpeg_header *header) {
    header->width = info->image_width;
    header->height = info->image_height;
    header->num_components = info->num_components;
    header->jpeg_color_space = info->jpeg_color_space;
    header->progressive = info->progressive_mode ? 1 : 0;
    header->saw_adobe_marker = info->saw_Adobe_marker ? 1 : 0;
}

/* The output a decode asks for before jpeg_start_decompress: the colour space and the
 * DCT-domain scale scale_num/8. The accurate integer IDCT is libjpeg-turbo's default and
 * SIMD-accelerated; keeping it (and fancy upsampling) makes our pixels match Pillow's and
 * djpeg's. */
static void set_output(struct jpeg_decompress_struct *info, J_COLOR_SPACE out_color_space,
                       unsigned int scale_num) {
    info->out_color_space = out_color_space;
    info->scale_num = scale_num;
    info->scale_denom = 8;
    info->dct_method = JDCT_ISLOW;
}

/* The output size and components jpeg_start_decompress settled on. */
static void get_output_size(const struct jpeg_decompress_struct *info, unsigned int *out_width,
                            unsigned int *out_height, int *out_components) {
    *out_width = info->output_width;
    *out_height = info->output_height;
    *out_components = info->output_components;
}

/* A reader with its decompressor made, not yet given a source; NULL when out of memory. */
static cjpeg_reader *reader_new(void) {
    cjpeg_reader *reader = calloc(1, sizeof *reader);
    if (reader == NULL) return NULL;
    if (create_decompress(&reader->info, &reader->error) != 0) {
        cjpeg_reader_free(reader); /* jpeg_destroy copes with a half-made object */
        return NULL;
    }
    return reader;
}

void cjpeg_reader_free(cjpeg_reader *reader) {
    if (reader == NULL) return;
    jpeg_destroy_decompress(&reader->info);
    free(reader);
}

const char *cjpeg_reader_message(const cjpeg_reader *reader) {
    return reader->error.message;
}

/* ---- One-shot decoding ------------------------------------------------------------- */

cjpeg_reader *cjpeg_decoder_new(void) {
    cjpeg_reader *decoder = reader_new();
    if (decoder == NULL) return NULL;
    decoder->progress.progress_monitor = limit_scans;
    decoder->info.progress = &decoder->progress;
    return decoder;
}

int cjpeg_decoder_read_header(cjpeg_reader *decoder, const unsigned char *data, size_t size,
                              cjpeg_header *header) {
    if (count_saved_markers(decoder, data, size) != 0) return fail_too_many_markers(decoder);
    if (setjmp(decoder->error.jump)) return -1;
    jpeg_mem_src(&decoder->info, data, (unsigned long)size);
    /* EXIF and XMP can each fill a whole marker, and an ICC profile is split over as many
     * APP2 markers as it needs. APP14 needs no saving: libjpeg parses it itself into
     * saw_Adobe_marker. */
    jpeg_save_markers(&decoder->info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&decoder->info, JPEG_APP0 + 2, 0xFFFF);
    if (jpeg_read_header(&decoder->info, TRUE) != JPEG_HEADER_OK) {
        snprintf(decoder->error.message, sizeof decoder->error.message, "no image in the JPEG stream");
        return -1;
    }
    /* Metadata is read from the header's markers only; markers between later scans, which
     * count_saved_markers did not see, are skipped instead of saved. */
    jpeg_save_markers(&decoder->info, JPEG_APP0 + 1, 0);
    jpeg_save_markers(&decoder->info, JPEG_APP0 + 2, 0);
    copy_header(&decoder->info, header);
    return 0;
}

size_t cjpeg_decoder_app1(const cjpeg_reader *decoder, const unsigned char *signature,
                          size_t signature_length, const unsigned char **bytes) {
    for (jpeg_saved_marker_ptr marker = decoder->info.marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data != NULL && marker->data_length >= signature_length &&
            memcmp(marker->data, signature, signature_length) == 0) {
            *bytes = marker->data;
            return marker->data_length;
        }
    }
    return 0;
}

int cjpeg_decoder_start(cjpeg_reader *decoder, J_COLOR_SPACE out_color_space,
                        unsigned int scale_num, unsigned int *out_width,
                        unsigned int *out_height, int *out_components) {
    if (setjmp(decoder->error.jump)) return -1;
    set_output(&decoder->info, out_color_space, scale_num);
    if (!jpeg_start_decompress(&decoder->info)) {
        snprintf(decoder->error.message, sizeof decoder->error.message, "decoder suspended");
        return -1;
    }
    get_output_size(&decoder->info, out_width, out_height, out_components);
    return 0;
}

int cjpeg_decoder_read_rows(cjpeg_reader *decoder, unsigned char *first_row,
                            ptrdiff_t row_stride, unsigned int max_rows,
                            unsigned int *rows_read) {
    *rows_read = 0;
    if (setjmp(decoder->error.jump)) return -1;
    /* libjpeg hands out at most one row group (up to 16 rows, more when upscaling) per
     * call; offering a batch lets it fill a whole group each time. */
    enum { batch = 32 };
    JSAMPROW rows[batch];
    struct jpeg_decompress_struct *info = &decoder->info;
    while (*rows_read < max_rows && info->output_scanline < info->output_height) {
        JDIMENSION first = info->output_scanline;
        JDIMENSION count = info->output_height - first;
        if (count > max_rows - *rows_read) count = max_rows - *rows_read;
        if (count > batch) count = batch;
        for (JDIMENSION i = 0; i < count; i++) rows[i] = first_row + (ptrdiff_t)(first + i) * row_stride;
        JDIMENSION got = jpeg_read_scanlines(info, rows, count);
        if (got == 0) {
            snprintf(decoder->error.message, sizeof decoder->error.message, "decoder made no progress");
            return -1;
        }
        *rows_read += got;
    }
    return 0;
}

size_t cjpeg_decoder_icc_profile(cjpeg_reader *decoder, unsigned char **bytes) {
    *bytes = NULL;
    if (setjmp(decoder->error.jump)) return 0;
    JOCTET *profile = NULL;
    unsigned int length = 0;
    /* libjpeg-turbo reassembles the APP2 "ICC_PROFILE" markers by sequence number and
     * rejects a set with gaps, duplicates or inconsistent counts. */
    if (!jpeg_read_icc_profile(&decoder->info, &profile, &length) || profile == NULL) return 0;
    *bytes = profile;
    return length;
}

long cjpeg_decoder_damage_warnings(const cjpeg_reader *decoder) {
    return decoder->error.damage_warnings;
}

/* ---- Encoding ---------------------------------------------------------------------- */

typedef struct cjpeg_encoder {
    struct jpeg_compress_struct info;
    cjpeg_error_mgr error;
    unsigned char *out;
    unsigned long out_size;
    int destination_ready;
} cjpeg_encoder;

/* One APP1 marker: `prefix` then `payload`, or nothing when they would not fit in the
 * 65,533 bytes a marker holds (a marker's length field counts itself too). */
static void write_app1(j_compress_ptr info, const char *prefix, unsigned int prefix_length,
                       const unsigned char *payload, unsigned int length) {
    if (payload == NULL || length == 0 || length > 65533u - prefix_length) return;
    jpeg_write_m_header(info, JPEG_APP0 + 1, prefix_length + length);
    for (unsigned int i = 0; i < prefix_length; i++) jpeg_write_m_byte(info, (unsigned char)prefix[i]);
    for (unsigned int i = 0; i < length; i++) jpeg_write_m_byte(info, payload[i]);
}

int cjpeg_encode_rgbx(const unsigned char *pixels, unsigned int width, unsigned int height,
                      size_t row_stride, int quality, const cjpeg_metadata *metadata,
                      unsigned char **out, unsigned long *out_size, char *message) {
    *out = NULL;
    *out_size = 0;
    /* On the heap so that nothing the jump returns to lives in a clobberable register. */
    cjpeg_encoder *encoder = calloc(1, sizeof *encoder);
    if (encoder == NULL) {
        snprintf(message, JMSG_LENGTH_MAX, "out of memory");
        return -1;
    }
    install_error_manager(&encoder->error);
    encoder->info.err = &encoder->error.pub;
    if (setjmp(encoder->error.jump)) {
        snprintf(message, JMSG_LENGTH_MAX, "%s", encoder->error.message);
        /* jpeg_mem_dest swaps in a bigger buffer as output grows and only publishes the
         * current one in term_destination; call it so the one live buffer is freed. */
        if (encoder->destination_ready) (*encoder->info.dest->term_destination)(&encoder->info);
        free(encoder->out);
        jpeg_destroy_compress(&encoder->info);
        free(encoder);
        return -1;
    }
    jpeg_create_compress(&encoder->info);
    jpeg_mem_dest(&encoder->info, &encoder->out, &encoder->out_size);
    encoder->destination_ready = 1;

    encoder->info.image_width = width;
    encoder->info.image_height = height;
    encoder->info.input_components = 4;
    encoder->info.in_color_space = JCS_EXT_RGBX; /* libjpeg-turbo reads RGBA memory directly */
    jpeg_set_defaults(&encoder->info);           /* YCbCr, 4:2:0, accurate DCT */
    jpeg_set_quality(&encoder->info, quality, TRUE);
    encoder->info.optimize_coding = TRUE;        /* a few % smaller for one more pass */
    jpeg_start_compress(&encoder->info, TRUE);
    if (metadata != NULL) {
        /* EXIF first, as its standard wants it right after the start (JFIF's APP0 aside). */
        write_app1(&encoder->info, "Exif\0", 6, metadata->exif, metadata->exif_length);
        write_app1(&encoder->info, "http://ns.adobe.com/xap/1.0/", 29, metadata->xmp, metadata->xmp_length);
        /* Split over APP2 markers of at most 65,519 bytes each, as ICC.1 Annex B says. */
        if (metadata->icc_profile != NULL && metadata->icc_length > 0) {
            jpeg_write_icc_profile(&encoder->info, metadata->icc_profile, metadata->icc_length);
        }
    }

    enum { batch = 32 };
    JSAMPROW rows[batch];
    while (encoder->info.next_scanline < height) {
        JDIMENSION first = encoder->info.next_scanline;
        JDIMENSION count = height - first;
        if (count > batch) count = batch;
        /* libjpeg's row type is not const, but compression only reads the rows. */
        for (JDIMENSION i = 0; i < count; i++) rows[i] = (JSAMPROW)(pixels + (size_t)(first + i) * row_stride);
        if (jpeg_write_scanlines(&encoder->info, rows, count) == 0) {
            snprintf(encoder->error.message, sizeof encoder->error.message, "encoder made no progress");
            longjmp(encoder->error.jump, 1);
        }
    }
    jpeg_finish_compress(&encoder->info);
    jpeg_destroy_compress(&encoder->info);

    *out = encoder->out;
    *out_size = encoder->out_size;
    free(encoder);
    return 0;
}

/* ---- Incremental decoding ---------------------------------------------------------- */

enum { PASS_IDLE, PASS_READING, PASS_FINISHING };

static void stream_init_source(j_decompress_ptr cinfo) { (void)cinfo; }

/* The suspension protocol: FALSE with the buffer untouched makes libjpeg back up to its
 * last committed point and return JPEG_SUSPENDED; the same bytes are offered again, with
 * more after them, on the next call. */
static boolean stream_fill_input_buffer(j_decompress_ptr cinfo) {
    (void)cinfo;
    return FALSE;
}

/* A skip beyond the bytes so far is remembered and taken from the next bytes to arrive. */
static void stream_skip_input_data(j_decompress_ptr cinfo, long num_bytes) {
    if (num_bytes <= 0) return;
    struct jpeg_source_mgr *source = cinfo->src;
    cjpeg_reader *stream = (cjpeg_reader *)cinfo; /* info is the first member */
    if ((size_t)num_bytes <= source->bytes_in_buffer) {
        source->next_input_byte += num_bytes;
        source->bytes_in_buffer -= (size_t)num_bytes;
    } else {
        stream->skip_pending += (size_t)num_bytes - source->bytes_in_buffer;
        source->next_input_byte += source->bytes_in_buffer;
        source->bytes_in_buffer = 0;
    }
}

static void stream_term_source(j_decompress_ptr cinfo) { (void)cinfo; }

/* Points libjpeg at the bytes so far for the length of one call. libjpeg keeps no pointer
 * into them between calls except the source's, which is rebuilt here from the offset. */
static int stream_attach(cjpeg_reader *stream, const unsigned char *data, size_t size) {
    if (stream->failed) return -1;
    if (data == NULL || size < stream->offset) {
        snprintf(stream->error.message, sizeof stream->error.message, "the bytes so far shrank");
        stream->failed = 1;
        return -1;
    }
    size_t skip = size - stream->offset;
    if (skip > stream->skip_pending) skip = stream->skip_pending;
    stream->offset += skip;
    stream->skip_pending -= skip;
    stream->base = data;
    stream->source.next_input_byte = data + stream->offset;
    stream->source.bytes_in_buffer = size - stream->offset;
    return 0;
}

static void stream_detach(cjpeg_reader *stream) {
    if (stream->base != NULL) stream->offset = (size_t)(stream->source.next_input_byte - stream->base);
    stream->base = NULL;
    stream->source.next_input_byte = NULL;
    stream->source.bytes_in_buffer = 0;
}

/* After a longjmp libjpeg's state is only good for destruction: mark the stream failed. */
static int stream_fail(cjpeg_reader *stream) {
    stream->failed = 1;
    stream->base = NULL;
    return -1;
}

cjpeg_reader *cjpeg_stream_new(void) {
    cjpeg_reader *stream = reader_new();
    if (stream == NULL) return NULL;
    stream->source.init_source = stream_init_source;
    stream->source.fill_input_buffer = stream_fill_input_buffer;
    stream->source.skip_input_data = stream_skip_input_data;
    stream->source.resync_to_restart = jpeg_resync_to_restart;
    stream->source.term_source = stream_term_source;
    stream->info.src = &stream->source;
    return stream;
}

int cjpeg_stream_read_header(cjpeg_reader *stream, const unsigned char *data, size_t size,
                             cjpeg_header *header) {
    if (stream_attach(stream, data, size) != 0) return -1;
    if (setjmp(stream->error.jump)) return stream_fail(stream);
    if (!stream->markers_saved) {
        /* Here, under the setjmp, not in cjpeg_stream_new: an error it raised there would
         * longjmp to the jmp_buf of create_decompress, whose frame had returned. */
        jpeg_save_markers(&stream->info, JPEG_APP0 + 1, 0xFFFF);
        stream->markers_saved = 1;
    }
    if (!stream->header_read) {
        if (count_saved_markers(stream, data, size) != 0) {
            fail_too_many_markers(stream);
            return stream_fail(stream);
        }
        int result = jpeg_read_header(&stream->info, TRUE);
        if (result == JPEG_SUSPENDED) {
            stream_detach(stream);
            return 0;
        }
        if (result != JPEG_HEADER_OK) {
            snprintf(stream->error.message, sizeof stream->error.message, "no image in the JPEG stream");
            return stream_fail(stream);
        }
        stream->header_read = 1;
        jpeg_save_markers(&stream->info, JPEG_APP0 + 1, 0); /* as in cjpeg_decoder_read_header */
    }
    stream_detach(stream);
    copy_header(&stream->info, header);
    return 1;
}

int cjpeg_stream_start(cjpeg_reader *stream, const unsigned char *data, size_t size,
                       J_COLOR_SPACE out_color_space, unsigned int scale_num,
                       unsigned int *out_width, unsigned int *out_height, int *out_components) {
    if (!stream->header_read) {
        snprintf(stream->error.message, sizeof stream->error.message, "started before the header");
        return stream_fail(stream);
    }
    if (stream_attach(stream, data, size) != 0) return -1;
    if (setjmp(stream->error.jump)) return stream_fail(stream);
    if (!stream->started) {
        struct jpeg_decompress_struct *info = &stream->info;
        set_output(info, out_color_space, scale_num); /* as the one-shot decode */
        /* A coefficient buffer for the whole image is only worth it when scans refine it. */
        stream->buffered = jpeg_has_multiple_scans(info) ? 1 : 0;
        info->buffered_image = stream->buffered ? TRUE : FALSE;
        if (!jpeg_start_decompress(info)) {
            stream_detach(stream);
            return 0;
        }
        stream->started = 1;
    }
    stream_detach(stream);
    get_output_size(&stream->info, out_width, out_height, out_components);
    return 1;
}

/* Decodes every scan the bytes so far complete into the coefficient buffer. */
static void stream_consume_input(cjpeg_reader *stream) {
    struct jpeg_decompress_struct *info = &stream->info;
    while (!jpeg_input_complete(info)) {
        int result = jpeg_consume_input(info);
        if (info->input_scan_number > CJPEG_MAX_SCANS) {
            snprintf(stream->error.message, sizeof stream->error.message, "more than %d scans", CJPEG_MAX_SCANS);
            longjmp(stream->error.jump, 1);
        }
        if (result == JPEG_SUSPENDED || result == JPEG_REACHED_EOI) return;
    }
}

/* Reads up to one batch of rows of the current output pass at output_scanline. */
static JDIMENSION stream_read_batch(cjpeg_reader *stream, unsigned char *pixels, ptrdiff_t row_stride) {
    enum { batch = 32 };
    JSAMPROW rows[batch];
    struct jpeg_decompress_struct *info = &stream->info;
    JDIMENSION first = info->output_scanline;
    JDIMENSION count = info->output_height - first;
    if (count > batch) count = batch;
    for (JDIMENSION i = 0; i < count; i++) rows[i] = pixels + (ptrdiff_t)(first + i) * row_stride;
    return jpeg_read_scanlines(info, rows, count);
}

int cjpeg_stream_read_rows(cjpeg_reader *stream, const unsigned char *data, size_t size,
                           unsigned char *pixels, ptrdiff_t row_stride,
                           unsigned int *first_row, unsigned int *row_count) {
    *first_row = 0;
    *row_count = 0;
    if (!stream->started || pixels == NULL) {
        snprintf(stream->error.message, sizeof stream->error.message, "rows read before the start");
        return stream_fail(stream);
    }
    if (stream_attach(stream, data, size) != 0) return -1;
    if (setjmp(stream->error.jump)) return stream_fail(stream);
    struct jpeg_decompress_struct *info = &stream->info;
    int result = 0;
    if (!stream->buffered) {
        if (info->output_scanline < info->output_height) {
            JDIMENSION first = info->output_scanline;
            JDIMENSION got = stream_read_batch(stream, pixels, row_stride);
            *first_row = first;
            *row_count = got;
            result = got > 0 ? 1 : 0;
        }
        stream_detach(stream);
        return result;
    }

    stream_consume_input(stream);
    switch (stream->pass) {
    case PASS_FINISHING:
        /* The pass showed every row; its end waits for the next scan's marker or EOI. */
        if (jpeg_finish_output(info)) {
            stream->pass = PASS_IDLE;
            result = 1;
        }
        break;
    case PASS_IDLE:
        /* Show the newest scan that has begun; rows below its data keep the previous pass. */
        if (info->input_scan_number > stream->shown_scan) {
            if (jpeg_start_output(info, info->input_scan_number)) {
                stream->shown_scan = info->output_scan_number;
                stream->pass = PASS_READING;
                result = 1;
            }
        }
        break;
    case PASS_READING:
        if (info->output_scanline < info->output_height) {
            JDIMENSION first = info->output_scanline;
            JDIMENSION got = stream_read_batch(stream, pixels, row_stride);
            *first_row = first;
            *row_count = got;
            result = got > 0 ? 1 : 0;
        } else {
            stream->pass = PASS_FINISHING;
            result = 1;
        }
        break;
    }
    stream_detach(stream);
    return result;
}

#define CJPEG_STRINGIFY_(x) #x
#define CJPEG_STRINGIFY(x) CJPEG_STRINGIFY_(x)

const char *cjpeg_library_version(void) {
#ifdef LIBJPEG_TURBO_VERSION
    return CJPEG_STRINGIFY(LIBJPEG_TURBO_VERSION);
#else
    return "libjpeg " CJPEG_STRINGIFY(JPEG_LIB_VERSION);
#endif
}
