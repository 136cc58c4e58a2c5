// The module is its header; this file exists because a C target needs a source file.
#include "CSluiceSystem.h"
