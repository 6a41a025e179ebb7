/* sb_shape: the one shape grammar MxNxK[:XY][@T], what each addition takes
 * and what it refuses (the stored form's +prepack, the tune file's XY MxNxK
 * among them), its one maximum dimension, and the text the sweep keeps. */
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

    /* the stored form (a sweep's point, `gemm --shape`): +prepack after it */
    sb_shape x;
    sb_err e = {0};
    CHECK(sb_shape_parse("16x8x4:NT+prepack", SB_SHAPE_PREPACK, &x, &e) == SB_OK);
    CHECK(x.m == 16 && x.n == 8 && x.k == 4 && x.transa == 'N' && x.transb == 'T' && x.prepack);
    CHECK(sb_shape_parse("8X9x10", SB_SHAPE_PREPACK, &x, &e) == SB_OK);
    CHECK(x.m == 8 && x.k == 10 && !x.transa && !x.prepack);
    ok_shape("8x9x10+prepack", SB_SHAPE_PREPACK, 8, 9, 10, 0, 0, 0);
    bad_shape("17x5x3+foo", SB_SHAPE_PREPACK, "shape: '17x5x3+foo' is not MxNxK[:TT][+prepack]");
    bad_shape("17x5x3:NT+prepack+prepack", SB_SHAPE_PREPACK, "is not MxNxK[:TT][+prepack]");
    bad_shape("8x8x8+prepack", 0, "shape dimension"); /* only where asked for */
    bad_shape("+prepack", SB_SHAPE_PREPACK, "shape: '' is not MxNxK");
    bad_shape("17x5:NT+prepack", SB_SHAPE_PREPACK, "shape: '17x5' is not MxNxK");
    bad_shape("17x5x3:XY+prepack", SB_SHAPE_PREPACK, "'XY' is not a transpose");
    bad_shape("17x5x70000+prepack", SB_SHAPE_PREPACK, "out of range");
    char longs[200];
    memset(longs, '7', sizeof longs - 1);
    longs[sizeof longs - 1] = '\0';
    bad_shape(longs, SB_SHAPE_PREPACK, "...' is not MxNxK[:TT][+prepack]");
    bad_shape(longs, 0, "' is not MxNxK");
    /* what the paired runner reads of a stored point: a series key is no shape */
    CHECK(sb_shape_parse("model=tiny batch=8", SB_SHAPE_PREPACK, &x, &e) == SB_EUSAGE);
    CHECK(sb_shape_parse("", SB_SHAPE_PREPACK, &x, &e) == SB_EUSAGE);

    /* the tune file's entries: XY MxNxK */
    ok_shape("NT 3072x768x768", SB_SHAPE_FILE, 3072, 768, 768, 'N', 'T', 0);
    ok_shape("TN 2304x768x3072", SB_SHAPE_FILE, 2304, 768, 3072, 'T', 'N', 0);
    bad_shape("XY 8x8x8", SB_SHAPE_FILE, "'XY' is not a transpose");
    bad_shape("NT 8x8", SB_SHAPE_FILE, "is not MxNxK");
    bad_shape("NT 0x8x8", SB_SHAPE_FILE, "out of range");
    bad_shape("NT 8x8x8junk", SB_SHAPE_FILE, "shape dimension");
    bad_shape("NT 8x8x8", 0, "shape dimension"); /* only where asked for */

    /* the text the sweep keeps: transposes always, NN where none were given */
    char buf[64];
    sb_shape f = {8, 9, 10, 0, 0, 0, 0};
    sb_shape_format(&f, buf, sizeof buf);
    CHECK(!strcmp(buf, "8x9x10:NN"));
    f.transa = 'T', f.transb = 'N', f.prepack = 1;
    sb_shape_format(&f, buf, sizeof buf);
    CHECK(!strcmp(buf, "8x9x10:TN+prepack"));
    CHECK(sb_shape_parse(buf, SB_SHAPE_PREPACK, &x, &e) == SB_OK && x.m == 8 && x.transa == 'T' &&
          x.prepack);
    return test_report("shape");
}
