// The system interfaces Sluice's own transport needs that the Swift overlay of the C library leaves out: epoll and
// eventfd on Linux (on Apple platforms the Darwin module has everything, kqueue); and on every platform the types of
// the few OpenSSL functions it loads at run time (CSluiceTLS.h), which need no OpenSSL header.
#ifndef CSLUICESYSTEM_H
#define CSLUICESYSTEM_H

#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

#include "CSluiceTLS.h"

#endif
