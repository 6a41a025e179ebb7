/* sb_slurm without a cluster: host list and count expansion (checked
 * against what `scontrol show hostnames` prints for the same lists),
 * the allocation from its environment values, the fit check, Slurm's kill
 * lines, the batch script and the time format. */
#include <stdlib.h>
#include <string.h>
#include "sb_result.h"
#include "sb_slurm.h"
#include "testutil.h"

/* expands `list` and compares with the space-separated `want` */
static void check_expand(const char *list, const char *want)
{
    char **names = NULL;
    int n = 0;
    sb_err e = {0};
    int rc = sb_slurm_hostlist_expand(list, "test", &names, &n, &e);
    CHECKF(rc == SB_OK, "%s: %s", list, e.msg);
    if (rc) return;
    char got[4096] = "";
    size_t off = 0;
    for (int i = 0; i < n; i++)
        off += (size_t)snprintf(got + off, sizeof got - off, "%s%s", i ? " " : "", names[i]);
    CHECKF(!strcmp(got, want), "%s expanded to '%s', expected '%s'", list, got, want);
    CHECK(names[n] == NULL);
    sb_argv_free(names);
}

static void check_bad(const char *list, const char *needle)
{
    char **names = NULL;
    int n = 0;
    sb_err e = {0};
    int rc = sb_slurm_hostlist_expand(list, "SLURM_JOB_NODELIST", &names, &n, &e);
    CHECKF(rc == SB_EUSAGE, "'%s' was accepted (%d names)", list, n);
    CHECKF(rc != SB_EUSAGE || (strstr(e.msg, needle) && strstr(e.msg, "SLURM_JOB_NODELIST")),
           "'%s': message '%s' lacks '%s'", list, e.msg, needle);
    CHECK(names == NULL);
}

int main(void)
{
    /* the forms Slurm writes, as scontrol show hostnames expands them */
    check_expand("sbnode1", "sbnode1");
    check_expand("sbnode[1-2]", "sbnode1 sbnode2");
    check_expand("sbnode[1-3,5]", "sbnode1 sbnode2 sbnode3 sbnode5");
    check_expand("n[08-11]", "n08 n09 n10 n11");
    check_expand("n[8-11]", "n8 n9 n10 n11");
    check_expand("login01,cn[001-002],gpu7", "login01 cn001 cn002 gpu7");
    check_expand("r[1-2]n[01-02]", "r1n01 r1n02 r2n01 r2n02");
    check_expand("node-[1-2]", "node-1 node-2");
    check_bad("", "empty");
    check_bad("sbnode[1-2", "unbalanced");
    check_bad("sbnode1-2]", "unbalanced");
    check_bad("sbnode[2-1]", "backwards");
    check_bad("sbnode[a-b]", "bad range");
    check_bad("sbnode[]", "empty range");
    check_bad("sbnode[1,]", "empty range");
    check_bad("sbnode1,,sbnode2", "empty item");
    check_bad("sbnode[1-2] sbnode3", "unexpected character");
    check_bad("n[0-999999999]", "more than");
    check_bad("n[[1-2]]", "nested");

    int c[6];
    sb_err e = {0};
    CHECK(sb_slurm_counts_expand("2(x3),1", "T", 4, c, &e) == SB_OK);
    CHECK(c[0] == 2 && c[1] == 2 && c[2] == 2 && c[3] == 1);
    CHECK(sb_slurm_counts_expand("4", "T", 1, c, &e) == SB_OK && c[0] == 4);
    CHECK(sb_slurm_counts_expand("2(x3)", "T", 2, c, &e) == SB_EUSAGE);
    CHECK(sb_slurm_counts_expand("2(x1)", "T", 2, c, &e) == SB_EUSAGE && strstr(e.msg, "counts 1"));
    CHECK(sb_slurm_counts_expand("2(x", "T", 2, c, &e) == SB_EUSAGE);
    CHECK(sb_slurm_counts_expand("x", "T", 1, c, &e) == SB_EUSAGE);
    CHECK(sb_slurm_counts_expand("1;2", "T", 2, c, &e) == SB_EUSAGE);

    /* an allocation as salloc -N 2 --ntasks-per-node=2 leaves it */
    sb_slurm_alloc a;
    CHECK(sb_slurm_alloc_parse(NULL, "n[1-2]", NULL, NULL, &a, &e) == SB_EUSAGE &&
          strstr(e.msg, "not inside a Slurm allocation"));
    CHECK(sb_slurm_alloc_parse("12", NULL, NULL, NULL, &a, &e) == SB_EUSAGE);
    CHECK(sb_slurm_alloc_parse("12;rm", "n1", NULL, NULL, &a, &e) == SB_EUSAGE);
    CHECK(sb_slurm_alloc_parse("12", "n[1-2]", "2(x3)", NULL, &a, &e) == SB_EUSAGE);
    int rc = sb_slurm_alloc_parse("12", "sbnode[1-2]", "2(x2)", "2(x2)", &a, &e);
    CHECKF(rc == SB_OK, "%s", e.msg);
    if (!rc) {
        CHECK(a.nnodes == 2 && !strcmp(a.job_id, "12") && !strcmp(a.nodes[1], "sbnode2"));
        CHECK(sb_slurm_check_fit(&a, 2, 2, 1, &e) == SB_OK);
        CHECK(sb_slurm_check_fit(&a, 3, 1, 1, &e) == SB_EUSAGE && strstr(e.msg, "3 nodes") &&
              strstr(e.msg, "job 12 holds 2"));
        CHECK(sb_slurm_check_fit(&a, 1, 3, 1, &e) == SB_EUSAGE &&
              strstr(e.msg, "--ntasks-per-node=3"));
        CHECK(sb_slurm_check_fit(&a, 2, 2, 2, &e) == SB_EUSAGE &&
              strstr(e.msg, "--cpus-per-task=2"));
        sb_hostfile hf;
        sb_slurm_alloc_hostfile(&a, &hf);
        CHECK(hf.n == 2 && !strcmp(hf.hosts[0].name, "sbnode1") && hf.hosts[1].slots == 2);
        CHECK(sb_hostfile_min_slots(&hf, 2) == 2);
        sb_hostfile_free(&hf);
        char joined[64];
        sb_slurm_nodes_joined(&a, 2, joined, sizeof joined);
        CHECK(!strcmp(joined, "sbnode1,sbnode2"));
        sb_slurm_nodes_joined(&a, 1, joined, sizeof joined);
        CHECK(!strcmp(joined, "sbnode1"));
        sb_slurm_alloc_free(&a);
    }
    /* no task or CPU counts (an older Slurm): one task per node, CPUs unknown */
    if (sb_slurm_alloc_parse("7", "x1", NULL, NULL, &a, &e) == SB_OK) {
        CHECK(a.tasks[0] == 1 && a.cpus[0] == 0);
        CHECK(sb_slurm_check_fit(&a, 1, 1, 64, &e) == SB_OK);
        sb_slurm_alloc_free(&a);
    } else
        CHECK(0);

    /* Slurm's words when it ends a step */
    char why[300];
    const char *log1 = "sprbench train: step 3\n"
                       "slurmstepd: error: *** STEP 5.2 ON sbnode1 CANCELLED AT 2026-12-01T10:00:00"
                       " DUE TO TIME LIMIT ***\n"
                       "srun: error: sbnode1: task 0: Killed\n";
    CHECK(sb_slurm_kill_reason(log1, why, sizeof why) == 1);
    CHECKF(
        !strcmp(why,
                "*** STEP 5.2 ON sbnode1 CANCELLED AT 2026-12-01T10:00:00 DUE TO TIME LIMIT ***"),
        "got '%s'", why);
    CHECK(sb_slurm_kill_reason(
              "srun: error: Node failure on sbnode2\nsrun: error: sbnode2: task 1: Killed\n", why,
              sizeof why) == 1 &&
          strstr(why, "Node failure on sbnode2"));
    CHECK(sb_slurm_kill_reason("sprbench train: bad batch\nmpirun: exit 1\n", why, sizeof why) ==
              0 &&
          why[0] == '\0');
    CHECK(sb_slurm_kill_reason("", why, sizeof why) == 0);
    CHECK(sb_slurm_kill_reason(log1, why, 12) == 1 && strlen(why) == 11);

    char t[64];
    sb_slurm_time_format(30, t, sizeof t);
    CHECK(!strcmp(t, "00:01:00"));
    sb_slurm_time_format(3601, t, sizeof t);
    CHECK(!strcmp(t, "01:01:00"));
    sb_slurm_time_format(4 * 24 * 3600.0 + 90, t, sizeof t);
    CHECK(!strcmp(t, "4-00:02:00"));

    char *argv[] = {"/opt/sb/sprbench",   "sweep", "--db", "/shared/r.db", "--mpirun-args",
                    "--mca btl tcp,self", NULL};
    sb_slurm_batch b = {.nodes = 2,
                        .ppn = 2,
                        .cpus_per_task = 1,
                        .time_limit_s = 600,
                        .workdir = "/home/u/it's",
                        .argv = argv};
    char *s = sb_slurm_batch_script(&b);
    CHECK(s != NULL);
    if (s) {
        CHECK(!strncmp(s, "#!/bin/sh\n", 10));
        CHECK(strstr(s, "\n#SBATCH --nodes=2\n") && strstr(s, "\n#SBATCH --ntasks-per-node=2\n") &&
              strstr(s, "\n#SBATCH --cpus-per-task=1\n") &&
              strstr(s, "\n#SBATCH --time=00:10:00\n") && strstr(s, "\n#SBATCH --exclusive\n"));
        CHECKF(strstr(s, "\ncd '/home/u/it'\\''s' || exit 1\n"), "%s", s);
        CHECKF(strstr(s,
                      "\nexec /opt/sb/sprbench sweep --db /shared/r.db --mpirun-args '--mca btl "
                      "tcp,self'\n"),
               "%s", s);
        free(s);
    }

    /* the step record is there only inside Slurm */
    unsetenv("SLURM_JOB_ID");
    CHECK(sb_result_slurm_step() == NULL);
    setenv("SLURM_JOB_ID", "9", 1);
    setenv("SLURM_STEP_ID", "4", 1);
    json_t *j = sb_result_slurm_step();
    CHECK(j && !strcmp(json_string_value(json_object_get(j, "job_id")), "9") &&
          !strcmp(json_string_value(json_object_get(j, "step_id")), "4"));
    json_decref(j);

    CHECK(sb_slurm_require("sh", &e) == SB_OK);
    CHECK(sb_slurm_require("no-such-program-sb", &e) == SB_EUSAGE && strstr(e.msg, "slurm-client"));
    return test_report("test_mpi_slurm");
}
