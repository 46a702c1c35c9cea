/* Every candidate fit reports has the footprint `check` gives the same
 * concrete kernel: for each kernel kind under tests/golden (matmul,
 * elementwise, reduction, attention, and a padded one) on three
 * generations, every default assignment is written back into the spec's
 * "params" (with jansson, as a user would edit it), read again, and its
 * planner footprint compared with the template's. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static const char *dir;

static char *slurp(const char *name, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return test_read_file(path, len);
}

/* One fixture on one target; returns the assignments checked. */
static int check_fixture(const char *name, const char *target, bool padded) {
  size_t len = 0;
  char *text = slurp(name, &len);
  if (!text)
    fail_msg("%s/%s: cannot read", dir, name);
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_spec(text, len, NULL, &err);
  if (!k)
    fail_msg("%s: %s", name, err.message);
  const vmem_target *t = vmem_target_find(target, strlen(target));
  vmem_template *tpl = vmem_template_new(k, t, NULL, NULL, NULL, &err);
  assert_non_null(tpl);
  size_t np = vmem_template_param_count(tpl), cnt[4];
  assert_true(np >= 1 && np <= 4);
  static int64_t vals[4][4096];
  uint64_t total = 1;
  for (size_t p = 0; p < np; p++) {
    cnt[p] = padded ? vmem_template_padded_values(tpl, p, vals[p], 4096)
                    : vmem_template_default_values(tpl, p, vals[p], 4096);
    assert_true(cnt[p] > 0 && cnt[p] <= 4096);
    total *= cnt[p];
  }
  json_t *root = json_loadb(text, len, 0, NULL);
  assert_non_null(root);
  json_t *params = json_object_get(root, "params");
  int checked = 0;
  uint64_t stride = total / 400 + 1; /* at most ~400 per case: the planner allocates */
  for (uint64_t idx = 0; idx < total; idx += stride) {
    int64_t v[4];
    uint64_t x = idx;
    for (size_t p = np; p-- > 0;) {
      v[p] = vals[p][x % cnt[p]];
      x /= cnt[p];
      json_object_set_new(params, vmem_template_param_name(tpl, p), json_integer(v[p]));
    }
    vmem_eval e;
    vmem_template_eval(tpl, v, &e);
    if (!e.legal)
      continue;
    char *concrete = json_dumps(root, 0);
    vmem_kernel *c = vmem_kernel_from_spec(concrete, strlen(concrete), NULL, &err);
    if (!c)
      fail_msg("%s %s: %s", name, concrete, err.message);
    vmem_footprint f;
    assert_int_equal(vmem_kernel_footprint(c, t, NULL, &f, &err), VMEM_OK);
    if (f.scoped_bytes != e.scoped_bytes || f.scoped_bytes + f.modelled_bytes != e.needed_bytes)
      fail_msg("%s on %s, %s: check %llu, fit %llu", name, target, concrete, (unsigned long long)f.scoped_bytes,
               (unsigned long long)e.scoped_bytes);
    vmem_footprint_free(&f);
    vmem_kernel_free(c);
    free(concrete);
    checked++;
  }
  json_decref(root);
  vmem_template_free(tpl);
  vmem_kernel_free(k);
  free(text);
  return checked;
}

static void test_kinds_on_three_generations(void **state) {
  (void)state;
  static const char *const kinds[] = {"fit_matmul.json", "fit_elementwise.json", "fit_reduction.json",
                                      "fit_attention.json", "fit_padding.json"};
  static const char *const targets[] = {"v5e", "v6e", "7x"};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    for (size_t g = 0; g < 3; g++) {
      int n = check_fixture(kinds[i], targets[g], i == 4);
      if (n < 20)
        fail_msg("%s on %s: only %d candidates checked", kinds[i], targets[g], n);
    }
}

int main(int argc, char **argv) {
  dir = argc > 1 ? argv[1] : "tests/golden";
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kinds_on_three_generations),
  };
  return RUN(tests);
}
