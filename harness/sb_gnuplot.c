#include "sb_gnuplot.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *gnuplot_path(void)
{
    const char *p = getenv("SB_GNUPLOT");
    return p && *p ? p : "gnuplot";
}

int sb_gnuplot_available(void)
{
    const char *g = gnuplot_path();
    if (strchr(g, '/')) return access(g, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path) return 0;
    char *copy = strdup(path), *save = NULL;
    int found = 0;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", d, g);
        found = access(full, X_OK) == 0;
    }
    free(copy);
    return found;
}

void sb_gnuplot_quote(const char *s, char *buf, size_t cap)
{
    size_t o = 0;
    for (; *s && o + 3 < cap; s++) {
        if (*s == '"' || *s == '\\') buf[o++] = '\\';
        if (*s == '\n') { buf[o++] = ' '; continue; }
        buf[o++] = *s;
    }
    buf[o] = '\0';
}

int sb_gnuplot_render(const char *script, const char *term, int width, int height,
                      const char *out_path, sb_err *e)
{
    if (!sb_gnuplot_available())
        return sb_errf(e, SB_EUSAGE, "gnuplot not found on PATH (install gnuplot-nox)");
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out_path, (long)getpid()) >= (int)sizeof tmp)
        return sb_errf(e, SB_EUSAGE, "%s: path too long", out_path);
    FILE *probe = fopen(tmp, "wb");
    if (!probe) return sb_errf(e, SB_EUSAGE, "%s: cannot write: %s", out_path, strerror(errno));
    fclose(probe);

    int in[2];
    if (pipe(in)) return sb_errf(e, SB_EFAIL, "pipe: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)gnuplot_path(), NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    if (rc) {
        close(in[1]);
        unlink(tmp);
        return sb_errf(e, SB_EUSAGE, "cannot run gnuplot: %s", strerror(rc));
    }
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    FILE *f = fdopen(in[1], "w");
    char qout[4200];
    sb_gnuplot_quote(tmp, qout, sizeof qout);
    if (!strcmp(term, "svg"))
        fprintf(f, "set terminal svg size %d,%d dynamic enhanced font 'Sans,11' background '#ffffff'\n",
                width, height);
    else
        fprintf(f, "set terminal pngcairo size %d,%d enhanced font 'Sans,10'\n", width, height);
    fprintf(f, "set output \"%s\"\n%s\nunset output\n", qout, script);
    fclose(f);
    signal(SIGPIPE, old);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    struct stat st;
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && stat(tmp, &st) == 0 &&
             st.st_size > 100;
    if (!ok) {
        unlink(tmp);
        return sb_errf(e, SB_EFAIL, "gnuplot failed to draw %s", out_path);
    }
    if (rename(tmp, out_path)) {
        int err = errno;
        unlink(tmp);
        return sb_errf(e, SB_EFAIL, "%s: %s", out_path, strerror(err));
    }
    return SB_OK;
}
