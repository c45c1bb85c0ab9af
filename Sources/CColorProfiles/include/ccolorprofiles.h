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

#endif
