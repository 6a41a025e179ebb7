#include "sb_squad_synth.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_io.h"

/* Every word below is a whole token of bert-base-uncased's vocab.txt (checked
 * by tests/test_squad_synth.c when the real vocab is present). Each attribute
 * has its own kind of value (a color for "color", a city for "city"), and the
 * attributes of one paragraph are distinct, so the question's attribute picks
 * exactly one value in the paragraph: a tiny model learns to match the kind.
 * The context never names an attribute, so the question's is the only one in
 * a feature. No word is both a value and a name, nor a value of two kinds. */
typedef struct synth_attr {
    const char *attr;
    const char *const *vals; /* NULL-terminated */
} synth_attr;
#define VALS(...) ((const char *const[]){__VA_ARGS__, NULL})
static const synth_attr k_attrs[] = {
    {"color",
     VALS("red", "blue", "green", "yellow", "black", "white", "orange", "purple", "pink", "brown",
          "gray", "silver", "gold")},
    {"city",
     VALS("rome", "paris", "london", "berlin", "tokyo", "madrid", "cairo", "sydney", "moscow",
          "dublin", "vienna", "oslo", "lima", "delhi", "seoul", "boston", "chicago", "denver",
          "dallas", "miami", "seattle")},
    {"country",
     VALS("france", "spain", "italy", "china", "japan", "india", "brazil", "egypt", "kenya", "peru",
          "chile", "canada", "mexico", "norway", "sweden", "poland", "greece")},
    {"food", VALS("rice", "bread", "cheese", "apple", "banana", "soup", "cake", "pizza")},
    {"sport", VALS("tennis", "golf", "soccer", "hockey", "chess", "boxing", "rugby", "cricket")},
    {"animal", VALS("tiger", "lion", "wolf", "bear", "horse", "rabbit", "snake")},
    {"flower", VALS("lily", "daisy", "orchid", "lotus")},
    {"tree", VALS("oak", "pine", "maple")},
    {"metal", VALS("iron", "copper", "steel", "zinc", "tin")},
    {"shape", VALS("circle", "square", "triangle", "star", "heart")},
    {"number",
     VALS("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
          "twelve", "twenty", "thirty", "forty", "fifty", "hundred")},
    {"season", VALS("winter", "summer", "spring", "autumn")},
    {"job",
     VALS("doctor", "teacher", "pilot", "farmer", "lawyer", "nurse", "driver", "singer", "painter",
          "writer")},
    {"drink", VALS("coffee", "tea", "milk", "juice", "water", "wine", "beer")},
    {"bird", VALS("eagle", "owl", "crow", "parrot")},
    {"fish", VALS("shark", "whale", "salmon", "tuna")},
    {"planet", VALS("mars", "venus", "jupiter", "saturn")},
    {"river", VALS("nile", "amazon", "thames", "danube")},
    {"mountain", VALS("alps", "andes")},
    {"instrument", VALS("piano", "guitar", "violin", "drum", "flute")}};
#undef VALS
static const char *const k_entities[] = {
    "Tom",   "Anna",  "Paul",  "Maria", "John",   "Lisa",  "Mark",    "Sara",  "Peter",  "Emma",
    "David", "Julia", "James", "Kate",  "Robert", "Laura", "Michael", "Alice", "George", "Helen",
    "Frank", "Diana", "Henry", "Grace", "Oscar",  "Ruby",  "Victor",  "Nora",  "Simon",  "Clara",
    "Adam",  "Eva",   "Brian", "Fiona", "Carl",   "Holly", "Dennis",  "Iris",  "Edward", "Jane",
    "Felix", "Mia",   "Harry", "Nina",  "Ivan",   "Olga",  "Jack",    "Rose",  "Kevin",  "Tina",
    "Leo",   "Una",   "Max",   "Vera",  "Nick",   "Wendy", "Owen",    "Zoe",   "Ralph",  "Amy",
    "Sam",   "Beth",  "Ted",   "Cora",  "Walter", "Dora"};
/* The filler of SB_SYNTH_SQUAD's paragraphs and question tails: no value,
 * no attribute, no name, nothing a question asks for. */
static const char *const k_verbs[] = {"saw",   "met",  "visited", "called", "helped",
                                      "watched", "found", "left",  "read",   "wrote"};
static const char *const k_nouns[] = {"book",   "house",  "car",     "letter",  "garden",
                                      "school", "station", "market", "office",  "window",
                                      "door",   "road",   "bridge",  "film",    "story",
                                      "song",   "game",   "team",    "park",    "church",
                                      "hotel",  "museum", "library", "kitchen"};
static const char *const k_preps[] = {"near", "after", "before", "with", "behind", "inside"};
static const char *const k_times[] = {"today", "yesterday", "again", "later",
                                      "often", "once",      "early", "late"};
static const char *const k_the[] = {"the"};
#define N_OF(a) ((int)(sizeof a / sizeof *a))
#define N_ATTRS N_OF(k_attrs)
#define N_ENTS N_OF(k_entities)

/* Token lengths of SQuAD v1.1 dev, tokenized as the trainer tokenizes
 * (sb_features, bert-base-uncased's vocab.txt): the 0, 5, 10, ..., 100th
 * percentiles over its 1,190 questions (all 48 dev articles; XQuAD's English
 * file, ../shared/data/squad/squad_v1.1_dev_xquad_en.json) of the question
 * (without [CLS]/[SEP]; mean 12.6) and of its paragraph (mean 165.2), as
 * `sprbench features --max-seq 4096` gives them (one window per question).
 * A length is drawn between two neighbouring percentiles, linearly. */
static const short k_ctx_pct[21] = {34,  75,  97,  104, 112, 118, 125, 129, 135, 141, 150,
                                    155, 161, 167, 180, 198, 208, 234, 249, 282, 617};
static const short k_q_pct[21] = {4,  7,  8,  9,  9,  10, 10, 11, 11, 12, 12,
                                  13, 13, 14, 14, 15, 15, 16, 18, 20, 32};

static int n_vals(int a)
{
    int n = 0;
    while (k_attrs[a].vals[n]) n++;
    return n;
}

const char *const *sb_squad_synth_words(void)
{
    enum { N_GLUE = 6, N_MAX = 512 };
    static const char *all[N_MAX + 1];
    static char lower[N_ENTS][16];
    if (!all[0]) {
        int k = 0;
        static const char *const glue[N_GLUE] = {"which", "does", "like", "likes", "?", "."};
        for (int i = 0; i < N_GLUE; i++) all[k++] = glue[i];
        for (int i = 0; i < N_ATTRS; i++) all[k++] = k_attrs[i].attr;
        for (int i = 0; i < N_ENTS; i++) {
            size_t j = 0;
            for (; k_entities[i][j] && j < 15; j++) lower[i][j] = (char)(k_entities[i][j] | 0x20);
            lower[i][j] = '\0';
            all[k++] = lower[i];
        }
        for (int i = 0; i < N_ATTRS; i++)
            for (int j = 0; k_attrs[i].vals[j] && k < N_MAX; j++) all[k++] = k_attrs[i].vals[j];
        /* the filler last: the words above keep their built-in vocab ids */
        const char *const *fill[] = {k_verbs, k_nouns, k_preps, k_times, k_the};
        const int nfill[] = {N_OF(k_verbs), N_OF(k_nouns), N_OF(k_preps), N_OF(k_times), 1};
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < nfill[i] && k < N_MAX; j++) all[k++] = fill[i][j];
        all[k] = NULL;
    }
    return all;
}

/* splitmix64: tiny, fast, and the same on every platform. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int uniform(uint64_t *s, int n) { return (int)(next_u64(s) % (uint64_t)n); }

/* A length drawn from a percentile table (k_ctx_pct, k_q_pct). */
static int draw_len(uint64_t *s, const short *pct)
{
    double u = (double)(next_u64(s) >> 11) / 9007199254740992.0 * 20.0; /* [0, 20) */
    int i = (int)u;
    return (int)(pct[i] + (u - i) * (pct[i + 1] - pct[i]) + 0.5);
}

/* Appends to buf (at *len, cap bytes) a filler sentence of 5, 6, 8 or 9
 * tokens ("Tom saw the book near the door today."), the longest that fits
 * in room (room >= 5) or a random one when all fit; its token count. */
static int filler(uint64_t *s, char *buf, size_t *len, size_t cap, int room)
{
    static const int sizes[] = {5, 6, 8, 9};
    int n = room >= 9 ? sizes[uniform(s, 4)] : room >= 8 ? 8 : room >= 6 ? 6 : 5;
    int e = uniform(s, N_ENTS), v = uniform(s, N_OF(k_verbs)), o = uniform(s, N_OF(k_nouns));
    *len += (size_t)snprintf(buf + *len, cap - *len, "%s%s %s the %s", *len ? " " : "",
                             k_entities[e], k_verbs[v], k_nouns[o]);
    if (n >= 8)
        *len += (size_t)snprintf(buf + *len, cap - *len, " %s the %s",
                                 k_preps[uniform(s, N_OF(k_preps))],
                                 k_nouns[uniform(s, N_OF(k_nouns))]);
    if (n == 6 || n == 9)
        *len += (size_t)snprintf(buf + *len, cap - *len, " %s", k_times[uniform(s, N_OF(k_times))]);
    *len += (size_t)snprintf(buf + *len, cap - *len, ".");
    return n;
}

/* The tail of a question of SB_SYNTH_SQUAD: `extra` tokens of prepositional
 * phrases and time words (" near the station today") before its '?'. */
static void question_tail(uint64_t *s, int extra, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (; extra >= 3 && len + 40 < cap; extra -= 3)
        len += (size_t)snprintf(buf + len, cap - len, " %s the %s",
                                k_preps[uniform(s, N_OF(k_preps))],
                                k_nouns[uniform(s, N_OF(k_nouns))]);
    for (; extra >= 1 && len + 16 < cap; extra--)
        len += (size_t)snprintf(buf + len, cap - len, " %s", k_times[uniform(s, N_OF(k_times))]);
}

enum {
    FACTS_MIN = 3,
    FACTS_MAX = 5,
    QUESTIONS_MIN = 2,
    QUESTIONS_MAX = 4,
    PARAGRAPHS_PER_ARTICLE = 50
};

int sb_squad_synth_json(int32_t n_questions, uint64_t seed, int dev, sb_synth_lengths lengths,
                        json_t **out, sb_err *e)
{
    *out = NULL;
    if (n_questions < 0) return sb_errf(e, SB_EUSAGE, "negative number of questions");
    uint64_t state = seed * 0x2545F4914F6CDD1Dull + (dev ? 0xD1B54A32D192ED03ull : 0x1234567ull);
    next_u64(&state);
    json_t *doc = json_object();
    json_t *data = json_array();
    json_object_set_new(doc, "data", data);
    json_object_set_new(doc, "version", json_string("1.1"));
    json_t *article = NULL, *paragraphs = NULL;
    int32_t made = 0, n_par = 0;
    char ctx[8192], q[512], tail[400], id[96], title[64];
    int squad = lengths == SB_SYNTH_SQUAD;
    while (made < n_questions) {
        if (n_par % PARAGRAPHS_PER_ARTICLE == 0) {
            article = json_object();
            snprintf(title, sizeof title, "Synthetic_%s%d", dev ? "dev_" : "",
                     n_par / PARAGRAPHS_PER_ARTICLE);
            json_object_set_new(article, "title", json_string(title));
            paragraphs = json_array();
            json_object_set_new(article, "paragraphs", paragraphs);
            json_array_append_new(data, article);
        }
        n_par++;
        int n_facts = FACTS_MIN + uniform(&state, FACTS_MAX - FACTS_MIN + 1);
        int attr[FACTS_MAX], ent[FACTS_MAX], val[FACTS_MAX], val_at[FACTS_MAX];
        int perm[N_ATTRS];
        for (int i = 0; i < N_ATTRS; i++) perm[i] = i;
        for (int i = 0; i < n_facts; i++) { /* partial Fisher-Yates: distinct attributes */
            int j = i + uniform(&state, N_ATTRS - i);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
            attr[i] = perm[i];
            ent[i] = uniform(&state, N_ENTS);
            val[i] = uniform(&state, n_vals(attr[i]));
        }
        size_t len = 0;
        /* SQuAD's lengths: filler sentences to a drawn length, the facts
         * (4 tokens each, in order) spread among them at random */
        int room = squad ? draw_len(&state, k_ctx_pct) - 4 * n_facts : 0;
        for (int i = 0; i < n_facts; i++) {
            while (room >= 5 && uniform(&state, 7 * (n_facts - i) + room) >= 7 * (n_facts - i))
                room -= filler(&state, ctx, &len, sizeof ctx, room);
            int pre = snprintf(ctx + len, sizeof ctx - len, "%s%s likes ", len ? " " : "",
                               k_entities[ent[i]]);
            val_at[i] = (int)len + pre;
            len += (size_t)pre;
            len += (size_t)snprintf(ctx + len, sizeof ctx - len, "%s.",
                                    k_attrs[attr[i]].vals[val[i]]);
        }
        while (room >= 5) room -= filler(&state, ctx, &len, sizeof ctx, room);
        json_t *para = json_object();
        json_object_set_new(para, "context", json_stringn(ctx, len));
        json_t *qas = json_array();
        json_object_set_new(para, "qas", qas);
        json_array_append_new(paragraphs, para);
        int n_q = QUESTIONS_MIN + uniform(&state, QUESTIONS_MAX - QUESTIONS_MIN + 1);
        if (n_q > n_facts) n_q = n_facts;
        int asked[FACTS_MAX];
        for (int i = 0; i < n_facts; i++) asked[i] = i;
        for (int k = 0; k < n_q && made < n_questions; k++) {
            int j = k + uniform(&state, n_facts - k);
            int t = asked[k];
            asked[k] = asked[j];
            asked[j] = t;
            int f = asked[k];
            /* "Which color does Tom like?" is 6 tokens; SQuAD's a drawn length */
            tail[0] = '\0';
            if (squad) question_tail(&state, draw_len(&state, k_q_pct) - 6, tail, sizeof tail);
            snprintf(q, sizeof q, "Which %s does %s like%s?", k_attrs[attr[f]].attr,
                     k_entities[ent[f]], tail);
            snprintf(id, sizeof id, "synth-%s%llu-%d", dev ? "dev-" : "", (unsigned long long)seed,
                     made);
            json_t *qa = json_object();
            json_object_set_new(qa, "id", json_string(id));
            json_object_set_new(qa, "question", json_string(q));
            json_t *answers = json_array();
            json_t *ans = json_object();
            json_object_set_new(ans, "text", json_string(k_attrs[attr[f]].vals[val[f]]));
            json_object_set_new(ans, "answer_start", json_integer(val_at[f]));
            json_array_append_new(answers, ans);
            json_object_set_new(qa, "answers", answers);
            json_array_append_new(qas, qa);
            made++;
        }
    }
    *out = doc;
    return SB_OK;
}

int sb_squad_synth(int32_t n_questions, uint64_t seed, int dev, sb_synth_lengths lengths,
                   sb_squad_set *set, sb_err *e)
{
    json_t *doc;
    int rc = sb_squad_synth_json(n_questions, seed, dev, lengths, &doc, e);
    if (rc) return rc;
    rc = sb_squad_from_json(doc, "synthetic set", set, e);
    json_decref(doc);
    return rc;
}

int sb_squad_synth_write(const char *path, int32_t n_questions, uint64_t seed, int dev,
                         sb_synth_lengths lengths, sb_err *e)
{
    json_t *doc;
    int rc = sb_squad_synth_json(n_questions, seed, dev, lengths, &doc, e);
    if (rc) return rc;
    char *s = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (!s) return sb_errf(e, SB_EFAIL, "%s: cannot encode JSON", path);
    size_t n = strlen(s);
    s[n] = '\n'; /* overwrite the NUL: written with an explicit length */
    rc = sb_write_file_atomic(path, s, n + 1, e);
    free(s);
    return rc;
}

int sb_vocab_builtin_synth(sb_vocab *v, sb_err *e)
{
    static const char *const specials[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    const char *const *words = sb_squad_synth_words();
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) return sb_errf(e, SB_EFAIL, "out of memory");
#define SB_PUT(str)                                           \
    do {                                                      \
        size_t l_ = strlen(str);                              \
        if (n + l_ + 4 > cap) {                               \
            cap = (n + l_ + 4) * 2;                           \
            char *nb_ = realloc(buf, cap);                    \
            if (!nb_) {                                       \
                free(buf);                                    \
                return sb_errf(e, SB_EFAIL, "out of memory"); \
            }                                                 \
            buf = nb_;                                        \
        }                                                     \
        memcpy(buf + n, str, l_);                             \
        n += l_;                                              \
        buf[n++] = '\n';                                      \
    } while (0)
    for (size_t i = 0; i < 5; i++) SB_PUT(specials[i]);
    /* Single characters and their continuations: every ASCII word has a
     * WordPiece cover, so the tiny model never sees [UNK] for plain text. */
    for (int c = 33; c < 127; c++) {
        char s[4] = {(char)c, 0, 0, 0};
        if (c >= 'A' && c <= 'Z') continue;
        SB_PUT(s);
    }
    for (int c = 33; c < 127; c++) {
        int alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z');
        if (!alnum) continue;
        char s[4] = {'#', '#', (char)c, 0};
        SB_PUT(s);
    }
    for (size_t i = 0; words[i]; i++) {
        if (strlen(words[i]) == 1) continue; /* already a single character */
        SB_PUT(words[i]);
    }
#undef SB_PUT
    int rc = sb_vocab_parse(buf, n, "built-in synthetic vocab", v, e);
    free(buf);
    return rc;
}
