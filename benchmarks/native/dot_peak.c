/* Benchmark helper (not a test): the measured peaks of the x86 instructions
 * that mixed-precision and int8 GEMM kernels are built on, the physical limits
 * that benchmarks/native/bench_mixed.py divides GEMM rates by.
 *
 * Kernels (each only when built with its -D switch, which bench_mixed.py sets
 * from /proc/cpuinfo; the instructions are inline asm, so only -mavx512f, for
 * the zmm16..31 clobbers, is needed from the compiler, and the assembler
 * decides what can be built):
 *   f32_zmm   vfmadd231ps zmm  (always with -DPEAK_AVX512F)  2 flop per lane, 32 per instruction
 *   bf16_zmm  vdpbf16ps zmm    (-DPEAK_BF16)   2 bf16 pairs per f32 lane, 64 flop per instruction
 *   i8_zmm    vpdpbusd zmm     (-DPEAK_VNNI)   4 u8*s8 pairs per i32 lane, 128 op per instruction
 *   f16_zmm   vfmadd231ph zmm  (-DPEAK_FP16)   AVX512-FP16, 32 lanes, 64 flop per instruction
 *   amx_bf16  tdpbf16ps        (-DPEAK_AMX)    16x16 f32 tile += 16x32 bf16 x 32x16: 16384 flop
 *   amx_i8    tdpbusd          (-DPEAK_AMX)    16x16 i32 tile += 16x64 u8 x 64x16: 32768 op
 * Vector kernels run 24 independent zmm chains (more than latency x ports on
 * any current x86 core); AMX runs 4 independent accumulator tiles.  All
 * registers hold zeros, so no denormal or overflow can slow a lane.
 *
 * AMX needs the kernel's permission (arch_prctl ARCH_REQ_XCOMP_PERM for
 * XTILEDATA); where it is refused the amx entries say why instead of a rate.
 * Other competitors' libraries (oneDNN in torch, MKL, onnxruntime's MLAS) use
 * AMX when a CPU has it, which is why its peak is measured here: a rate above
 * the vdpbf16ps / vpdpbusd peak can only come from AMX.
 *
 * Build (bench_mixed.py does this at run time):
 *   gcc -O2 -pthread -mavx512f -DPEAK_AVX512F -DPEAK_BF16 -DPEAK_VNNI ... dot_peak.c -o dot_peak
 * Run:  ./dot_peak THREADS SECONDS REPS
 * Prints one JSON object, like fma_peak.c: G(FL)OP/s per kernel (median, max
 * and min over REPS runs of SECONDS each), summed over THREADS threads.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef PEAK_AVX512F
#define ZOP(op, i) op " %%zmm31, %%zmm30, %%zmm" #i "\n\t"
#define Z24(op) ZOP(op, 0) ZOP(op, 1) ZOP(op, 2) ZOP(op, 3) ZOP(op, 4) ZOP(op, 5) \
                ZOP(op, 6) ZOP(op, 7) ZOP(op, 8) ZOP(op, 9) ZOP(op, 10) ZOP(op, 11) \
                ZOP(op, 12) ZOP(op, 13) ZOP(op, 14) ZOP(op, 15) ZOP(op, 16) ZOP(op, 17) \
                ZOP(op, 18) ZOP(op, 19) ZOP(op, 20) ZOP(op, 21) ZOP(op, 22) ZOP(op, 23)
#define ZINIT                                                                 \
  "vpxord %%zmm30, %%zmm30, %%zmm30\n\tvpxord %%zmm31, %%zmm31, %%zmm31\n\t" \
  "vmovdqa64 %%zmm30, %%zmm0\n\tvmovdqa64 %%zmm30, %%zmm1\n\t"               \
  "vmovdqa64 %%zmm30, %%zmm2\n\tvmovdqa64 %%zmm30, %%zmm3\n\t"               \
  "vmovdqa64 %%zmm30, %%zmm4\n\tvmovdqa64 %%zmm30, %%zmm5\n\t"               \
  "vmovdqa64 %%zmm30, %%zmm6\n\tvmovdqa64 %%zmm30, %%zmm7\n\t"               \
  "vmovdqa64 %%zmm30, %%zmm8\n\tvmovdqa64 %%zmm30, %%zmm9\n\t"               \
  "vmovdqa64 %%zmm30, %%zmm10\n\tvmovdqa64 %%zmm30, %%zmm11\n\t"             \
  "vmovdqa64 %%zmm30, %%zmm12\n\tvmovdqa64 %%zmm30, %%zmm13\n\t"             \
  "vmovdqa64 %%zmm30, %%zmm14\n\tvmovdqa64 %%zmm30, %%zmm15\n\t"             \
  "vmovdqa64 %%zmm30, %%zmm16\n\tvmovdqa64 %%zmm30, %%zmm17\n\t"             \
  "vmovdqa64 %%zmm30, %%zmm18\n\tvmovdqa64 %%zmm30, %%zmm19\n\t"             \
  "vmovdqa64 %%zmm30, %%zmm20\n\tvmovdqa64 %%zmm30, %%zmm21\n\t"             \
  "vmovdqa64 %%zmm30, %%zmm22\n\tvmovdqa64 %%zmm30, %%zmm23\n\t"
#define ZCLOB "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",     \
              "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",        \
              "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21",      \
              "xmm22", "xmm23", "xmm30", "xmm31", "cc"
#define ZLOOP(name, op)                                                       \
  static void name(long n) {                                                  \
    __asm__ volatile(ZINIT "1:\n\t" Z24(op) "dec %0\n\tjnz 1b\n\tvzeroupper\n\t" \
                     : "+r"(n) : : ZCLOB);                                    \
  }
ZLOOP(zmm_ps, "vfmadd231ps")
#ifdef PEAK_BF16
ZLOOP(zmm_bf16, "vdpbf16ps")
#endif
#ifdef PEAK_VNNI
ZLOOP(zmm_i8, "vpdpbusd")
#endif
#ifdef PEAK_FP16
ZLOOP(zmm_ph, "vfmadd231ph")
#endif
#endif /* PEAK_AVX512F */

#ifdef PEAK_AMX
/* Palette 1, all eight tiles 16 rows x 64 bytes (the largest shape). */
static void amx_config(void) {
  unsigned char cfg[64];
  memset(cfg, 0, sizeof cfg);
  cfg[0] = 1;
  for (int t = 0; t < 8; ++t) {
    cfg[16 + 2 * t] = 64; /* colsb, little-endian uint16 */
    cfg[48 + t] = 16;     /* rows */
  }
  __asm__ volatile("ldtilecfg %0" : : "m"(cfg));
  __asm__ volatile(
      "tilezero %%tmm0\n\ttilezero %%tmm1\n\ttilezero %%tmm2\n\ttilezero %%tmm3\n\t"
      "tilezero %%tmm4\n\ttilezero %%tmm5\n\ttilezero %%tmm6\n\ttilezero %%tmm7\n\t" ::);
}
/* tmm0..3 accumulate; tmm4/5 play A, tmm6/7 play B. */
#define AMX4(op)                                                          \
  op " %%tmm6, %%tmm4, %%tmm0\n\t" op " %%tmm7, %%tmm4, %%tmm1\n\t"       \
  op " %%tmm6, %%tmm5, %%tmm2\n\t" op " %%tmm7, %%tmm5, %%tmm3\n\t"
static void amx_bf16(long n) {
  amx_config();
  __asm__ volatile("1:\n\t" AMX4("tdpbf16ps") "dec %0\n\tjnz 1b\n\t" : "+r"(n) : : "cc");
  __asm__ volatile("tilerelease" ::);
}
static void amx_i8(long n) {
  amx_config();
  __asm__ volatile("1:\n\t" AMX4("tdpbusd") "dec %0\n\tjnz 1b\n\t" : "+r"(n) : : "cc");
  __asm__ volatile("tilerelease" ::);
}
#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18
#endif

typedef struct {
  const char *name;
  void (*fn)(long);
  double flop_per_iter; /* per loop iteration */
  int amx;
} kernel_t;

static const kernel_t kernels[] = {
#ifdef PEAK_AVX512F
    {"f32_zmm", zmm_ps, 24 * 16 * 2, 0},
#ifdef PEAK_BF16
    {"bf16_zmm", zmm_bf16, 24 * 16 * 4, 0},
#endif
#ifdef PEAK_VNNI
    {"i8_zmm", zmm_i8, 24 * 16 * 8, 0},
#endif
#ifdef PEAK_FP16
    {"f16_zmm", zmm_ph, 24 * 32 * 2, 0},
#endif
#endif
#ifdef PEAK_AMX
    {"amx_bf16", amx_bf16, 4 * 16.0 * 16 * 32 * 2, 1},
    {"amx_i8", amx_i8, 4 * 16.0 * 16 * 64 * 2, 1},
#endif
    {NULL, NULL, 0, 0},
};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef struct {
  void (*fn)(long);
  long iters;
  pthread_barrier_t *start;
} job_t;

static void *worker(void *p) {
  job_t *j = p;
  pthread_barrier_wait(j->start);
  j->fn(j->iters);
  return NULL;
}

/* G(FL)OP/s of THREADS copies of fn running ITERS iterations at once. */
static double run(const kernel_t *k, int threads, long iters) {
  pthread_t tid[256];
  job_t job[256];
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, threads + 1);
  for (int t = 0; t < threads; ++t) {
    job[t] = (job_t){k->fn, iters, &start};
    pthread_create(&tid[t], NULL, worker, &job[t]);
  }
  pthread_barrier_wait(&start);
  double t0 = now();
  for (int t = 0; t < threads; ++t) pthread_join(tid[t], NULL);
  double dt = now() - t0;
  pthread_barrier_destroy(&start);
  return k->flop_per_iter * iters * threads / dt / 1e9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  double seconds = argc > 2 ? atof(argv[2]) : 0.2;
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  if (threads < 1 || threads > 256 || seconds <= 0 || reps < 1 || reps > 99) {
    fprintf(stderr, "usage: dot_peak THREADS(1..256) SECONDS REPS(1..99)\n");
    return 2;
  }
  int amx_ok = 0;
  const char *amx_why = "not built (-DPEAK_AMX: the CPU reports no amx_bf16/amx_int8)";
#ifdef PEAK_AMX
  /* Threads created afterwards inherit the permission. */
  if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0) {
    amx_ok = 1;
  } else {
    amx_why = "the kernel refused XTILEDATA (arch_prctl ARCH_REQ_XCOMP_PERM)";
  }
#endif
  printf("{\"threads\": %d, \"seconds\": %g, \"reps\": %d", threads, seconds, reps);
  if (!amx_ok) printf(", \"amx\": \"%s\"", amx_why);
  for (const kernel_t *k = kernels; k->name; ++k) {
    if (k->amx && !amx_ok) continue;
    /* Calibrate iterations on one thread, then warm up (clocks settle). */
    long iters = 100;
    for (;;) {
      double t0 = now();
      k->fn(iters);
      double dt = now() - t0;
      if (dt > 0.02) { iters = (long)(iters * seconds / dt) + 1; break; }
      iters *= 4;
    }
    run(k, threads, iters / 4 + 1);
    double r[99];
    for (int j = 0; j < reps; ++j) r[j] = run(k, threads, iters);
    qsort(r, reps, sizeof r[0], cmp);
    printf(", \"%s\": {\"median\": %.2f, \"max\": %.2f, \"min\": %.2f}", k->name,
           r[reps / 2], r[reps - 1], r[0]);
  }
  printf("}\n");
  return 0;
}
