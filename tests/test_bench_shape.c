/* sb_shape: the one shape grammar MxNxK[:XY][@T], what each addition takes
 * and what it refuses, and its one maximum dimension. */
#include <string.h>
#include "sb_shape.h"
#include "testutil.h"

static void ok_shape(const char *s, int flags, int m, int n, int k, char ta, char tb, int t)
{
    sb_shape x;
    sb_err e = {0};
    CHECK(sb_shape_parse(s, flags, &x, &e) == SB_OK);
    CHECK_EQ_INT(x.m, m);
    CHECK_EQ_INT(x.n, n);
    CHECK_EQ_INT(x.k, k);
    CHECK_EQ_INT(x.transa, ta);
    CHECK_EQ_INT(x.transb, tb);
    CHECK_EQ_INT(x.threads, t);
}

static void bad_shape(const char *s, int flags, const char *msg)
{
    sb_shape x;
    sb_err e = {0};
    CHECK(sb_shape_parse(s, flags, &x, &e) == SB_EUSAGE);
    CHECK(strstr(e.msg, msg) != NULL);
}

int main(void)
{
    const int all = SB_SHAPE_THREADS | SB_SHAPE_PREFIX;
    ok_shape("64x32x16", 0, 64, 32, 16, 0, 0, 0);
    ok_shape("8X8X8:NT", 0, 8, 8, 8, 'N', 'T', 0);
    ok_shape("48x40x36:TN@3", SB_SHAPE_THREADS, 48, 40, 36, 'T', 'N', 3);
    ok_shape("48x40x36@1", SB_SHAPE_THREADS, 48, 40, 36, 0, 0, 1);
    ok_shape("NT:20x30x40@1", all, 20, 30, 40, 'N', 'T', 1); /* the tuner's old spelling */
    ok_shape("65536x1x1", 0, SB_SHAPE_MAX_DIM, 1, 1, 0, 0, 0);
    bad_shape("65537x1x1", all, "out of range");
    bad_shape("0x1x1", 0, "out of range");
    bad_shape("4x4", 0, "is not MxNxK");
    bad_shape("4x4x4x4", 0, "is not MxNxK");
    bad_shape("4x4x4:XY", all, "'XY' is not a transpose (NN, NT, TN, TT)");
    bad_shape("4x4x4:NNN", 0, "is not a transpose");
    bad_shape("XX:4x4x4", all, "'XX' is not a transpose");
    bad_shape("NT:4x4x4", 0, "is not a transpose"); /* the old spelling only where asked */
    bad_shape("4x4x4@2", 0, "shape dimension");     /* @T only where asked for */
    bad_shape("4x4x4@0", SB_SHAPE_THREADS, "thread count");
    bad_shape("NT:4x4x4:TN", all, "is not a transpose");
    return test_report("shape");
}
