/* sb_text: the rules for text the results store takes and shows.
 *
 * Stored text is valid UTF-8 without NUL bytes, and each field has a limit
 * counted in characters (code points), never in bytes, so no limit can fall
 * inside a character. Text a person gave (a label, a plan, an imported
 * export) is refused when it breaks the rules (sb_text_check: one message
 * naming the field and the byte). Text that comes from the machine or a
 * worker (a reason, a host name, a worker's output) is repaired instead
 * (sb_text_repair): each invalid byte and each NUL becomes U+FFFD, visibly,
 * and an over-long text is cut between characters and ends in U+2026, so
 * that nothing is dropped without a trace.
 *
 * Shown text stays inert: sb_text_cell fits a field into terminal columns
 * on one line, control characters shown as '?' (a newline or an escape
 * sequence in a label must not forge lines or drive the terminal), and
 * sb_text_visible writes a multi-line text with controls in caret notation. */
#ifndef SB_TEXT_H
#define SB_TEXT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "sb_err.h"

/* Characters in s[0..len) when it is valid UTF-8 (shortest forms, no
 * surrogates, at most U+10FFFF) without NUL; -1 otherwise, with *bad (may be
 * NULL) the offset of the first offending byte. */
long sb_text_chars(const char *s, size_t len, size_t *bad);
/* One UTF-8 character at s[0..len): its length in bytes, and its code point
 * in *cp; 0 when the bytes there are not one (overlong forms, surrogates,
 * values past U+10FFFF, a sequence cut short). On a NUL-terminated string a
 * len past the end is safe: the NUL is never a continuation byte. */
size_t sb_text_decode(const char *s, size_t len, uint32_t *cp);

/* SB_OK when s (NUL-terminated) is valid UTF-8 of at most max_chars
 * characters; otherwise SB_EUSAGE "WHAT: invalid UTF-8 at byte N" or
 * "WHAT: N characters, longer than the limit of MAX". */
int sb_text_check(const char *s, size_t max_chars, const char *what, sb_err *e);
/* The same for s[0..len), where a NUL byte is "WHAT: NUL byte at byte N". */
int sb_text_checkn(const char *s, size_t len, size_t max_chars, const char *what, sb_err *e);

/* A repaired, NUL-terminated copy of s[0..len) (malloc'd; NULL only when
 * memory runs out): invalid bytes and NUL become U+FFFD; past max_chars
 * characters the text is cut to max_chars - 1 and ends in U+2026. *changed
 * (may be NULL) is set to 1 when anything was replaced or cut, else 0. */
char *sb_text_repair(const char *s, size_t len, size_t max_chars, int *changed);

/* A JSON string of s[0..len): s itself when it is valid UTF-8 without NUL,
 * else its repair (sb_text_repair without a limit: each invalid byte and
 * each NUL becomes U+FFFD), since jansson refuses invalid UTF-8 and stored
 * text from an older database, a host name or a fixed buffer cut inside a
 * character may hold it. *changed (may be NULL) is set to 1 when anything
 * was replaced, else 0. NULL only when memory runs out. */
json_t *sb_text_jsonn(const char *s, size_t len, int *changed);
/* The same for a NUL-terminated s; a NULL s gives JSON null. Every JSON
 * string built from stored or machine text goes through one of these. */
json_t *sb_text_json(const char *s);

/* The length of the longest prefix of s (NUL-terminated) of at most
 * max_bytes bytes that does not end inside a character: for "%.*s". */
int sb_text_prefix(const char *s, size_t max_bytes);

/* The last at most max_bytes bytes of s[0..len), starting at a character
 * boundary of valid UTF-8 (continuation bytes at the cut are skipped):
 * returns the offset where that tail starts. */
size_t sb_text_tail_start(const char *s, size_t len, size_t max_bytes);

/* One terminal cell: s as one line in at most `width` columns (wide
 * characters count two), padded with spaces to `width` when pad is set,
 * written to buf (cap bytes). Controls (C0, DEL, C1) show as '?', invalid
 * bytes and U+FFFE/U+FFFF as U+FFFD; a cut text ends in U+2026; then
 * sb_text_defuse. Returns buf. */
char *sb_text_cell(char *buf, size_t cap, const char *s, int width, int pad);

/* Writes s[0..len) to f with newlines and tabs kept, every other control
 * character in caret notation (ESC as ^[, CR as ^M, DEL as ^?), C1 controls
 * as \u0085 and invalid bytes as U+FFFD, so that a worker's output cannot
 * drive the reader's terminal; workflow commands defused as sb_text_defuse
 * does. */
void sb_text_visible(FILE *f, const char *s, size_t len);

/* One line a POSIX shell reads back as the same argv (NULL-terminated):
 * words needing it are single-quoted ('\'' for quotes). Caller frees; NULL
 * when out of memory. Every repro line and stored command is written so. */
char *sb_argv_render(char *const *argv);

/* Makes text shown in place inert for a CI runner, keeping its length: a
 * "::" that starts a line and any "##[" are workflow commands the GitHub
 * Actions runner obeys (::error::, ::add-mask::, ::stop-commands::,
 * ##[set-output]); their second character becomes '?'. The runner trims
 * every Unicode white space from a line's start (U+00A0, U+1680,
 * U+2000-U+200A, U+2028/9, U+202F, U+205F, U+3000, tab, VT, FF, U+0085; a
 * line ends at LF or CR) and its comparisons skip invisible characters (the
 * soft hyphen, U+200B-U+200D, U+2060, U+FEFF, U+180E and Unicode's other
 * default ignorables), so all of these are blank before "::", and all but
 * ASCII white space may stand between the characters of "::" and "##[":
 * "\u00a0::x" becomes "\u00a0:?x", "#\u200b#[" "#\u200b?[". This is the
 * one rule: sb_text_cell, sb_text_inert, sb_text_one_line, sb_text_visible,
 * sb_text_md, sb_text_html and sb_text_json_dumpf all find commands with it
 * (bench/sb_text.c, command_at). */
void sb_text_defuse(char *s);
/* Stored or machine text as one inert line in buf (cap bytes): the rules of
 * sb_text_cell without a width (controls '?', invalid bytes and U+FFFE/U+FFFF
 * as U+FFFD, a text longer than buf cut with U+2026) and sb_text_defuse.
 * Returns buf. sb_text_inert_inplace does it to s in its own cap bytes. */
char *sb_text_inert(char *buf, size_t cap, const char *s);
void sb_text_inert_inplace(char *s, size_t cap);
/* json_dumpf for a document that holds stored text: every "##[" inside a
 * string (invisible characters between, as sb_text_defuse finds it) is
 * written with its '[' as "\u005b", which JSON reads back as the same string
 * but the Actions runner does not take for a command (JSON escapes every
 * line break, so no string starts a line); U+FFFE and U+FFFF as \ufffe and
 * \uffff. Returns 0 or -1 as json_dumpf. */
int sb_text_json_dumpf(const json_t *doc, FILE *f, size_t flags);

/* Makes msg one printable line in place: tab -> space, other C0 controls,
 * DEL and C1 controls (U+0080..U+009F) -> '?'; then sb_text_defuse. */
void sb_text_one_line(char *msg);

/* Text into HTML: < > & " as entities. Into Markdown: every character that
 * can open a construct inside a line is backslash-escaped (links, images,
 * emphasis, code, HTML, table cells; brackets too when `brackets` is set),
 * line breaks become spaces. In both, a bidi control (U+202A-202E,
 * U+2066-2069, U+200E/F, U+061C), which would reorder what a reader sees
 * around it, shows as [U+XXXX], other controls as '?' (a line break a space;
 * HTML keeps newlines), invalid bytes and U+FFFE/U+FFFF as U+FFFD; a
 * workflow command (sb_text_defuse's rule; a "::" where only spaces,
 * controls and non-ASCII characters stand before it) with its first ':' or
 * its '[' escaped (\: \[, &#58; &#91;). */
void sb_text_html(FILE *f, const char *s);
void sb_text_md(FILE *f, const char *s, int brackets);

#endif
