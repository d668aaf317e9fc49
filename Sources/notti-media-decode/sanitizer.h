// Whether the worker is built with a sanitizer: its runtime reserves terabytes of address space
// (no --memory-mib limit then) and makes system calls of its own (no seccomp filter then).
#ifndef NOTTI_DECODE_SANITIZER_H
#define NOTTI_DECODE_SANITIZER_H

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

#endif
