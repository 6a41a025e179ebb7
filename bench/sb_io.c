#include "sb_io.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sb_write_file_atomic(const char *path, const void *data, size_t len, sb_err *e)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return sb_errf(e, SB_EUSAGE, "%s: path too long", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return sb_errf(e, SB_EUSAGE, "%s: cannot write: %s", path, strerror(errno));
    int ok = fwrite(data, 1, len, f) == len;
    ok = (fflush(f) == 0) && ok;
    ok = (fsync(fileno(f)) == 0 || errno == EINVAL) && ok;
    int saved = errno;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        if (ok) saved = errno;
        unlink(tmp);
        return sb_errf(e, SB_EFAIL, "%s: write failed: %s", path, strerror(saved));
    }
    return SB_OK;
}

int sb_json_write_atomic(const char *path, const json_t *doc, sb_err *e)
{
    char *s = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (!s) return sb_errf(e, SB_EFAIL, "%s: cannot encode JSON", path);
    size_t n = strlen(s);
    char *buf = realloc(s, n + 2);
    if (!buf) { free(s); return sb_errf(e, SB_EFAIL, "out of memory"); }
    buf[n] = '\n';
    int rc = sb_write_file_atomic(path, buf, n + 1, e);
    free(buf);
    return rc;
}

int sb_read_file(const char *path, char **data, size_t *len, sb_err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) return sb_errf(e, SB_EUSAGE, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) { fclose(f); return sb_errf(e, SB_EFAIL, "%s: out of memory", path); }
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1) break;
        cap *= 2;
        char *nb = realloc(buf, cap);
        if (!nb) free(buf);
        buf = nb;
    }
    int err = ferror(f);
    fclose(f);
    if (err) { free(buf); return sb_errf(e, SB_EUSAGE, "%s: read error", path); }
    buf[n] = '\0';
    *data = buf;
    if (len) *len = n;
    return SB_OK;
}
