#include "cjpeg.h"
