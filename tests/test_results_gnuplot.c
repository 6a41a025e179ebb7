/* The gnuplot script writer (sb_gnuplot) against the independent checker of
 * fuzz/fuzz_gnuplot.c: the checker refuses each construct gnuplot would
 * execute (so it can fail), the writer renders hostile text into literals
 * that read back exactly, misuse is refused, the fuzz harness runs on
 * pseudo-random inputs, and real gnuplot draws hostile titles without
 * running anything, writing to paths that start with '|'.
 *   test_results_gnuplot --check FILE...   checks saved scripts (exit 1 on
 *   the first that fails), for tests/results_gnuplot_inert.sh. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sb_gnuplot.h"
#include "testutil.h"

/* the checker and the fuzz entry point, compiled into this test: one
 * checker for the fuzzer, this test and the scripts the CLI test saves */
#include "../fuzz/fuzz_gnuplot.c"

#define TERM_LINE \
    "set terminal svg size 900,560 dynamic noenhanced font 'Sans,11' background '#ffffff'\n"

static const char *check(const char *script)
{
    int line;
    return sb_gpcheck_script(script, &line);
}

static void test_checker_refuses(void)
{
    static const struct {
        const char *body, *why;
    } bad[] = {
        {"set title \"a `touch /tmp/x` b\"\n", "backquote"},
        /* the single-quoted writer of before: '' is an escape only after a
         * character, so these are two literals side by side (issue 25) */
        {"set title '''x'\n", "side by side"},
        {"set title 'a''''b'\n", "side by side"},
        {"set title \"a\" 'b'\n", "side by side"},
        {"set title `touch /tmp/x`\n", "character outside literals"},
        {"set title 'a'.system('touch /tmp/x')\n", "vocabulary"},
        {"!touch /tmp/x\n", "does not start with a word"},
        {"set output '|touch /tmp/x'\n", "vocabulary"},
        {"set print '|touch /tmp/x'\n", "vocabulary"},
        {"load '/tmp/x'\n", "vocabulary"},
        {"call '/tmp/x'\n", "vocabulary"},
        {"set title 'a'; print 1\n", "character outside literals"},
        {"set title @m\n", "character outside literals"},
        {"set title 'a\n", "not closed"},
        {"set title 'a\001b'\n", "control character"},
        {"set title 'a' \\\n", "character outside literals"},
        {"x = 1\n", "not set, unset or plot"},
        {"set x = 1\n", "character outside literals"},
        {"set xrange [0:1e]\n", "number"},
        {"plot 2x\n", "glued"},
        {"$d << EOD\n1 2\nEOD x\n", "data-block line"},
        {"$d << EOD\n1 2\n", "left open"},
        {"$d << EOD\n1 `id`\nEOD\n", "data-block line"},
        {"$d << EOD\n\nEOD\n", "data-block line"},
        {"set title 'a'", "no newline"},
        {"set terminal svg\n", "second terminal"},
        {"plot $ title 'x'\n", "names no data block"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char script[512];
        snprintf(script, sizeof script, "%s%s", TERM_LINE, bad[i].body);
        const char *why = check(script);
        CHECKF(why && strstr(why, bad[i].why), "checker on %s: %s (wanted: %s)", bad[i].body,
               why ? why : "accepted", bad[i].why);
    }
    CHECK(check("set terminal svg size 9,9 font 'a'\nplot x\n") != NULL); /* enhanced */
    CHECK(check("$d << EOD\n1\nEOD\n") != NULL);                          /* no terminal */
    CHECK(check("") != NULL);
    const char *good = TERM_LINE
        "$d0 << EOD\n1 2.5 -3e-07 NaN\nEOD\n"
        "set title 'it''s `x` @y'.\"\\n\".'z'.\"q\\\"\\140\\0044\\\\\"\nset xrange [0.5:4.5]\n"
        "set xtics rotate by -35 left font ',8'\nset xtics ('a%%' 0, 'b' 1)\n"
        "plot $d0 using 1:2 with linespoints lw 2 pt 7 title 'k', x title 'ideal (y = x)' dt 2 lc "
        "rgb 'black'\n";
    const char *why = check(good);
    CHECKF(!why, "checker refused a good script: %s", why);
    char *lits[12];
    int n = sb_gpcheck_literals(good, lits, 12);
    CHECK_EQ_INT(n, 9);
    if (n >= 1) CHECK(!strcmp(lits[0], "it's `x` @y"));
    if (n >= 3) CHECK(!strcmp(lits[2], "q\"`$\\"));
    for (int i = 0; i < n; i++) free(lits[i]);
    char *b = sb_gpcheck_blank("set title 'a''b' x \"c\\\"d\"\n");
    CHECK(!strcmp(b, "set title '' x \"\"\n"));
    free(b);
    CHECK(sb_gpcheck_literal("a%%", "a%", 1) == NULL);
    CHECK(sb_gpcheck_literal("a%", "a%", 1) != NULL);
    CHECK(sb_gpcheck_literal("ab", "a b", 0) != NULL);
    CHECK(sb_gpcheck_literal("a\xff", "a", 0) != NULL);
}

/* One %T literal of a script that has only that text. */
static char *render_text(const char *text, int as_format)
{
    sb_gp *g = sb_gp_new();
    sb_gp_add(g, as_format ? "set xtics (%F 0)\n" : "set title %T\n", text);
    sb_err e = {0};
    char *s = sb_gp_script(g, "svg", 900, 560, &e);
    sb_gp_free(g);
    if (!s) return NULL;
    const char *why = check(s);
    CHECKF(!why, "checker refused the writer's script: %s\n%s", why, s);
    char *lits[2];
    int n = sb_gpcheck_literals(s, lits, 2);
    free(s);
    CHECK_EQ_INT(n, 1);
    if (n != 1) {
        for (int i = 0; i < n; i++) free(lits[i]);
        return NULL;
    }
    return lits[0];
}

static void test_writer_text(void)
{
    static const char *const hostile[] = {
        "host`touch /tmp/sb-pwned`",
        "$(touch /tmp/sb-pwned)",
        "system(\"touch /tmp/sb-pwned\")",
        "@x @@y",
        "it's 'quoted' '' ''' ",
        "\"double\" \\\" \\n \\",
        "|touch /tmp/sb-pwned",
        "a; !touch /tmp/sb-pwned",
        "{/Symbol a}^2_3 &{x} ~a",
        "%s %n %999999d 100%",
        "EOD",
        "#comment",
        "",
    };
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        for (int f = 0; f < 2; f++) {
            char *lit = render_text(hostile[i], f);
            CHECKF(lit && !sb_gpcheck_literal(lit, hostile[i], f), "text [%s] as %s -> [%s]",
                   hostile[i], f ? "format" : "text", lit ? lit : "(refused)");
            free(lit);
        }
    }
    /* what cannot stay: line breaks as spaces, controls dropped, bad UTF-8 as ? */
    static const struct {
        const char *in, *out;
    } clean[] = {
        {"a\nb\r\nc\td", "a b  c d"},
        {"x\001y\033[31mz\177", "xy[31mz"},
        {"caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac"},
        {"bad\xff\xc3(\xe2\x82",
         "bad?"
         "?(?"
         "?"},
        {"over\xc0\xaflong", "over??long"},
        {"sur\xed\xa0\x80rogate", "sur???rogate"},
        {"c1\xc2\x85next", "c1next"},
    };
    for (size_t i = 0; i < sizeof clean / sizeof clean[0]; i++) {
        char *lit = render_text(clean[i].in, 0);
        CHECKF(lit && !strcmp(lit, clean[i].out), "cleaned [%s] -> [%s], expected [%s]",
               clean[i].in, lit ? lit : "(refused)", clean[i].out);
        if (lit) CHECK(!sb_gpcheck_literal(lit, clean[i].in, 0));
        free(lit);
    }
    char *lit = render_text("50% of 'x'", 1);
    CHECK(lit && !strcmp(lit, "50%% of 'x'"));
    free(lit);
}

static void test_writer_misuse(void)
{
    sb_err e = {0};
    char *s;
    struct {
        const char *what;
        int code;
    } cases[] = {
        {"%s directive", SB_EFAIL},      {"command in block", SB_EFAIL},
        {"bad block name", SB_EFAIL},    {"row outside block", SB_EFAIL},
        {"open block", SB_EFAIL},        {"empty row", SB_EFAIL},
        {"unknown terminal", SB_EUSAGE}, {"tiny image", SB_EUSAGE},
        {"nested block", SB_EFAIL},
    };
    for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
        sb_gp *g = sb_gp_new();
        const char *term = "png";
        int w = 400;
        double one = 1;
        switch (c) {
        case 0: sb_gp_add(g, "set title %s\n", "`id`"); break;
        case 1:
            sb_gp_block_begin(g, "d");
            sb_gp_add(g, "plot x\n");
            sb_gp_block_end(g);
            break;
        case 2:
            sb_gp_block_begin(g, "d x");
            sb_gp_block_end(g);
            break;
        case 3: sb_gp_block_row(g, &one, 1); break;
        case 4: sb_gp_block_begin(g, "d"); break;
        case 5:
            sb_gp_block_begin(g, "d");
            sb_gp_block_row(g, &one, 0);
            sb_gp_block_end(g);
            break;
        case 6: term = "pdf"; break;
        case 7: w = 3; break;
        default:
            sb_gp_block_begin(g, "d");
            sb_gp_block_begin(g, "e");
            break;
        }
        sb_err_clear(&e);
        s = sb_gp_script(g, term, w, 300, &e);
        CHECKF(!s && e.code == cases[c].code, "%s: script %s, code %d", cases[c].what,
               s ? "written" : "refused", e.code);
        free(s);
        sb_gp_free(g);
    }
    const char *names[] = {"", "1d", "$d", "d-1", "d\nEOD", "abcdefghijabcdefghijabcdefghijabc"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        sb_gp *g = sb_gp_new();
        sb_gp_block_begin(g, names[i]);
        sb_gp_block_end(g);
        s = sb_gp_script(g, "svg", 100, 100, &e);
        CHECKF(!s, "block name [%s] accepted", names[i]);
        free(s);
        sb_gp_free(g);
    }
    s = sb_gp_script(NULL, "svg", 100, 100, &e);
    CHECK(!s && e.code == SB_EFAIL);
    CHECK_EQ_INT(sb_gnuplot_render(NULL, "svg", 100, 100, "/nonexistent/x.svg", &e) != SB_OK, 1);
    /* numbers: never inf or nan, which gnuplot would read as names */
    sb_gp *g = sb_gp_new();
    double row[4] = {INFINITY, -INFINITY, NAN, 1e300};
    sb_gp_block_begin(g, "d_1");
    sb_gp_block_row(g, row, 4);
    sb_gp_block_end(g);
    sb_gp_add(g, "set xrange [%g:%g]\nset title %T\n", NAN, 0.5, NULL);
    s = sb_gp_script(g, "svg", 100, 100, &e);
    CHECK(s &&
          strstr(s, "$d_1 << EOD\nNaN NaN NaN 1e+300\nEOD\nset xrange [NaN:0.5]\nset title \"\"\n"));
    CHECK(s && !check(s));
    free(s);
    sb_gp_free(g);
}

/* The fuzz harness on pseudo-random inputs and hand-made hostile ones: it
 * aborts on any failure of its checks. */
static void test_fuzz_replay(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    uint8_t buf[512];
    for (int it = 0; it < 20000; it++) {
        size_t n = 4 + (size_t)(it % 500);
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[i] = (uint8_t)x;
        }
        /* favour the two real terminals and sane sizes, and printable text */
        buf[0] &= 1;
        buf[3] |= 1;
        for (size_t i = 4; i < n; i++)
            if (it & 1) buf[i] = (uint8_t)(0x20 + buf[i] % 0x5f);
        LLVMFuzzerTestOneInput(buf, n);
    }
    static const char crafted[] =
        "\000\070\070\001"
        "\000\060a `touch /tmp/sb-pwned` system(\"id\") @m 'q' \"dq\" \\n |x\n!x;y"
        "\001\011%s %n %%!"
        "\002\005two\nl"
        "\004\002k'"
        "\005\005d_1ab"
        "\003\010\000\000\000\000\000\000\360\177";
    LLVMFuzzerTestOneInput((const uint8_t *)crafted, sizeof crafted - 1);
    CHECK(1); /* reaching here: no abort */
}

/* the whole file, NUL-terminated; NULL when unreadable */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    for (size_t r; s && (r = fread(s + n, 1, cap - n - 1, f)) > 0;) {
        n += r;
        if (n + 1 == cap) {
            char *ns = realloc(s, cap *= 2);
            if (!ns) {
                free(s);
                s = NULL;
            } else
                s = ns;
        }
    }
    fclose(f);
    if (s) s[n] = '\0';
    *len = n;
    return s;
}

static int exists(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));) n += de->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

static void test_real_gnuplot(void)
{
    if (!sb_gnuplot_available()) {
        printf("gnuplot not installed: the real-gnuplot checks are skipped\n");
        return;
    }
    char dir[] = "/tmp/sb-gp-test-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    char title[1024], label[512], path[4096];
    snprintf(title, sizeof title,
             "host`touch %s/p1` $(touch %s/p2) system(\"touch %s/p3\") @m 'q' \"dq\" <b>&amp; "
             "{/Symbol a}_x",
             dir, dir, dir);
    snprintf(label, sizeof label, "k\n!touch %s/p4\n%%s 50%%|touch %s/p5", dir, dir);
    sb_gp *g = sb_gp_new();
    double r0[2] = {1, 2}, r1[2] = {2, 3};
    sb_gp_block_begin(g, "d");
    sb_gp_block_row(g, r0, 2);
    sb_gp_block_row(g, r1, 2);
    sb_gp_block_end(g);
    sb_gp_add(g,
              "set title %T.\"\\n\".%T\nset xtics (%F %d, %F %d)\n"
              "plot $d using 1:2 with linespoints title %T\n",
              title, "second line", label, 1, "two", 2, label);
    sb_err e = {0};
    char *s = sb_gp_script(g, "svg", 600, 400, &e);
    CHECK(s && !check(s));
    free(s);
    /* a file name gnuplot would take for a pipe, relative and absolute */
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(dir) == 0);
    int rc = sb_gnuplot_render(g, "svg", 600, 400, "|touch p6", &e);
    CHECKF(rc == SB_OK, "render: %s", e.msg);
    snprintf(path, sizeof path, "%s/|touch p7`touch p8`.png", dir);
    rc = sb_gnuplot_render(g, "png", 600, 400, path, &e);
    CHECKF(rc == SB_OK, "render png: %s", e.msg);
    CHECK(chdir(cwd) == 0);
    sb_gp_free(g);
    static const char *const never[] = {"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        CHECKF(!exists(dir, never[i]), "gnuplot ran a command: %s/%s exists", dir, never[i]);
    CHECK(exists(dir, "|touch p6"));
    CHECK(exists(dir, "|touch p7`touch p8`.png"));
    CHECK_EQ_INT(count_entries(dir), 2); /* no temporary left behind */
    size_t len = 0;
    snprintf(path, sizeof path, "%s/|touch p6", dir);
    char *svg = slurp(path, &len);
    CHECK(svg != NULL);
    if (svg) {
        /* shown literally; the SVG escapes < and & itself */
        char want[1200];
        snprintf(want, sizeof want,
                 "<text>host`touch %s/p1` $(touch %s/p2) system(\"touch %s/p3\") @m 'q' \"dq\" "
                 "&lt;b>&amp;amp; {/Symbol a}_x</text>",
                 dir, dir, dir);
        CHECKF(strstr(svg, want) != NULL, "title not shown literally");
        CHECK(strstr(svg, "<text>second line</text>") != NULL);
        snprintf(want, sizeof want, "<text>k !touch %s/p4 %%s 50%%|touch %s/p5</text>", dir, dir);
        CHECKF(strstr(svg, want) != NULL, "tic label / key title not shown literally: %s", want);
        free(svg);
    }
    /* a failure is one line with gnuplot's reason, and leaves nothing */
    g = sb_gp_new();
    sb_gp_add(g, "set frobnicate %T\nplot x\n", "`x`\nnext");
    snprintf(path, sizeof path, "%s/fail.svg", dir);
    sb_err_clear(&e);
    rc = sb_gnuplot_render(g, "svg", 300, 200, path, &e);
    CHECK_EQ_INT(rc, SB_EFAIL);
    CHECKF(strstr(e.msg, "gnuplot failed to draw") && strstr(e.msg, "unrecognized option") &&
               !strchr(e.msg, '\n'),
           "failure message: %s", e.msg);
    CHECK_EQ_INT(count_entries(dir), 2);
    /* an unwritable place: bad input, before gnuplot runs */
    snprintf(path, sizeof path, "%s/no/such/dir/x.svg", dir);
    CHECK_EQ_INT(sb_gnuplot_render(g, "svg", 300, 200, path, &e), SB_EUSAGE);
    sb_gp_free(g);
    snprintf(path, sizeof path, "%s/|touch p6", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/|touch p7`touch p8`.png", dir);
    unlink(path);
    rmdir(dir);
}

/* What gnuplot must print for a text the writer quoted (an expectation
 * written apart from the writer): line breaks and tabs as spaces, C0, DEL,
 * C1 and bidi controls gone, everything else as it was. Valid UTF-8 only. */
static char *expected_print(const char *t)
{
    char *o = malloc(strlen(t) + 1), *w = o;
    if (!o) abort();
    const unsigned char *p = (const unsigned char *)t;
    while (*p) {
        if (*p == '\n' || *p == '\r' || *p == '\t') {
            *w++ = ' ';
            p++;
        } else if (*p < 0x20 || *p == 0x7f) {
            p++;
        } else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            p += 2;
        } else if (p[0] == 0xd8 && p[1] == 0x9c) {
            p += 2;
        } else if (p[0] == 0xe2 && ((p[1] == 0x80 && ((p[2] >= 0xaa && p[2] <= 0xae) ||
                                                      p[2] == 0x8e || p[2] == 0x8f)) ||
                                    (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9))) {
            p += 3;
        } else {
            *w++ = (char)*p++;
        }
    }
    *w = '\0';
    return o;
}

/* The quoting model against the real gnuplot 5.4 (plots/README.md): each
 * text of a corpus of hostile ones (quotes first, doubled and tripled,
 * backslashes and escapes, @, backquotes, $, %, newlines, invalid UTF-8,
 * bidi controls) is written as `print TEXT` by the writer; gnuplot runs all
 * of them in a fresh directory, from argv, and must print each text back
 * as one line, exactly, and create no file. On the single-quoted writer of
 * before, text starting with a quote split the literal and gnuplot stopped. */
static void test_quoting_corpus(void)
{
    if (!sb_gnuplot_available()) {
        printf("gnuplot not installed: the quoting corpus is skipped\n");
        return;
    }
    static const char *const base[] = {
        "'x", "''", "'''", "''''x", "a''b", "a''''b", "x'", "'", "\"", "\"\"", "\\", "\\\\",
        "\\n", "\\t", "\\140", "\\0044", "\\1234", "a\\", "@m", "@@", "@a@b", "`id`",
        "`touch PWN1`", "$(touch PWN2)", "$x", "$$", "${x}", "%s %d %%", "100%",
        "line1\nline2", "cr\rx", "tab\tx", "ctl \001\002", "esc \033[31m", "caf\xc3\xa9",
        "\xe2\x80\xae" "evil", "\xe2\x81\xa6x\xe2\x81\xa9", "\xe2\x80\x8fr", "\xff\xfe",
        "\xc0\xaf", "\xed\xa0\x80", "{{title}}", "#comment", "a # b", ";print 1",
        "|touch PWN3", "<touch PWN4", "system(\"touch PWN5\")", "'.system('touch PWN6').'",
        "\".system(\\\"touch PWN7\\\").\"", "x'[2:]", "sprintf('%s','x')", "\\\"", "\\'", "`",
        "'`touch PWN8`'", "\"`touch PWN9`\"", "\\`touch PWN10\\`", "emoji \xf0\x9f\x98\x80",
        "dollar$", "at@", "end\\", "\\0", "\\00", "\\x41", "\\U+0041", "a\"b'c\\d`e@f$g",
        "c1 \xc2\x85 next", "\xd8\x9c" "al", "EOD", "\n", "",
    };
    enum { NB = sizeof base / sizeof base[0], N = NB + 12 };
    char *texts[N];
    for (int i = 0; i < NB; i++) texts[i] = strdup(base[i]);
    for (int i = 0; i < 12; i++) { /* the same again, after a quote */
        texts[NB + i] = malloc(strlen(base[i]) + 2);
        sprintf(texts[NB + i], "'%s", base[i]);
    }
    CHECKF(N >= 60, "a corpus of %d texts", N);
    char dir[] = "/tmp/sb-gp-corpus-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    sb_gp *g = sb_gp_new();
    for (int i = 0; i < N; i++) sb_gp_add(g, "print %T\n", texts[i]);
    sb_err e = {0};
    char *script = sb_gp_script(g, "svg", 100, 100, &e);
    sb_gp_free(g);
    CHECK(script != NULL);
    char in_path[4200], err_path[4200];
    snprintf(in_path, sizeof in_path, "%s.gp", dir);
    snprintf(err_path, sizeof err_path, "%s.out", dir);
    FILE *f = fopen(in_path, "w");
    if (f && script) fputs(script, f);
    if (f) fclose(f);
    free(script);
    const char *gp = getenv("SB_GNUPLOT");
    if (!gp || !*gp) gp = "gnuplot";
    pid_t pid = fork();
    if (pid == 0) { /* no shell: argv, a fresh directory, stdin the script */
        int in = open(in_path, O_RDONLY), out = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int nul = open("/dev/null", O_WRONLY);
        if (in < 0 || out < 0 || nul < 0 || chdir(dir)) _exit(126);
        dup2(in, 0);
        dup2(nul, 1);
        dup2(out, 2); /* print writes to stderr */
        execlp(gp, gp, "--default-settings", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "gnuplot on the corpus: status %d",
           status);
    size_t len = 0;
    char *out = slurp(err_path, &len);
    CHECK(out != NULL);
    char *line = out;
    for (int i = 0; i < N && line; i++) {
        char *nl = strchr(line, '\n');
        if (!nl) {
            CHECKF(0, "gnuplot printed %d lines of %d (text %d [%s] split?)", i, N, i, texts[i]);
            break;
        }
        *nl = '\0';
        if (gpc_utf8((const unsigned char *)texts[i])) {
            char *want = expected_print(texts[i]);
            CHECKF(!strcmp(line, want), "text %d [%s]: gnuplot printed [%s], expected [%s]", i,
                   texts[i], line, want);
            free(want);
        } else {
            CHECKF(gpc_utf8((const unsigned char *)line) && !strchr(line, '\033'),
                   "text %d: gnuplot printed invalid UTF-8 or a control", i);
        }
        line = nl + 1;
    }
    if (line && out) CHECKF(*line == '\0', "gnuplot printed more than %d lines: %s", N, line);
    free(out);
    CHECKF(count_entries(dir) == 0, "gnuplot created %d file(s) in %s", count_entries(dir), dir);
    rmdir(dir);
    unlink(in_path);
    unlink(err_path);
    for (int i = 0; i < N; i++) free(texts[i]);
}

static int check_files(int argc, char **argv)
{
    int bad = 0;
    for (int i = 0; i < argc; i++) {
        size_t len = 0;
        char *s = slurp(argv[i], &len);
        if (!s) {
            fprintf(stderr, "%s: cannot read\n", argv[i]);
            return 2;
        }
        int line;
        const char *why = strlen(s) == len ? sb_gpcheck_script(s, &line) : "a NUL byte";
        if (why) {
            fprintf(stderr, "%s: line %d: %s\n", argv[i], line, why);
            bad = 1;
        }
        free(s);
    }
    return bad;
}

/* Templates: placeholders filled through the writer (hostile text stays a
 * literal the checker accepts), the data table beside the script, and the
 * refusals: an unknown placeholder, a clause holding a data block, and
 * template text that runs or writes something. */
static void test_templates(void)
{
    const char *hostile = "`touch /tmp/sb-x` ' \" system('x') @m\nz %s";
    sb_gp *g = sb_gp_new(), *clause = sb_gp_new();
    double row[2] = {1, 2.5};
    sb_gp_block_begin(g, "d0");
    sb_gp_block_row(g, row, 2);
    sb_gp_block_end(g);
    sb_gp_add(clause, "$d0 using 1:2 with lines title %T", hostile);
    const sb_gp_var v[] = {{"title", SB_GPV_TEXT, hostile, 0, NULL},
                           {"tics", SB_GPV_FORMAT, hostile, 0, NULL},
                           {"top", SB_GPV_NUM, NULL, 42.5, NULL},
                           {"series", SB_GPV_CLAUSE, NULL, 0, clause}};
    sb_err e = {0};
    const char *tmpl = "# a comment\n\nset title {{title}}.\"\\n\".{{title}}\n"
                       "set xlabel {{tics}}\nset yrange [0:{{top}}]\nplot {{series}}\n";
    CHECKF(sb_gp_template_fill(g, tmpl, "t.gp", v, 4, &e) == SB_OK, "%s", e.msg);
    char *script = sb_gp_script(g, "svg", 900, 560, &e);
    CHECK(script != NULL);
    const char *why = script ? check(script) : "no script";
    CHECKF(why == NULL, "a filled template fails the checker: %s", why ? why : "");
    CHECK(script && strstr(script, "set yrange [0:42.5]\n"));
    CHECK(script && !strstr(script, "# a comment"));
    free(script);
    char *dat = sb_gp_data_text(g);
    CHECK(dat && !strcmp(dat, "# $d0\n1 2.5\n"));
    free(dat);
    sb_gp_free(g);

    g = sb_gp_new();
    CHECK(sb_gp_template_fill(g, "set title {{nope}}\n", "t.gp", v, 4, &e) == SB_EUSAGE);
    CHECK(strstr(e.msg, "{{nope}}") != NULL);
    CHECK(sb_gp_script(g, "svg", 900, 560, &e) == NULL); /* marked unusable */
    sb_gp_free(g);
    /* a clause with a data block would put data where a command goes */
    sb_gp *bad = sb_gp_new();
    sb_gp_block_begin(bad, "x");
    sb_gp_block_row(bad, row, 2);
    sb_gp_block_end(bad);
    const sb_gp_var bv[] = {{"series", SB_GPV_CLAUSE, NULL, 0, bad}};
    g = sb_gp_new();
    CHECK(sb_gp_template_fill(g, "plot {{series}}\n", "t.gp", bv, 1, &e) != SB_OK);
    sb_gp_free(g);
    sb_gp_free(bad);
    sb_gp_free(clause);

    /* the loader's refusals, one line each */
    char dir[] = "/tmp/sb-tmpl-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    static const char *const refused[] = {"set title system('touch x')\n",
                                          "set output 'x'\n",
                                          "set title `x`\n",
                                          "load 'x'\n",
                                          "!touch x\n",
                                          "set title 'a'; set x\n",
                                          "set pr 'x|touch x'[2:]\n",
                                          "set o 'x'\n",
                                          "set title 'M: {{machine}}'\n",
                                          "set title '''x'\n",
                                          "set title sprintf('%s', 'x')\n",
                                          "plot {{series}}, '/etc/hostname'\n",
                                          "set title 'open\n",
                                          "call 'x'\n",
                                          "set table 'x'\n",
                                          "plot '< touch x' using 1\n",
                                          "plot ' |touch x'\n"};
    char path[256];
    snprintf(path, sizeof path, "%s/throughput.gp", dir);
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        FILE *f = fopen(path, "w");
        fputs("set grid\n", f);
        fputs(refused[i], f);
        fclose(f);
        char *text = NULL;
        CHECKF(sb_gp_template_load(dir, "throughput.gp", &text, &e) == SB_EUSAGE && !text,
               "template line accepted: %s", refused[i]);
        CHECKF(strstr(e.msg, "throughput.gp:2 refused") != NULL, "%s", e.msg);
    }
    FILE *f = fopen(path, "w");
    fputs("# styling\nset title {{title}}.\"\\n\".{{machine}}\nset key below left\n", f);
    fclose(f);
    char *text = NULL;
    CHECKF(sb_gp_template_load(dir, "throughput.gp", &text, &e) == SB_OK, "%s", e.msg);
    free(text);
    char got[4096];
    CHECK(sb_gp_templates_dir(dir, got, sizeof got, &e) == SB_OK && !strcmp(got, dir));
    CHECK(sb_gp_templates_dir("/nonexistent-sb", got, sizeof got, &e) == SB_EUSAGE);
    unlink(path);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--check")) return check_files(argc - 2, argv + 2);
    test_checker_refuses();
    test_writer_text();
    test_writer_misuse();
    test_fuzz_replay();
    test_real_gnuplot();
    test_quoting_corpus();
    test_templates();
    return test_report("test_results_gnuplot");
}
