/* The interface between src/lib.c (public API, backend choice) and the
 * arithmetic core, which src/core.c compiles once per CPU backend. Only
 * coarse operations cross it, so the backend is chosen once per call of a
 * whole algorithm, never per field operation. */
#ifndef CUZK_CORE_H
#define CUZK_CORE_H

struct cuzk_core_ops {
    const char *name; /* "portable" or "x86_64-adx" */
    int (*selftest)(void);
};

extern const struct cuzk_core_ops cuzk_core_portable;
#if defined(__x86_64__)
extern const struct cuzk_core_ops cuzk_core_adx;
#endif

#endif
