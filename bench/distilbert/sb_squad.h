/* sb_squad: the official SQuAD v1.1 JSON layout, read with jansson
 * (data[].paragraphs[].context, qas[].id/question/answers[].text/answer_start),
 * validated with errors that name the JSON path. answer_start is in code
 * points of the context (Python string indices) and is kept as given: official
 * dev files hold a few that miss their text by whitespace, which run_qa.py
 * accepts, so do we (they are counted in n_misaligned). */
#ifndef SB_SQUAD_H
#define SB_SQUAD_H
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "sb_err.h"

typedef struct sb_squad_answer {
    char *text;
    int32_t answer_start; /* code points into the context */
} sb_squad_answer;

typedef struct sb_squad_example {
    char *id;
    char *question;
    const char *context;   /* shared by the questions of one paragraph */
    int32_t context_index; /* into sb_squad_set.contexts */
    int32_t n_answers;
    sb_squad_answer *answers;
} sb_squad_example;

typedef struct sb_squad_set {
    int32_t n_examples; /* questions, in file order */
    sb_squad_example *examples;
    int32_t n_contexts; /* paragraphs, in file order */
    char **contexts;
    int32_t n_misaligned; /* answers whose text is not at answer_start */
} sb_squad_set;

/* Reads a SQuAD file. SB_EUSAGE naming file and JSON path on bad input
 * ("f.json: data[3].paragraphs[1].qas[0]: missing \"id\""). */
int sb_squad_load(const char *path, sb_squad_set *set, sb_err *e);
/* Same from a buffer or a parsed document; `name` names the source. */
int sb_squad_parse(const char *data, size_t len, const char *name, sb_squad_set *set, sb_err *e);
int sb_squad_from_json(const json_t *doc, const char *name, sb_squad_set *set, sb_err *e);
void sb_squad_free(sb_squad_set *set);

#endif
