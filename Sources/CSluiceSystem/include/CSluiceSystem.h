// The system interfaces Sluice's own transport needs that the Swift overlay of the C library leaves out: epoll and
// eventfd on Linux. On Apple platforms the Darwin module has everything (kqueue), and this header declares nothing.
#ifndef CSLUICESYSTEM_H
#define CSLUICESYSTEM_H

#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

#endif
