#include "sb_text.h"
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

static const char REPLACEMENT[] = "\xef\xbf\xbd"; /* U+FFFD */
static const char ELLIPSIS[] = "\xe2\x80\xa6";    /* U+2026 */

/* Decodes one character at s[0..len): its length in bytes and *cp, or 0 when
 * the bytes there are not a valid UTF-8 character (overlong forms,
 * surrogates and values past U+10FFFF included, as the standard says). */
static size_t decode(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n;
    uint32_t v, min;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, v = c & 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, v = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, v = c & 0x07, min = 0x10000;
    else
        return 0;
    if (len < n) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
    *cp = v;
    return n;
}

size_t sb_text_decode(const char *s, size_t len, uint32_t *cp)
{
    return decode((const unsigned char *)s, len, cp);
}

long sb_text_chars(const char *s, size_t len, size_t *bad)
{
    const unsigned char *u = (const unsigned char *)s;
    long chars = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = u[i] ? decode(u + i, len - i, &cp) : 0;
        if (!n) {
            if (bad) *bad = i;
            return -1;
        }
        i += n;
        chars++;
    }
    return chars;
}

int sb_text_checkn(const char *s, size_t len, size_t max_chars, const char *what, sb_err *e)
{
    size_t bad = 0;
    long n = sb_text_chars(s, len, &bad);
    if (n < 0)
        return sb_errf(e, SB_EUSAGE, "%s: %s at byte %zu", what,
                       s[bad] ? "invalid UTF-8" : "NUL byte", bad);
    if ((size_t)n > max_chars)
        return sb_errf(e, SB_EUSAGE, "%s: %ld characters, longer than the limit of %zu", what, n,
                       max_chars);
    return SB_OK;
}

int sb_text_check(const char *s, size_t max_chars, const char *what, sb_err *e)
{
    return sb_text_checkn(s, strlen(s), max_chars, what, e);
}

char *sb_text_repair(const char *s, size_t len, size_t max_chars, int *changed)
{
    const unsigned char *u = (const unsigned char *)s;
    /* each invalid byte counts as the one character that replaces it */
    size_t chars = 0;
    int fixed = 0;
    for (size_t i = 0; i < len; chars++) {
        uint32_t cp;
        size_t n = u[i] ? decode(u + i, len - i, &cp) : 0;
        if (!n) fixed = 1;
        i += n ? n : 1;
    }
    size_t keep = chars;
    if (max_chars && chars > max_chars) {
        keep = max_chars - 1; /* the last place shows the cut */
        fixed = 1;
    }
    /* an input byte becomes at most 3 output bytes (U+FFFD) */
    char *out = malloc(3 * len + sizeof ELLIPSIS);
    if (!out) return NULL;
    size_t w = 0, i = 0;
    for (size_t c = 0; c < keep; c++) {
        uint32_t cp;
        size_t n = u[i] ? decode(u + i, len - i, &cp) : 0;
        if (n) {
            memcpy(out + w, s + i, n);
            w += n;
            i += n;
        } else {
            memcpy(out + w, REPLACEMENT, 3);
            w += 3;
            i++;
        }
    }
    if (keep < chars) {
        memcpy(out + w, ELLIPSIS, 3);
        w += 3;
    }
    out[w] = '\0';
    if (changed) *changed = fixed;
    return out;
}

json_t *sb_text_jsonn(const char *s, size_t len, int *changed)
{
    if (changed) *changed = 0;
    if (sb_text_chars(s, len, NULL) >= 0) return json_stringn(s, len);
    char *fixed = sb_text_repair(s, len, 0, changed);
    json_t *j = fixed ? json_string(fixed) : NULL;
    free(fixed);
    return j;
}

json_t *sb_text_json(const char *s) { return s ? sb_text_jsonn(s, strlen(s), NULL) : json_null(); }

int sb_text_prefix(const char *s, size_t max_bytes)
{
    size_t n = strnlen(s, max_bytes);
    if (n == max_bytes && s[n]) {
        /* the cut falls before s[n]: back off over a character it splits */
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80 && max_bytes - n < 3) n--;
        if (n < max_bytes && n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80) n = max_bytes;
    }
    return n > 0x7fffffff ? 0x7fffffff : (int)n;
}

size_t sb_text_tail_start(const char *s, size_t len, size_t max_bytes)
{
    if (len <= max_bytes) return 0;
    size_t i = len - max_bytes;
    /* never start inside a character: skip at most 3 continuation bytes */
    for (int k = 0; k < 3 && i < len && ((unsigned char)s[i] & 0xc0) == 0x80; k++) i++;
    return i;
}

/* Columns a character takes on a terminal (controls are shown as one '?'). */
static int columns(uint32_t cp)
{
    int w = utf8proc_charwidth((utf8proc_int32_t)cp);
    return w < 0 ? 1 : w;
}

static int is_control(uint32_t cp) { return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f); }

/* U+FFFE and U+FFFF are valid UTF-8 but no XML 1.0 character: a JUnit file
 * holding one is refused by its reader. Shown text has U+FFFD instead. */
static int is_nonchar(uint32_t cp) { return cp == 0xfffe || cp == 0xffff; }

/* ---- Workflow commands: the one rule every shown text goes through ----
 *
 * A GitHub Actions runner reads a step's output line by line (a line ends at
 * LF or CR), trims every Unicode white space from the start of a line and
 * obeys "::cmd::" there, and "##[cmd]" anywhere in it. Its comparisons are
 * culture-aware, where the soft hyphen and the zero-width characters count
 * for nothing: "\u200b::" and ":\u00ad:" start a command as "::" does. So a
 * "::" is a command where nothing but blanks (white space or invisible
 * characters) stand between it and the start of the line, and any blank but
 * ASCII white space (which plain text uses, and no comparison skips) may
 * stand between the characters of "::" and "##[". */

/* Unicode's White_Space (what .NET's char.IsWhiteSpace trims) other than the
 * line breaks LF and CR. */
static int is_space(uint32_t cp)
{
    return cp == ' ' || cp == '\t' || cp == 0x0b || cp == 0x0c || cp == 0x85 || cp == 0xa0 ||
        cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
        cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/* A character that shows as nothing: Unicode's default ignorables (the soft
 * hyphen, zero-width space, joiners, word joiner, BOM, the Mongolian vowel
 * separator, bidi marks, variation selectors, tags), named too where an
 * older utf8proc may not flag them. */
static int is_invisible(uint32_t cp)
{
    if (cp == 0xad || (cp >= 0x200b && cp <= 0x200d) || cp == 0x2060 || cp == 0xfeff ||
        cp == 0x180e)
        return 1;
    return cp >= 0x80 && cp <= 0x10ffff && utf8proc_get_property((utf8proc_int32_t)cp)->ignorable;
}

/* Whether a line still has only blanks after the shown character cp (lead:
 * whether it had before). */
static int lead_after(int lead, uint32_t cp)
{
    if (cp == '\n' || cp == '\r') return 1;
    return lead && (is_space(cp) || is_invisible(cp));
}

/* The byte length of the blanks at the start of s[0..len) that may stand
 * inside a command's marker: any but ASCII white space. */
static size_t inner_blanks(const unsigned char *s, size_t len)
{
    size_t i = 0, n;
    uint32_t cp;
    while (i < len && (n = decode(s + i, len - i, &cp)) &&
           (is_invisible(cp) || (cp >= 0x80 && is_space(cp))))
        i += n;
    return i;
}

/* A workflow command's marker at s[0..len) (a NUL-terminated s may give
 * SIZE_MAX): "::" when `lead` (only blanks before it on its line) or "##["
 * anywhere, inner_blanks allowed between its characters. Returns
 * the number of its characters (2 or 3) with their offsets in at[], or 0. */
static int command_at(const char *s, size_t len, int lead, size_t at[3])
{
    const char *mark = lead && s[0] == ':' ? "::" : s[0] == '#' ? "##[" : NULL;
    if (!mark) return 0;
    size_t i = 0;
    int k;
    for (k = 0; mark[k]; k++) {
        if (k) i += inner_blanks((const unsigned char *)s + i, len - i);
        if (i >= len || s[i] != mark[k]) return 0;
        at[k] = i++;
    }
    return k;
}

void sb_text_defuse(char *s)
{
    size_t len = strlen(s), at[3];
    int lead = 1;
    for (size_t i = 0; i < len;) {
        if (command_at(s + i, len - i, lead, at)) {
            s[i + at[1]] = '?'; /* the marker's second character */
            i += at[1] + 1;
            lead = 0;
            continue;
        }
        uint32_t cp;
        size_t n = decode((const unsigned char *)s + i, len - i, &cp);
        lead = lead_after(lead, n ? cp : 0xfffd);
        i += n ? n : 1;
    }
}

/* The next character of a cell: its bytes as shown, and its columns. */
static size_t cell_char(const unsigned char *u, size_t len, const char **piece, size_t *plen,
                        int *cols)
{
    uint32_t cp;
    size_t n = decode(u, len, &cp);
    if (!n) {
        *piece = REPLACEMENT, *plen = 3, *cols = 1;
        return 1;
    }
    if (is_control(cp)) {
        *piece = "?", *plen = 1, *cols = 1;
        return n;
    }
    if (is_nonchar(cp)) {
        *piece = REPLACEMENT, *plen = 3, *cols = 1;
        return n;
    }
    *piece = (const char *)u, *plen = n, *cols = columns(cp);
    return n;
}

char *sb_text_cell(char *buf, size_t cap, const char *s, int width, int pad)
{
    if (!cap) return buf;
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    size_t len = strlen((const char *)u), w = 0;
    const char *piece;
    size_t plen;
    int cols, total = 0;
    for (size_t i = 0; i < len && total <= width;) {
        i += cell_char(u + i, len - i, &piece, &plen, &cols);
        total += cols;
    }
    /* a text that does not fit keeps its last column for the ellipsis */
    int limit = total <= width ? width : width - 1, used = 0, cut = total > width;
    for (size_t i = 0; i < len;) {
        size_t n = cell_char(u + i, len - i, &piece, &plen, &cols);
        if (used + cols > limit || w + plen + 1 > cap) {
            cut = 1;
            break;
        }
        memcpy(buf + w, piece, plen);
        w += plen;
        used += cols;
        i += n;
    }
    if (cut && used < width && w + 4 <= cap) {
        memcpy(buf + w, ELLIPSIS, 3);
        w += 3;
        used++;
    }
    while (pad && used < width && w + 2 <= cap) {
        buf[w++] = ' ';
        used++;
    }
    buf[w] = '\0';
    sb_text_defuse(buf);
    return buf;
}

char *sb_text_inert(char *buf, size_t cap, const char *s)
{
    return sb_text_cell(buf, cap, s, INT_MAX / 4, 0);
}

void sb_text_inert_inplace(char *s, size_t cap)
{
    char *copy = strdup(s);
    if (!copy) {
        sb_text_one_line(s);
        return;
    }
    sb_text_inert(s, cap, copy);
    free(copy);
}

void sb_text_visible(FILE *f, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    int lead = 1;
    size_t defuse = SIZE_MAX, at[3]; /* a workflow command's second character */
    for (size_t i = 0; i < len;) {
        if (defuse == SIZE_MAX && command_at(s + i, len - i, lead, at)) defuse = i + at[1];
        if (i == defuse) {
            fputc('?', f);
            defuse = SIZE_MAX;
            lead = 0;
            i++;
            continue;
        }
        uint32_t cp;
        size_t n = u[i] ? decode(u + i, len - i, &cp) : 0;
        if (!n) {
            fputs(REPLACEMENT, f);
            i++;
            lead = 0;
            continue;
        }
        /* the line as shown: a control in caret notation is no blank */
        uint32_t shown = cp;
        if (is_nonchar(cp))
            fputs(REPLACEMENT, f), shown = 0xfffd;
        else if (cp == '\n' || cp == '\t')
            fputc((int)cp, f);
        else if (cp < 0x20)
            fprintf(f, "^%c", (int)(cp + 0x40)), shown = '^';
        else if (cp == 0x7f)
            fputs("^?", f), shown = '^';
        else if (cp >= 0x80 && cp <= 0x9f)
            fprintf(f, "\\u%04X", (unsigned)cp), shown = '\\';
        else
            fwrite(s + i, 1, n, f);
        lead = lead_after(lead, shown);
        i += n;
    }
}

static int needs_quotes(const char *s)
{
    if (!*s) return 1;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || strchr("%+,-./:=@_^", *p))) return 1;
    return 0;
}

char *sb_argv_render(char *const *argv)
{
    size_t cap = 1;
    for (char *const *p = argv; p && *p; p++) cap += 4 * strlen(*p) + 3;
    char *out = malloc(cap), *w = out;
    if (!out) return NULL;
    for (char *const *p = argv; p && *p; p++) {
        if (p != argv) *w++ = ' ';
        if (!needs_quotes(*p)) {
            w = stpcpy(w, *p);
            continue;
        }
        *w++ = '\'';
        for (const char *c = *p; *c; c++) {
            if (*c == '\'') {
                w = stpcpy(w, "'\\''");
            } else {
                *w++ = *c;
            }
        }
        *w++ = '\'';
    }
    *w = 0;
    return out;
}

/* Messages quote paths, plan values, gnuplot's words and database text, which
 * may hold any byte: a newline, CR or escape sequence would forge or hide
 * lines on the user's terminal or in a CI log. C0 controls and DEL become
 * '?' (a tab a space), and so do C1 controls (U+0080..U+009F, C2 80..C2 9F
 * in UTF-8), which some terminals take for CSI. */
void sb_text_one_line(char *msg)
{
    unsigned char *r = (unsigned char *)msg, *w = r;
    while (*r) {
        if (*r == '\t') {
            *w++ = ' ';
            r++;
        } else if (*r < 0x20 || *r == 0x7f) {
            *w++ = '?';
            r++;
        } else if (r[0] == 0xc2 && r[1] >= 0x80 && r[1] <= 0x9f) {
            *w++ = '?';
            r += 2;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
    sb_text_defuse(msg);
}

/* ---- Markdown and HTML ---- */

/* A bidi control (U+202A-202E, U+2066-2069, U+200E/F, U+061C) at s: its
 * code point, else 0. Such a character reorders what a reader sees around
 * it (a host name could show another's numbers as its own): reports show
 * it as [U+XXXX] instead. */
static unsigned bidi_at(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] == 0xe2 && u[1] == 0x80 &&
        ((u[2] >= 0xaa && u[2] <= 0xae) || u[2] == 0x8e || u[2] == 0x8f))
        return 0x2000u + (u[2] - 0x80u);
    if (u[0] == 0xe2 && u[1] == 0x81 && u[2] >= 0xa6 && u[2] <= 0xa9)
        return 0x2040u + (u[2] - 0x80u);
    if (u[0] == 0xd8 && u[1] == 0x9c) return 0x061c;
    return 0;
}

/* A bidi control at *s is written as [U+XXXX] and *s moves to its last
 * byte: 1; else 0. */
static int put_bidi(FILE *f, const char **s)
{
    unsigned b = bidi_at(*s);
    if (!b) return 0;
    fprintf(f, "[U+%04X]", b);
    *s += b == 0x061c ? 1 : 2;
    return 1;
}

/* The next character of Markdown or HTML text at *s when it is not one to
 * write as it is: a control (a line break `nl` instead, other controls '?',
 * which would drive a terminal that shows the file), an invalid byte or a
 * noncharacter (U+FFFD), or any other non-ASCII character (as it is):
 * writes it, moves *s to its last byte, 1; else 0 (ASCII to escape). */
static int put_unsafe(FILE *f, const char **s, const char *nl)
{
    const unsigned char *u = (const unsigned char *)*s;
    uint32_t cp;
    size_t n = decode(u, strlen(*s), &cp);
    if (!n) {
        fputs(REPLACEMENT, f);
        return 1;
    }
    if (is_nonchar(cp)) {
        fputs(REPLACEMENT, f);
    } else if (cp == '\n' || cp == '\r') {
        fputs(nl, f);
    } else if (is_control(cp)) {
        fputc('?', f);
    } else if (cp >= 0x80) {
        fwrite(*s, 1, n, f); /* a whole character: nothing to escape in it */
    } else {
        return 0;
    }
    *s += n - 1;
    return 1;
}

/* Markdown and HTML show no line break (a space instead), so their text
 * starts one line: a "::" is a command where only spaces, controls and
 * non-ASCII characters stand before it (more than the blanks of
 * lead_after: these writers always took it so). Of a workflow command at s
 * (command_at), the byte to write escaped: its first ':' or its '['; else
 * NULL. */
static const char *command_escape(const char *s, int lead)
{
    size_t at[3];
    int n = command_at(s, SIZE_MAX, lead, at);
    return n ? s + at[n == 2 ? 0 : 2] : NULL;
}

void sb_text_html(FILE *f, const char *s)
{
    int lead = 1;
    const char *cmd = NULL; /* a workflow command's byte, written as an entity */
    for (; *s; s++) {
        if (!cmd) cmd = command_escape(s, lead);
        if (s == cmd) {
            fputs(*s == ':' ? "&#58;" : "&#91;", f);
            cmd = NULL;
            continue;
        }
        if (put_bidi(f, &s)) continue;
        if (put_unsafe(f, &s, " ")) continue;
        if (!cmd) lead = lead && *s == ' ';
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static int is_alnum_c(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Text in Markdown: every character that can open a construct inside a
 * line is backslash-escaped (CommonMark reads a backslash before any ASCII
 * punctuation as that character): emphasis (*, ~, and _ unless between
 * letters or digits, where it cannot open one), code (`), HTML, autolinks
 * and entities (< > &), table cells (|), the escape itself, and a ] that
 * is followed by ( [ or : (no inline link or image, no reference and no
 * link definition can be made without one; a bracket alone, as in the
 * spreads "100 [90-110]", stays). Line breaks become spaces (no text
 * starts a line, so block constructs cannot open), bidi controls
 * [U+XXXX]. */
void sb_text_md(FILE *f, const char *s, int brackets)
{
    const char *start = s;
    int lead = 1;
    const char *cmd = NULL; /* a workflow command's byte, written escaped */
    for (; *s; s++) {
        if (!cmd) cmd = command_escape(s, lead);
        if (s == cmd) {
            fputs(*s == ':' ? "\\:" : "\\[", f);
            cmd = NULL;
            continue;
        }
        if (put_bidi(f, &s)) continue;
        if (put_unsafe(f, &s, " ")) continue;
        if (!cmd) lead = lead && *s == ' ';
        int esc = strchr("\\`*|<>~&", *s) != NULL;
        if (*s == '_') esc = !(s > start && is_alnum_c(s[-1]) && is_alnum_c(s[1]));
        if (*s == ']') esc = s[1] == '(' || s[1] == '[' || s[1] == ':';
        if (*s == '[') esc = s[1] == ']'; /* [] after a ]: a collapsed reference */
        if (brackets && (*s == '[' || *s == ']')) esc = 1;
        if (esc) fputc('\\', f);
        fputc(*s, f);
    }
}

int sb_text_json_dumpf(const json_t *doc, FILE *f, size_t flags)
{
    char *s = json_dumps(doc, flags);
    if (!s) return -1;
    /* '#' and non-ASCII characters can only stand inside a string in JSON
     * text, where an escape reads back as the same character */
    int rc = 0;
    for (const char *p = s; *p && !rc; p++) {
        size_t at[3];
        if (command_at(p, SIZE_MAX, 0, at) == 3) {
            /* "##[", blanks between its characters too (command_at) */
            rc = fwrite(p, 1, at[2], f) < at[2] || fputs("\\u005b", f) < 0 ? -1 : 0;
            p += at[2];
        } else if ((unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbf &&
                   ((unsigned char)p[2] == 0xbe || (unsigned char)p[2] == 0xbf)) {
            /* U+FFFE, U+FFFF: no XML character, kept as escapes */
            rc = fputs((unsigned char)p[2] == 0xbe ? "\\ufffe" : "\\uffff", f) < 0 ? -1 : 0;
            p += 2;
        } else if (fputc(*p, f) == EOF) {
            rc = -1;
        }
    }
    free(s);
    return rc;
}
