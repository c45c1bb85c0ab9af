// A bound on what Little CMS may allocate at once, for profiles that come from strangers.
//
// A profile of a few kilobytes can declare a lookup table of any grid size, and Little CMS
// allocates the table before it reads (or finds it cannot read) the data: a fuzzed CMYK
// profile in a TIFF asked for 233 MB in one malloc inside cmsReadTag. Real profiles are at
// most a few megabytes (ColorProfile.maximumSize is 4 MiB) and their tables, expanded to
// 16-bit or float for a transform, a few tens. An allocation past the limit fails, and
// Little CMS fails the profile or transform that needed it: the image is converted as if
// the profile were unusable, as for any other malformed profile.
#include <lcms2_plugin.h>
#include <stdlib.h>
#include "ccolorprofiles.h"

static void *limited_malloc(cmsContext context, cmsUInt32Number size) {
    (void)context;
    if (size > WEBIMAGE_LCMS_ALLOCATION_LIMIT) return NULL;
    return malloc(size);
}

static void limited_free(cmsContext context, void *pointer) {
    (void)context;
    free(pointer);
}

static void *limited_realloc(cmsContext context, void *pointer, cmsUInt32Number size) {
    (void)context;
    if (size > WEBIMAGE_LCMS_ALLOCATION_LIMIT) return NULL;
    return realloc(pointer, size);
}

static cmsPluginMemHandler limited_memory = {
    { cmsPluginMagicNumber, 2000, cmsPluginMemHandlerSig, NULL },
    limited_malloc, limited_free, limited_realloc,
    NULL, NULL, NULL
};

int webimage_lcms_limit_allocations(void) {
    return cmsPlugin(&limited_memory) ? 1 : 0;
}
