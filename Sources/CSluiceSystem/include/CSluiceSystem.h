// The system interfaces Sluice's own transport needs that the Swift overlay of the C library leaves out: epoll and
// eventfd on Linux (on Apple platforms the Darwin module has everything, kqueue); and on every platform the types of
// the few OpenSSL functions it loads at run time (CSluiceTLS.h), and of the zlib, brotli and zstd functions that decode
// compressed bodies (CSluiceCompression.h), which need none of those libraries' headers.
#ifndef CSLUICESYSTEM_H
#define CSLUICESYSTEM_H

#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

#include "CSluiceCompression.h"
#include "CSluiceTLS.h"

#endif
