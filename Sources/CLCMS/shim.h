#include <lcms2.h>

/* lcms2's pixel-format names are macros built from shifts, which Swift does not import;
 * these constants give the layouts ColorTransform uses their lcms values. */
static const cmsUInt32Number clcms_type_rgba_8 = TYPE_RGBA_8;
static const cmsUInt32Number clcms_type_rgb_8 = TYPE_RGB_8;
static const cmsUInt32Number clcms_type_gray_8 = TYPE_GRAY_8;
static const cmsUInt32Number clcms_type_cmyk_8 = TYPE_CMYK_8;
/* Adobe's inverted CMYK (0 = full ink), as Photoshop writes it in JPEG. */
static const cmsUInt32Number clcms_type_cmyk_8_rev = TYPE_CMYK_8_REV;
/* 8-bit CIELab then alpha (lcms defines no such name): L 0-255 for 0-100, a and b offset
 * by 128. */
static const cmsUInt32Number clcms_type_laba_8 = (COLORSPACE_SH(PT_Lab)|EXTRA_SH(1)|CHANNELS_SH(3)|BYTES_SH(1));
/* 16-bit CMYK in, 16-bit RGB out: how ColorTransform.CMYKTable samples a CMYK transform at
 * Little CMS's own grid nodes. */
static const cmsUInt32Number clcms_type_cmyk_16 = TYPE_CMYK_16;
static const cmsUInt32Number clcms_type_rgb_16 = TYPE_RGB_16;
