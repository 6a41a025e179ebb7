/* libFuzzer: the sweep's plan parser (sb_plan_parse, sb_plan_finish) on
 * arbitrary text. An accepted plan renders to text that parses back to the
 * same number of points; refusals name the file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sb_plan.h"

/* libFuzzer's entry point (it declares none). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    sb_plan p;
    sb_err e = {0};
    sb_plan_init(&p);
    int rc = sb_plan_parse(&p, text, "fuzz.plan", &e);
    /* parse errors name the file and line; finish errors are about the whole plan */
    if (rc != SB_OK && strncmp(e.msg, "fuzz.plan", 9)) abort();
    if (rc == SB_OK && sb_plan_finish(&p, 2, &e) == SB_OK) {
        char *again = sb_plan_render(&p);
        if (!again) abort();
        sb_plan q;
        sb_plan_init(&q);
        if (sb_plan_parse(&q, again, "rendered", &e) != SB_OK ||
            sb_plan_finish(&q, 2, &e) != SB_OK || sb_plan_npoints(&q) != sb_plan_npoints(&p))
            abort();
        sb_plan_free(&q);
        free(again);
    }
    sb_plan_free(&p);
    free(text);
    return 0;
}
