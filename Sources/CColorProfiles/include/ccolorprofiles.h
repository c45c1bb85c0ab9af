#ifndef CCOLORPROFILES_H
#define CCOLORPROFILES_H

#include <stddef.h>

/// The ICC bytes of the CMYK profile that CMYK images without one of their own are
/// converted through: "Coated FOGRA39", fitted to Fogra's measurements by
/// scripts/make-cmyk-profile.sh. Compiled into the library (#embed) rather than read
/// from a file, so that every build, installed binary and test has it with no resource
/// bundle to find at run time.
const unsigned char *webimage_fogra39_profile_bytes(void);
/// The number of bytes at webimage_fogra39_profile_bytes().
size_t webimage_fogra39_profile_size(void);

/// The most bytes Little CMS may allocate at once once the limit is installed: 48 MiB.
#define WEBIMAGE_LCMS_ALLOCATION_LIMIT (48u << 20)

/// Installs, for Little CMS's global context, a memory handler that refuses any single
/// allocation over WEBIMAGE_LCMS_ALLOCATION_LIMIT (a profile of a few kilobytes can
/// declare a table of hundreds of megabytes). Returns 1 on success. Call before profiles
/// from untrusted files are opened; blocks allocated before it are freed with free(), as
/// the handler's own are.
int webimage_lcms_limit_allocations(void);

#endif
