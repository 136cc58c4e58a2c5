// The system interfaces Sluice's own transport needs that the Swift overlay of the C library leaves out: epoll and
// eventfd on Linux (on Apple platforms the Darwin module has everything, kqueue); and on every platform the types of
// the few OpenSSL functions it loads at run time (CSluiceTLS.h), and of the zlib, brotli and zstd functions that decode
// compressed bodies (CSluiceCompression.h), and of the nghttp2 functions that speak HTTP/2 (CSluiceHTTP2.h), which need
// none of those libraries' headers.
#ifndef CSLUICESYSTEM_H
#define CSLUICESYSTEM_H

#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

#include <stdint.h>

#include "CSluiceCompression.h"
#include "CSluiceHTTP2.h"
#include "CSluiceTLS.h"

// A count shared by threads, changed and read with the C compilers' atomic builtins, relaxed: it orders no other
// memory. Swift's own `Atomic` (the Synchronization module) needs macOS 15 and iOS 18.
static inline intptr_t sluice_atomic_add(intptr_t *_Nonnull word, intptr_t delta) {
    return __atomic_add_fetch(word, delta, __ATOMIC_RELAXED);
}

static inline intptr_t sluice_atomic_load(const intptr_t *_Nonnull word) {
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

#endif
