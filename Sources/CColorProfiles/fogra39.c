#include "ccolorprofiles.h"

// #embed is C23; clang takes it in every language mode but warns outside C23, and a
// warning fails the build (scripts/swift-build-checked.sh).
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
static const unsigned char fogra39[] = {
#embed "fogra39.icc"
};
#pragma clang diagnostic pop

const unsigned char *webimage_fogra39_profile_bytes(void) { return fogra39; }

size_t webimage_fogra39_profile_size(void) { return sizeof fogra39; }
