/* vmem_heap_pack against XLA's heap simulator golden vectors
 * (heap_simulator_test.cc, as the reference records them), written as
 * event sequences: logical time advances by one per Alloc or Free, and a
 * buffer lives from its Alloc to its Free inclusive. Then properties on
 * random buffers: no two buffers that overlap in time overlap in space,
 * offsets are aligned, and the heap is at least the lower bound. */
#include "test.h"
#include "heap_reference.h"
#include "../src/program/heap.h"

/* Builds buffers from "a10 b30 -a ..." : a letter and size allocates,
 * '-' and a letter frees; the letters index the buffers. */
static size_t events(const char *script, vmem_heap_buffer *b) {
  size_t n = 0;
  int64_t t = 0;
  for (const char *p = script; *p; p++) {
    if (*p == ' ')
      continue;
    if (*p == '-') {
      b[p[1] - 'a'].end = t++;
      p++;
      continue;
    }
    size_t i = (size_t)(*p - 'a');
    b[i].start = t++;
    b[i].size = 0;
    while (p[1] >= '0' && p[1] <= '9')
      b[i].size = b[i].size * 10 + (uint64_t)(*++p - '0');
    n = i + 1 > n ? i + 1 : n;
  }
  return n;
}

static void expect(const char *script, uint64_t align, uint64_t heap, const uint64_t *offsets) {
  vmem_heap_buffer b[8];
  memset(b, 0, sizeof b);
  size_t n = events(script, b);
  vmem_heap_result r;
  vmem_error err;
  if (vmem_heap_pack(b, n, align, &r, NULL, &err) != VMEM_OK)
    fail_msg("%s: %s", script, err.message);
  assert_int_equal(r.heap_bytes, heap);
  for (size_t i = 0; i < n; i++)
    if (b[i].offset != offsets[i])
      fail_msg("%s: buffer %c at %llu, want %llu", script, (char)('a' + i), (unsigned long long)b[i].offset,
               (unsigned long long)offsets[i]);
}

static void test_golden(void **state) {
  (void)state;
  /* DecreasingSize, alignment 1: d=0, b=40, c=70, a=90; heap 100. */
  expect("a10 b30 c20 d40 -a -b -c -d", 1, 100, (uint64_t[]){90, 40, 70, 0});
  /* DecreasingSizeWithAlignment, alignment 20: c=0, a=60, d=60, b=100; heap 120. */
  expect("a10 b20 c50 -a d40 -b -c -d", 20, 120, (uint64_t[]){60, 100, 0, 60});
  /* BestFit: e=0, c=50, a=90, d=90, b=120; heap 140. */
  expect("a10 b20 c40 -a d30 e50 -b -c -d -e", 1, 140, (uint64_t[]){90, 120, 50, 90, 0});
}

static void test_lower_bound(void **state) {
  (void)state;
  vmem_heap_buffer b[8];
  memset(b, 0, sizeof b);
  size_t n = events("a10 b30 c20 d40 -a -b -c -d", b);
  vmem_heap_result r;
  vmem_error err;
  assert_int_equal(vmem_heap_pack(b, n, 1, &r, NULL, &err), VMEM_OK);
  assert_int_equal(r.lower_bound_bytes, 100); /* all four live at time 3 */
  assert_int_equal(r.peak_time, 3);
  memset(b, 0, sizeof b);
  n = events("a10 -a b30 -b", b); /* disjoint: the larger alone */
  assert_int_equal(vmem_heap_pack(b, n, 1, &r, NULL, &err), VMEM_OK);
  assert_int_equal(r.lower_bound_bytes, 30);
  assert_int_equal(r.heap_bytes, 30);
  assert_int_equal(b[0].offset, 0);
  /* Times far apart: the peak is found without a dense timeline. */
  vmem_heap_buffer far[3] = {{10, 0, 5, 0, 0}, {30, 4, 1000000000000, 0, 0}, {20, 999999999999, 1000000000001, 0, 0}};
  assert_int_equal(vmem_heap_pack(far, 3, 1, &r, NULL, &err), VMEM_OK);
  assert_int_equal(r.lower_bound_bytes, 50); /* b with c, from 999999999999 */
  assert_int_equal(r.peak_time, 999999999999);
}

static void test_random(void **state) {
  (void)state;
  srand(7);
  for (int round = 0; round < 400; round++) {
    bool best = round >= 200; /* the second half: the better of both orders */
    vmem_heap_buffer b[40];
    size_t n = 1 + (size_t)(rand() % 40);
    for (size_t i = 0; i < n; i++) {
      b[i].start = rand() % 50;
      b[i].end = b[i].start + rand() % 20;
      b[i].size = 1 + (uint64_t)(rand() % 1000);
      b[i].floor = 0;
    }
    uint64_t align = 1 + (uint64_t)(rand() % 24);
    vmem_heap_result r;
    vmem_error err;
    vmem_heap_result spatial;
    assert_int_equal(vmem_heap_pack(b, n, align, &spatial, NULL, &err), VMEM_OK);
    assert_int_equal((best ? vmem_heap_pack_best : vmem_heap_pack)(b, n, align, &r, NULL, &err), VMEM_OK);
    assert_true(r.heap_bytes >= r.lower_bound_bytes);
    assert_true(r.heap_bytes <= spatial.heap_bytes);
    for (size_t i = 0; i < n; i++) {
      assert_int_equal(b[i].offset % align, 0);
      assert_true(b[i].offset + b[i].size <= r.heap_bytes);
      for (size_t j = i + 1; j < n; j++) {
        bool in_time = b[i].start <= b[j].end && b[j].start <= b[i].end;
        bool in_space = b[i].offset < b[j].offset + b[j].size && b[j].offset < b[i].offset + b[i].size;
        assert_false(in_time && in_space);
      }
    }
  }
}

/* vmem_heap_pack's time index must give exactly the offsets of placement
 * by definition (heap_reference.h). */
/* Random mixes of short and long lives (one bucket, a few, many), floors
 * and alignments that are and are not powers of two. */
static void test_same_as_reference(void **state) {
  (void)state;
  srand(11);
  for (int round = 0; round < 300; round++) {
    vmem_heap_buffer b[200], r[200];
    size_t n = 1 + (size_t)(rand() % 200);
    for (size_t i = 0; i < n; i++) {
      int64_t life = rand() % 10 < 8 ? rand() % 6 : rand() % 300;
      b[i].start = rand() % 400;
      b[i].end = b[i].start + life;
      b[i].size = 1 + (uint64_t)(rand() % 5000);
      b[i].floor = rand() % 8 == 0 ? (uint64_t)(rand() % 3000) : 0;
      b[i].offset = 0;
    }
    memcpy(r, b, n * sizeof *b);
    uint64_t align = round % 2 ? 512 : 1 + (uint64_t)(rand() % 40);
    vmem_heap_result res;
    vmem_error err;
    assert_int_equal(vmem_heap_pack(b, n, align, &res, NULL, &err), VMEM_OK);
    heap_reference_pack(r, n, align);
    for (size_t i = 0; i < n; i++)
      assert_int_equal(b[i].offset, r[i].offset);
  }
}

/* vmem_heap_pack_best, which stops the spatial packing once it has lost,
 * must choose and place exactly as packing both orders to the end does
 * (heap_reference_best): mixes where either order wins, ties, empty
 * buffers, floors. */
static void test_best_same_as_reference(void **state) {
  (void)state;
  srand(13);
  int temporal_won = 0, spatial_won = 0;
  for (int round = 0; round < 400; round++) {
    vmem_heap_buffer b[120], r[120];
    size_t n = 1 + (size_t)(rand() % 120);
    for (size_t i = 0; i < n; i++) {
      int64_t life = rand() % 10 < 7 ? rand() % 5 : rand() % 200;
      b[i].start = rand() % 300;
      b[i].end = b[i].start + life;
      b[i].size = rand() % 16 == 0 ? 0 : 1 + (uint64_t)(rand() % (round % 3 ? 4000 : 40));
      b[i].floor = rand() % 10 == 0 ? (uint64_t)(rand() % 2000) : 0;
      b[i].offset = 0;
    }
    memcpy(r, b, n * sizeof *b);
    uint64_t align = round % 2 ? 512 : 1 + (uint64_t)(rand() % 30);
    vmem_heap_result res, spatial;
    vmem_error err;
    assert_int_equal(vmem_heap_pack_best(b, n, align, &res, NULL, &err), VMEM_OK);
    heap_reference_best(r, n, align);
    for (size_t i = 0; i < n; i++)
      assert_int_equal(b[i].offset, r[i].offset);
    assert_int_equal(res.heap_bytes, heap_reference_top(r, n));
    memcpy(r, b, n * sizeof *b);
    assert_int_equal(vmem_heap_pack(r, n, align, &spatial, NULL, &err), VMEM_OK);
    temporal_won += res.heap_bytes < spatial.heap_bytes;
    spatial_won += res.heap_bytes == spatial.heap_bytes;
  }
  assert_true(temporal_won > 10 && spatial_won > 10); /* both branches taken */
}

/* Two halves of time on two threads must place exactly as one pass does:
 * both orders, lives across the cut of every length, floors, empty
 * buffers, alignments that are and are not powers of two. */
static void test_halves_same_as_one_pass(void **state) {
  (void)state;
  srand(17);
  for (int round = 0; round < 200; round++) {
    enum { N = 600 };
    static vmem_heap_buffer b[N], r[N];
    size_t n = 50 + (size_t)(rand() % (N - 50));
    for (size_t i = 0; i < n; i++) {
      int64_t life = rand() % 10 < 8 ? rand() % 6 : rand() % (round % 4 ? 100 : 1000);
      b[i].start = rand() % 500;
      b[i].end = b[i].start + life;
      b[i].size = rand() % 20 == 0 ? 0 : 1 + (uint64_t)(rand() % 5000);
      b[i].floor = rand() % 10 == 0 ? (uint64_t)(rand() % 3000) : 0;
      b[i].offset = 0;
    }
    memcpy(r, b, n * sizeof *b);
    uint64_t align = round % 2 ? 512 : 1 + (uint64_t)(rand() % 40);
    bool temporal = round % 3 == 0;
    vmem_heap_result one, two;
    vmem_error err;
    assert_int_equal(heap_pack_threads(r, n, align, &one, temporal, 1, &err), VMEM_OK);
    assert_int_equal(heap_pack_threads(b, n, align, &two, temporal, 2, &err), VMEM_OK);
    for (size_t i = 0; i < n; i++)
      assert_int_equal(b[i].offset, r[i].offset);
    assert_int_equal(two.heap_bytes, one.heap_bytes);
    assert_int_equal(two.lower_bound_bytes, one.lower_bound_bytes);
  }
}

/* An offset past 2^64 names one buffer: the halves, which stop as soon as
 * either side meets one, must name the one one pass names — the first in
 * the order, here the later half's larger pair, whichever side gets there
 * first on the two threads. */
static void test_halves_name_the_overflow_one_pass_names(void **state) {
  (void)state;
  enum { N = 400 };
  static vmem_heap_buffer b[N];
  for (int round = 0; round < 50; round++) {
    for (size_t i = 0; i < N; i++) /* short lives over 0..99: a cut near 50 */
      b[i] = (vmem_heap_buffer){.size = 64, .start = (int64_t)(i % 100), .end = (int64_t)(i % 100)};
    uint64_t half = (uint64_t)1 << 63;
    b[10] = (vmem_heap_buffer){.size = half + 1, .start = 0, .end = 10}; /* before the cut: the second overflows */
    b[11] = (vmem_heap_buffer){.size = half + 1, .start = 0, .end = 10};
    b[300] = (vmem_heap_buffer){.size = half + 2, .start = 90, .end = 99}; /* after it, larger: first in the order */
    b[301] = (vmem_heap_buffer){.size = half + 2, .start = 90, .end = 99};
    vmem_heap_result one, two;
    vmem_error e1, e2;
    assert_int_equal(heap_pack_threads(b, N, 1, &one, false, 1, &e1), VMEM_ERR_OVERFLOW);
    assert_int_equal(heap_pack_threads(b, N, 1, &two, false, 2, &e2), VMEM_ERR_OVERFLOW);
    assert_true(e1.offset == 300 || e1.offset == 301);
    assert_int_equal(e2.offset, e1.offset);
    assert_string_equal(e2.message, e1.message);
  }
}

/* A floor keeps a buffer above it; the others may still use the space. */
static void test_floor(void **state) {
  (void)state;
  vmem_heap_buffer b[2] = {{10, 0, 2, 0, 100}, {10, 5, 6, 0, 0}};
  vmem_heap_result r;
  vmem_error err;
  assert_int_equal(vmem_heap_pack(b, 2, 1, &r, NULL, &err), VMEM_OK);
  assert_int_equal(b[0].offset, 100);
  assert_int_equal(b[1].offset, 0);
  assert_int_equal(r.heap_bytes, 110);
}

static void test_bad_input(void **state) {
  (void)state;
  vmem_heap_buffer b = {10, 5, 4, 0, 0};
  vmem_heap_result r;
  vmem_error err;
  assert_int_equal(vmem_heap_pack(&b, 1, 8, &r, NULL, &err), VMEM_ERR_RANGE);
  b.end = 6;
  assert_int_equal(vmem_heap_pack(&b, 1, 0, &r, NULL, &err), VMEM_ERR_ARGUMENT);
  assert_int_equal(vmem_heap_pack(NULL, 0, 8, &r, NULL, &err), VMEM_OK);
  assert_int_equal(r.heap_bytes, 0);
  vmem_heap_buffer huge[2] = {{UINT64_MAX - 4, 0, 1, 0, 0}, {UINT64_MAX - 4, 0, 1, 0, 0}};
  assert_int_equal(vmem_heap_pack(huge, 2, 1, &r, NULL, &err), VMEM_ERR_OVERFLOW);
}

/* HloLiveRange's Multiply vector (hlo_live_range_test.cc, as the reference
 * records it): schedule {paramA, paramX, mul} gives paramA [0,3],
 * paramX [0,3], mul [2,3]. With every value in S(1), the three are live
 * together at step 2. */
static void test_live_ranges(void **state) {
  (void)state;
  const char *text = "HloModule m, is_scheduled=true\n"
                     "ENTRY %e (a: f32[8,128], x: f32[8,128]) -> f32[8,128] {\n"
                     "  %paramA = f32[8,128]{1,0:T(8,128)S(1)} parameter(0)\n"
                     "  %paramX = f32[8,128]{1,0:T(8,128)S(1)} parameter(1)\n"
                     "  ROOT %mul = f32[8,128]{1,0:T(8,128)S(1)} multiply(%paramA, %paramX)\n"
                     "}\n";
  vmem_error err;
  vmem_hlo_module *m = vmem_hlo_parse(text, strlen(text), NULL, &err);
  assert_non_null(m);
  vmem_program p;
  assert_int_equal(vmem_hlo_program_vmem(m, vmem_target_find("v5e", 3), NULL, &p, NULL, &err), VMEM_OK);
  assert_int_equal(vmem_program_check(&p, 0, &err), VMEM_OK);
  assert_int_equal(p.count, 3);
  assert_int_equal(p.schedule_length, 3);
  static const int64_t want[3][2] = {{0, 3}, {0, 3}, {2, 3}};
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(p.buffers[i].start, want[i][0]);
    assert_int_equal(p.buffers[i].end, want[i][1]);
  }
  assert_int_equal(p.lower_bound_bytes, 3 * 4096);
  assert_int_equal(p.peak_bytes, 3 * 4096);
  assert_int_equal(p.used_bytes, 3 * 4096); /* no reservations asked for */
  vmem_program_free(&p);
  /* With a 1 MiB scoped limit: only the multiply executes code, so its
   * step reserves 1 MiB at offset 0 and the three values sit above it. */
  vmem_program_options o = {0, 1 << 20, false, NULL};
  assert_int_equal(vmem_hlo_program_vmem(m, vmem_target_find("v5e", 3), &o, &p, NULL, &err), VMEM_OK);
  assert_int_equal(vmem_program_check(&p, o.alignment, &err), VMEM_OK);
  assert_int_equal(p.scoped_reservation_bytes, 1 << 20);
  assert_int_equal(p.used_bytes, (1 << 20) + 3 * 4096);
  assert_int_equal(p.nreservations, 1); /* the multiply's step alone */
  assert_int_equal(p.reservations[0].start, 2);
  assert_int_equal(p.reservations[0].end, 2);
  assert_int_equal(p.reservations[0].bytes, 1 << 20);
  assert_ptr_equal(p.reservations[0].instruction, p.largest_reservation);
  assert_int_equal(p.peak_bytes, 3 * 4096);
  for (size_t i = 0; i < 3; i++)
    assert_true(p.buffers[i].offset >= (1 << 20));
  const vmem_hlo_instruction *mul = p.largest_reservation;
  vmem_program_free(&p);
  /* Configs the caller decoded, by instruction id: the planner reads them,
   * not the text (the multiply's used figure is changed in the array). */
  size_t total = vmem_hlo_instruction_total(m), seen = 0;
  vmem_hlo_scoped sc[16];
  assert_true(total <= 16);
  for (size_t c = 0; c < vmem_hlo_computation_count(m); c++) {
    const vmem_hlo_computation *comp = vmem_hlo_computation_at(m, c);
    for (size_t i = 0; i < vmem_hlo_computation_instruction_count(comp); i++, seen++) {
      const vmem_hlo_instruction *in = vmem_hlo_computation_instruction_at(comp, i);
      assert_int_equal(vmem_hlo_instruction_id(in), seen); /* computations, then instructions, in text order */
      assert_int_equal(vmem_hlo_instruction_scoped(in, &sc[seen], &err), VMEM_OK);
    }
  }
  assert_int_equal(seen, total);
  sc[vmem_hlo_instruction_id(mul)].used_bytes = 2 << 20;
  o.scoped = sc;
  assert_int_equal(vmem_hlo_program_vmem(m, vmem_target_find("v5e", 3), &o, &p, NULL, &err), VMEM_OK);
  assert_int_equal(vmem_program_check(&p, o.alignment, &err), VMEM_OK);
  assert_int_equal(p.scoped_reservation_bytes, 2 << 20);
  vmem_program_free(&p);
  vmem_hlo_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_golden),
                                     cmocka_unit_test(test_lower_bound),
                                     cmocka_unit_test(test_random),
                                     cmocka_unit_test(test_same_as_reference),
                                     cmocka_unit_test(test_bad_input),
                                     cmocka_unit_test(test_live_ranges),
                                     cmocka_unit_test(test_floor),
                                     cmocka_unit_test(test_best_same_as_reference),
                                     cmocka_unit_test(test_halves_same_as_one_pass),
                                     cmocka_unit_test(test_halves_name_the_overflow_one_pass_names)};
  return RUN(tests);
}
