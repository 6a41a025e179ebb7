/* The tile configuration the compiled AMX code really loads, checked on any
 * x86-64 CPU. The tile model cannot see this: it is what the compiler made
 * of the real path (GCC 12's _tile_loadconfig once let it drop the stores of
 * rows[] and colsb[], and every AMX kernel died with SIGILL on its first AMX
 * CPU while the model tests passed).
 *
 * For each user of the real tiles (amx-bf16's and amx-int8's thread_begin,
 * both peak loops) the test runs the code and reads the configuration:
 *   - on a CPU whose OS lets this process use AMX: sttilecfg right after;
 *   - otherwise, in a child process: the first AMX instruction raises
 *     SIGILL; when it is ldtilecfg, the handler decodes its memory operand
 *     from the saved registers and reads the 64 bytes it was about to load;
 *     when the CPU has the tile state but not the permission (ldtilecfg
 *     runs, the first tile-data instruction faults), the configuration
 *     comes from the XSAVE image in the signal frame.
 * Either way the configuration must be palette 1 with tiles 0-7 16 x 64. */
#include "sb_amx_cfg.h"
#include "sb_cpu.h"
#include "sb_gemm.h"
#include "sb_peak.h"
#include "sb_ukr.h"
#include "testutil.h"
#include <cpuid.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

/* ---- the decoder of ldtilecfg's memory operand ---------------------------- */

/* ldtilecfg m512 is VEX.128.NP.0F38.W0 49 /0: C4, [~R ~X ~B 00010], 0x78, 0x49,
 * ModRM (reg 0, memory form), optional SIB, displacement. regs[] holds rax,
 * rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8..r15 (the hardware's numbering).
 * Returns the instruction's length and the operand's address in *addr, or 0
 * when the bytes are not an ldtilecfg this decoder knows. */
static int decode_ldtilecfg(const uint8_t *ip, const uint64_t regs[16], uint64_t *addr)
{
    if (ip[0] != 0xc4 || (ip[1] & 0x1f) != 0x02 || ip[2] != 0x78 || ip[3] != 0x49) return 0;
    int xbit = !(ip[1] & 0x40), bbit = !(ip[1] & 0x20);
    uint8_t modrm = ip[4];
    int mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
    if (mod == 3 || reg != 0) return 0;
    int len = 5;
    uint64_t a = 0;
    int rip_rel = 0;
    if (rm == 4) {
        uint8_t sib = ip[len++];
        int scale = sib >> 6, index = ((sib >> 3) & 7) | (xbit << 3), base = sib & 7;
        if (index != 4) a += regs[index] << scale;
        if (mod == 0 && base == 5) {
            int32_t d;
            memcpy(&d, ip + len, 4);
            len += 4;
            a += (uint64_t)(int64_t)d;
        } else {
            a += regs[base | (bbit << 3)];
        }
    } else if (mod == 0 && rm == 5) {
        rip_rel = 1;
    } else {
        a += regs[rm | (bbit << 3)];
    }
    if (mod == 1) {
        a += (uint64_t)(int64_t)(int8_t)ip[len];
        len += 1;
    } else if (mod == 2 || rip_rel) {
        int32_t d;
        memcpy(&d, ip + len, 4);
        len += 4;
        a += (uint64_t)(int64_t)d;
    }
    if (rip_rel) a += (uint64_t)(uintptr_t)ip + (uint64_t)len;
    *addr = a;
    return len;
}

/* Encodings from GNU as, decoded against made-up registers. */
static void test_decoder(void)
{
    uint64_t r[16];
    for (int i = 0; i < 16; i++) r[i] = 0x100000u * (uint64_t)(i + 1);
    uint64_t a = 0;
    static const uint8_t rsp0[] = {0xc4, 0xe2, 0x78, 0x49, 0x04, 0x24};
    CHECK_EQ_INT(decode_ldtilecfg(rsp0, r, &a), 6);
    CHECK(a == r[4]);
    static const uint8_t rsp40[] = {0xc4, 0xe2, 0x78, 0x49, 0x44, 0x24, 0x40};
    CHECK_EQ_INT(decode_ldtilecfg(rsp40, r, &a), 7);
    CHECK(a == r[4] + 0x40);
    static const uint8_t rbpm40[] = {0xc4, 0xe2, 0x78, 0x49, 0x45, 0xc0};
    CHECK_EQ_INT(decode_ldtilecfg(rbpm40, r, &a), 6);
    CHECK(a == r[5] - 0x40);
    static const uint8_t rax[] = {0xc4, 0xe2, 0x78, 0x49, 0x00};
    CHECK_EQ_INT(decode_ldtilecfg(rax, r, &a), 5);
    CHECK(a == r[0]);
    static const uint8_t r12_10[] = {0xc4, 0xc2, 0x78, 0x49, 0x44, 0x24, 0x10};
    CHECK_EQ_INT(decode_ldtilecfg(r12_10, r, &a), 7);
    CHECK(a == r[12] + 0x10);
    static const uint8_t sib[] = {0xc4, 0xa2, 0x78, 0x49, 0x84, 0x4c, 0x00, 0x10, 0x00, 0x00};
    CHECK_EQ_INT(decode_ldtilecfg(sib, r, &a), 10);
    CHECK(a == r[4] + r[9] * 2 + 0x1000);
    static const uint8_t rip[] = {0xc4, 0xe2, 0x78, 0x49, 0x05, 0x06, 0x00, 0x00, 0x00};
    CHECK_EQ_INT(decode_ldtilecfg(rip, r, &a), 9);
    CHECK(a == (uint64_t)(uintptr_t)rip + 9 + 6);
    static const uint8_t st[] = {0xc4, 0xe2, 0x79, 0x49, 0x04, 0x24}; /* sttilecfg */
    CHECK_EQ_INT(decode_ldtilecfg(st, r, &a), 0);
}

/* ---- catching the configuration ----------------------------------------- */

static sigjmp_buf g_jmp;
static sb_amx_tilecfg g_seen;
static volatile sig_atomic_t g_how; /* 0 none, 1 decoded, 2 sttilecfg, -1 undecodable */
static int g_has_tilecfg;           /* the OS enabled XTILECFG: the frame holds it */

/* The tile configuration at the fault, from the XSAVE image the kernel saved
 * in the signal frame (the handler itself starts with the state reset, so
 * sttilecfg here would read palette 0). Standard format: component 17
 * (XTILECFG) at the offset CPUID.(EAX=0DH,ECX=17).EBX gives; its bit in
 * XSTATE_BV clear means the component is in its initial state (all zero). */
static int frame_tilecfg(const ucontext_t *uc, sb_amx_tilecfg *out)
{
    const uint8_t *fx = (const uint8_t *)uc->uc_mcontext.fpregs;
    if (!fx) return 0;
    uint32_t magic1, xsize;
    memcpy(&magic1, fx + 464, 4); /* sw_reserved: FP_XSTATE_MAGIC1, extended size */
    memcpy(&xsize, fx + 464 + 8, 4);
    if (magic1 != 0x46505853u) return 0;
    unsigned eax, ebx, ecx, edx;
    __cpuid_count(0xd, 17, eax, ebx, ecx, edx);
    if (eax < 64 || ebx + 64 > xsize) return 0;
    uint64_t bv;
    memcpy(&bv, fx + 512, 8);
    if (bv & (1ull << 17))
        memcpy(out, fx + ebx, 64);
    else
        memset(out, 0, 64);
    return 1;
}

/* realigns its stack: emulators (qemu-user 7.2) enter handlers misaligned, and
 * the register copy below is vectorised */
__attribute__((force_align_arg_pointer)) static void on_sigill(int sig, siginfo_t *si, void *uc_)
{
    (void)sig;
    (void)si;
    ucontext_t *uc = uc_;
    const greg_t *g = uc->uc_mcontext.gregs;
    uint64_t regs[16] = {
        (uint64_t)g[REG_RAX], (uint64_t)g[REG_RCX], (uint64_t)g[REG_RDX], (uint64_t)g[REG_RBX],
        (uint64_t)g[REG_RSP], (uint64_t)g[REG_RBP], (uint64_t)g[REG_RSI], (uint64_t)g[REG_RDI],
        (uint64_t)g[REG_R8],  (uint64_t)g[REG_R9],  (uint64_t)g[REG_R10], (uint64_t)g[REG_R11],
        (uint64_t)g[REG_R12], (uint64_t)g[REG_R13], (uint64_t)g[REG_R14], (uint64_t)g[REG_R15]};
    const uint8_t *ip = (const uint8_t *)(uintptr_t)g[REG_RIP];
    uint64_t a;
    if (decode_ldtilecfg(ip, regs, &a)) {
        memcpy(&g_seen, (const void *)(uintptr_t)a, sizeof g_seen);
        g_how = 1;
    } else if (g_has_tilecfg && frame_tilecfg(uc, &g_seen)) {
        g_how = 2;
    } else {
        g_how = -1;
    }
    siglongjmp(g_jmp, 1);
}

static int cfg_is_16x64(const sb_amx_tilecfg *c, char *why, size_t n)
{
    if (c->palette != 1) return snprintf(why, n, "palette %u, want 1", c->palette), 0;
    for (int t = 0; t < 8; t++)
        if (c->rows[t] != 16 || c->colsb[t] != 64)
            return snprintf(why, n, "tile %d is %u rows x %u bytes, want 16 x 64", t, c->rows[t],
                            c->colsb[t]),
                   0;
    return 1;
}

typedef struct {
    const char *name;
    int (*begin)(sb_err *e);
    int (*end)(sb_err *e);
    double (*peak)(long iters);
} amx_user;

/* Runs one user's configuration under the SIGILL catcher (the child side).
 * Exit 0: checked and right; 1: wrong (message printed); 3: no fault to read. */
static int catch_one(const amx_user *u)
{
    /* the handler runs on its own stack: the faulting frame's red zone and
     * the configuration in it stay as they were */
    static _Alignas(64) char altstack[1 << 16];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigill;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGILL, &sa, NULL);
    g_how = 0;
    if (sigsetjmp(g_jmp, 1) == 0) {
        sb_err e = {0};
        if (u->begin) {
            u->begin(&e);
            if (u->end) u->end(&e);
        } else {
            u->peak(1);
        }
        /* configuring and releasing touch no tile data: no fault without
         * the permission on an AMX CPU; checked on the tiles instead */
        printf("%s: no fault without the permission (no tile data touched)\n", u->name);
        fflush(stdout);
        return 3;
    }
    if (g_how < 0) {
        fprintf(stderr, "%s: SIGILL at an instruction that is not ldtilecfg\n", u->name);
        fflush(stderr);
        return 1;
    }
    char why[128];
    if (!cfg_is_16x64(&g_seen, why, sizeof why)) {
        fprintf(stderr, "%s: %s loads a wrong tile configuration: %s\n", u->name,
                g_how == 1 ? "the faulting ldtilecfg" : "ldtilecfg (read from the signal frame)",
                why);
        return 1;
    }
    printf("%s: configuration right (%s)\n", u->name,
           g_how == 1 ? "operand of the faulting ldtilecfg"
                      : "signal frame at the first tile fault");
    fflush(stdout);
    return 0;
}

/* With the permission: run it, read it back. */
static void check_on_tiles(const amx_user *u)
{
    sb_amx_tilecfg c;
    char why[128];
    if (u->begin) {
        sb_err e = {0};
        CHECK_EQ_INT(u->begin(&e), SB_OK);
        sb_amx_sttilecfg(&c);
        CHECK_EQ_INT(u->end(&e), SB_OK);
        CHECKF(cfg_is_16x64(&c, why, sizeof why), "%s: tiles hold a wrong configuration: %s",
               u->name, why);
        if (cfg_is_16x64(&c, why, sizeof why))
            printf("%s: configuration right (sttilecfg on the tiles)\n", u->name);
    } else {
        /* the loop configures, runs and releases: a wrong configuration
         * faults at its first tile instruction and kills this test */
        u->peak(1000);
        printf("%s: ran on the tiles\n", u->name);
    }
    sb_amx_sttilecfg(&c);
    CHECKF(c.palette == 0, "%s: tiles still configured after the end (palette %u)", u->name,
           c.palette);
}

int main(void)
{
    test_decoder();
    /* the hardware's view, not what SB_FORCE_NO_* leaves: a forced-off AMX
     * CPU still runs ldtilecfg, and its configuration is in the frame */
    const sb_cpu *cpu = sb_cpu_hw();
    g_has_tilecfg = cpu->amx_tile && cpu->xcr0_amx;
    const amx_user users[] = {
        {"amx-bf16 thread_begin", sb_ukr_amx_bf16.thread_begin, sb_ukr_amx_bf16.thread_end, NULL},
        {"amx-int8 thread_begin", sb_ukr_amx_int8.thread_begin, sb_ukr_amx_int8.thread_end, NULL},
        {"peak amx_bf16", NULL, NULL, sb_peak_loop_amx_bf16},
        {"peak amx_int8", NULL, NULL, sb_peak_loop_amx_int8},
    };
    const int nu = (int)(sizeof users / sizeof users[0]);
    /* Without the permission first: children of a process that asked for it
     * would inherit it. On a CPU with AMX the child's first tile instruction
     * faults too (the kernel arms XFD until a process asks). */
    int caught = 0;
    for (int i = 0; i < nu; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) _exit(catch_one(&users[i]));
        int st = 0;
        waitpid(pid, &st, 0);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 3) continue;
        CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: checking without permission: %s %d",
               users[i].name, WIFEXITED(st) ? "exit" : "signal",
               WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        caught++;
    }
    int on_tiles = 0;
    if (sb_amx_request()->permitted) {
        for (int i = 0; i < nu; i++) check_on_tiles(&users[i]);
        on_tiles = 1;
    } else {
        printf("no AMX here (%s): checked through the fault only\n", sb_amx_request()->why);
    }
    CHECKF(caught + on_tiles > 0, "nothing checked: no fault caught and no AMX permission");
    printf("%d checks, %d failed\n", g_test_checks, g_test_failures);
    return g_test_failures ? 1 : 0;
}
