/* Tiny assertion helpers shared by the C tests. */
#ifndef SB_TESTUTIL_H
#define SB_TESTUTIL_H
#include <math.h>
#include <stdio.h>

static int g_test_failures;
static int g_test_checks;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        g_test_checks++;                                                             \
        if (!(cond)) {                                                               \
            g_test_failures++;                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                      \
    do {                                                                                        \
        long long _a = (long long)(a), _b = (long long)(b);                                     \
        g_test_checks++;                                                                        \
        if (_a != _b) {                                                                         \
            g_test_failures++;                                                                  \
            fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, \
                    _a, #b, _b);                                                                \
        }                                                                                       \
    } while (0)

/* CHECKF(cond, fmt, ...): CHECK with a formatted message. */
#define CHECKF(cond, ...)                                   \
    do {                                                    \
        g_test_checks++;                                    \
        if (!(cond)) {                                      \
            g_test_failures++;                              \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                   \
            fputc('\n', stderr);                            \
        }                                                   \
    } while (0)

/* max |a[i] - b[i]|; INFINITY when either holds NaN at some i (never close) */
static inline double test_max_diff(const float *a, const float *b, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (d != d) return INFINITY;
        if (d > m) m = d;
    }
    return m;
}

static inline int test_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, g_test_checks, g_test_failures);
    return g_test_failures ? 1 : 0;
}

#endif
