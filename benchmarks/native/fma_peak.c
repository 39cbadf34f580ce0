/* Benchmark helper (not a test): the measured FMA peak of this CPU, the
 * physical limit that benchmarks/native/bench_gemm.py divides GEMM rates by.
 *
 * Each loop issues vfmadd231p{s,d} on independent accumulators only (12 ymm
 * or 24 zmm chains: more than latency x ports on any current x86 core, so the
 * FMA ports, not a dependency chain, set the rate). Inline asm, because a
 * compiler may merge or drop intrinsic chains whose results are unused.
 *
 * Build (bench_gemm.py does this at run time):
 *   gcc -O2 -mavx2 -mfma [-mavx512f] -pthread fma_peak.c -o fma_peak
 * Run:  ./fma_peak THREADS SECONDS REPS
 * Prints one JSON object: GFLOP/s per kernel (median and max over REPS
 * runs of SECONDS each), summed over THREADS threads running at once.
 * FLOP count: 2 per lane per FMA (ymm: 8 f32 / 4 f64 lanes; zmm: 16 / 8).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define Y(op, i) "vfmadd231" op " %%ymm15, %%ymm14, %%ymm" #i "\n\t"
#define Y12(op) Y(op, 0) Y(op, 1) Y(op, 2) Y(op, 3) Y(op, 4) Y(op, 5) \
                Y(op, 6) Y(op, 7) Y(op, 8) Y(op, 9) Y(op, 10) Y(op, 11)
#define Z(op, i) "vfmadd231" op " %%zmm31, %%zmm30, %%zmm" #i "\n\t"
#define Z24(op) Z(op, 0) Z(op, 1) Z(op, 2) Z(op, 3) Z(op, 4) Z(op, 5) \
                Z(op, 6) Z(op, 7) Z(op, 8) Z(op, 9) Z(op, 10) Z(op, 11) \
                Z(op, 12) Z(op, 13) Z(op, 14) Z(op, 15) Z(op, 16) Z(op, 17) \
                Z(op, 18) Z(op, 19) Z(op, 20) Z(op, 21) Z(op, 22) Z(op, 23)

#define YCLOB "ymm0", "ymm1", "ymm2", "ymm3", "ymm4", "ymm5", "ymm6", "ymm7", \
              "ymm8", "ymm9", "ymm10", "ymm11", "ymm14", "ymm15", "cc"

/* Zeroed registers: 0 * 0 + 0 keeps every value at zero, so no denormal or
 * overflow can slow a lane down. */
static void ymm_ps(long n) {
  __asm__ volatile(
      "vxorps %%ymm14, %%ymm14, %%ymm14\n\tvxorps %%ymm15, %%ymm15, %%ymm15\n\t"
      "vmovaps %%ymm14, %%ymm0\n\tvmovaps %%ymm14, %%ymm1\n\tvmovaps %%ymm14, %%ymm2\n\t"
      "vmovaps %%ymm14, %%ymm3\n\tvmovaps %%ymm14, %%ymm4\n\tvmovaps %%ymm14, %%ymm5\n\t"
      "vmovaps %%ymm14, %%ymm6\n\tvmovaps %%ymm14, %%ymm7\n\tvmovaps %%ymm14, %%ymm8\n\t"
      "vmovaps %%ymm14, %%ymm9\n\tvmovaps %%ymm14, %%ymm10\n\tvmovaps %%ymm14, %%ymm11\n\t"
      "1:\n\t" Y12("ps") "dec %0\n\tjnz 1b\n\tvzeroupper\n\t"
      : "+r"(n) : : YCLOB);
}
static void ymm_pd(long n) {
  __asm__ volatile(
      "vxorpd %%ymm14, %%ymm14, %%ymm14\n\tvxorpd %%ymm15, %%ymm15, %%ymm15\n\t"
      "vmovapd %%ymm14, %%ymm0\n\tvmovapd %%ymm14, %%ymm1\n\tvmovapd %%ymm14, %%ymm2\n\t"
      "vmovapd %%ymm14, %%ymm3\n\tvmovapd %%ymm14, %%ymm4\n\tvmovapd %%ymm14, %%ymm5\n\t"
      "vmovapd %%ymm14, %%ymm6\n\tvmovapd %%ymm14, %%ymm7\n\tvmovapd %%ymm14, %%ymm8\n\t"
      "vmovapd %%ymm14, %%ymm9\n\tvmovapd %%ymm14, %%ymm10\n\tvmovapd %%ymm14, %%ymm11\n\t"
      "1:\n\t" Y12("pd") "dec %0\n\tjnz 1b\n\tvzeroupper\n\t"
      : "+r"(n) : : YCLOB);
}

#ifdef __AVX512F__
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
static void zmm_ps(long n) {
  __asm__ volatile(ZINIT "1:\n\t" Z24("ps") "dec %0\n\tjnz 1b\n\tvzeroupper\n\t"
                   : "+r"(n) : : ZCLOB);
}
static void zmm_pd(long n) {
  __asm__ volatile(ZINIT "1:\n\t" Z24("pd") "dec %0\n\tjnz 1b\n\tvzeroupper\n\t"
                   : "+r"(n) : : ZCLOB);
}
#endif

typedef struct {
  const char *name;
  void (*fn)(long);
  double flop_per_iter; /* per loop iteration: chains x lanes x 2 */
} kernel_t;

static const kernel_t kernels[] = {
    {"f32_ymm", ymm_ps, 12 * 8 * 2},
    {"f64_ymm", ymm_pd, 12 * 4 * 2},
#ifdef __AVX512F__
    {"f32_zmm", zmm_ps, 24 * 16 * 2},
    {"f64_zmm", zmm_pd, 24 * 8 * 2},
#endif
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

/* GFLOP/s of THREADS copies of fn running ITERS iterations at once (the wall
 * time covers the slowest thread, so a descheduled thread lowers the rate). */
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
    fprintf(stderr, "usage: fma_peak THREADS(1..256) SECONDS REPS(1..99)\n");
    return 2;
  }
  printf("{\"threads\": %d, \"seconds\": %g, \"reps\": %d", threads, seconds, reps);
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i) {
    const kernel_t *k = &kernels[i];
    /* Calibrate iterations on one thread, then warm up (clocks settle). */
    long iters = 1000;
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
