/* libFuzzer: the Open MPI hostfile parser (sb_hostfile_parse_text) on
 * arbitrary text. Accepted files have at least one named host with
 * non-negative slots; refusals name the file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sb_launch.h"

/* libFuzzer's entry point (it declares none). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    sb_hostfile hf = {0};
    sb_err e = {0};
    if (sb_hostfile_parse_text(text, "fuzz.hosts", &hf, &e) == SB_OK) {
        if (hf.n < 1) abort();
        for (int i = 0; i < hf.n; i++)
            if (!hf.hosts[i].name || !hf.hosts[i].name[0] || hf.hosts[i].slots < 0 ||
                hf.hosts[i].max_slots < 0)
                abort();
        (void)sb_hostfile_min_slots(&hf, hf.n);
        sb_hostfile_free(&hf);
    } else if (strncmp(e.msg, "fuzz.hosts", 10)) {
        abort();
    }
    free(text);
    return 0;
}
