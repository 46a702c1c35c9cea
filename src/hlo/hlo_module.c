/*
 * hlo_module.c — creating, mapping and freeing modules, and the public
 * accessors of the HLO IR.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hlo.h"

static vmem_hlo_module *module_new(const vmem_parse_options *opt) {
  arena a;
  arena_init(&a, opt ? opt->alloc : NULL);
  vmem_hlo_module *m = arena_calloc(&a, 1, sizeof *m);
  if (!m) {
    arena_destroy(&a);
    return NULL;
  }
  m->a = a;
  m->one_thread = opt && opt->threads == 1;
  return m;
}

static vmem_hlo_module *parse_or_free(vmem_hlo_module *m, vmem_error *err) {
  vmem_error local;
  err_clear(&local);
  if (hlo_parse_into(m, &local))
    return m;
  if (err)
    *err = local;
  vmem_hlo_free(m);
  return NULL;
}

/* The text parsed into a new module, cut for two threads as `cut` says. */
static vmem_hlo_module *parse_text(const char *text, size_t len, const vmem_parse_options *opt, size_t cut,
                                   vmem_error *err) {
  err_clear(err);
  if (!text && len) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "no text");
    return NULL;
  }
  vmem_hlo_module *m = module_new(opt);
  if (!m) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  m->text = text ? text : "";
  m->len = len;
  m->cut = cut;
  return parse_or_free(m, err);
}

vmem_hlo_module *vmem_hlo_parse_with(const char *text, size_t len, const vmem_parse_options *opt, vmem_error *err) {
  return parse_text(text, len, opt, HLO_CUT_AUTO, err);
}

vmem_hlo_module *vmem_hlo_parse(const char *text, size_t len, const vmem_allocator *alloc, vmem_error *err) {
  vmem_parse_options o = {alloc, 0};
  return parse_text(text, len, &o, HLO_CUT_AUTO, err);
}

vmem_hlo_module *hlo_parse_cut(const char *text, size_t len, size_t cut, vmem_error *err) {
  return parse_text(text, len, NULL, cut, err);
}

/* The file is mapped, not copied: names and attribute values are views
 * into the mapping, which lives as long as the module. */
vmem_hlo_module *vmem_hlo_open(const char *path, const vmem_allocator *alloc, vmem_error *err) {
  vmem_parse_options o = {alloc, 0};
  return vmem_hlo_open_with(path, &o, err);
}

vmem_hlo_module *vmem_hlo_open_with(const char *path, const vmem_parse_options *opt, vmem_error *err) {
  err_clear(err);
  if (!path) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "no path");
    return NULL;
  }
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "cannot open: %s", strerror(errno));
    return NULL;
  }
  struct stat st;
  bool stated = fstat(fd, &st) == 0;
  if (!stated || !S_ISREG(st.st_mode)) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "cannot open: %s",
            !stated               ? strerror(errno)
            : S_ISDIR(st.st_mode) ? "a folder, not a file"
                                  : "not a regular file (a device or a pipe)");
    close(fd);
    return NULL;
  }
  vmem_hlo_module *m = module_new(opt);
  if (!m) {
    close(fd);
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  m->text = "";
  if (st.st_size > 0) {
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      err_set(err, VMEM_ERR_ARGUMENT, 0, "cannot map: %s", strerror(errno));
      close(fd);
      vmem_hlo_free(m);
      return NULL;
    }
    posix_madvise(map, (size_t)st.st_size, POSIX_MADV_SEQUENTIAL);
    m->map = map;
    m->map_len = (size_t)st.st_size;
    m->text = map;
    m->len = (size_t)st.st_size;
  }
  close(fd);
  return parse_or_free(m, err);
}

void vmem_hlo_free(vmem_hlo_module *m) {
  if (!m)
    return;
  if (m->by_name)
    hlo_map_free(m->by_name);
  if (m->map)
    munmap(m->map, m->map_len);
  arena a = m->a;
  arena_destroy(&a);
}

static const sv empty = {"", 0};

vmem_str vmem_hlo_text(const vmem_hlo_module *m) {
  if (!m)
    return (vmem_str){NULL, 0};
  vmem_str s = {m->text, m->len};
  return s;
}
vmem_str vmem_hlo_name(const vmem_hlo_module *m) { return m && m->has_header ? m->name : empty; }
bool vmem_hlo_is_scheduled(const vmem_hlo_module *m) { return m && m->is_scheduled; }

static sv find_attr(const hlo_attr *attrs, uint32_t n, const char *name) {
  size_t len = strlen(name);
  for (uint32_t k = 0; k < n; k++)
    if (attrs[k].name_len == len && !memcmp(attrs[k].value - 1 - len, name, len))
      return attr_value(&attrs[k]);
  return empty;
}

vmem_str vmem_hlo_attr(const vmem_hlo_module *m, const char *name) {
  if (!m)
    return (vmem_str){NULL, 0};
  return find_attr(m->attrs, m->nattrs, name);
}
size_t vmem_hlo_computation_count(const vmem_hlo_module *m) { return m ? m->ncomps : 0; }
const vmem_hlo_computation *vmem_hlo_computation_at(const vmem_hlo_module *m, size_t i) {
  return m && i < m->ncomps ? m->comps[i] : NULL;
}
const vmem_hlo_computation *vmem_hlo_entry(const vmem_hlo_module *m) { return m ? m->entry : NULL; }
const vmem_hlo_computation *vmem_hlo_find_computation(const vmem_hlo_module *m, const char *name, size_t len) {
  if (!m)
    return NULL;
  if (len && name[0] == '%')
    name++, len--;
  sv key = {name, len};
  return hlo_map_get(m->by_name, key);
}
size_t vmem_hlo_instruction_total(const vmem_hlo_module *m) { return m ? m->total_instrs : 0; }

vmem_str vmem_hlo_computation_name(const vmem_hlo_computation *c) { return c ? c->name : (vmem_str){NULL, 0}; }
bool vmem_hlo_computation_is_entry(const vmem_hlo_computation *c) { return c && c->is_entry; }
vmem_str vmem_hlo_computation_thread(const vmem_hlo_computation *c) { return c ? c->thread : (vmem_str){NULL, 0}; }
size_t vmem_hlo_computation_instruction_count(const vmem_hlo_computation *c) { return c ? c->ninstrs : 0; }
const vmem_hlo_instruction *vmem_hlo_computation_instruction_at(const vmem_hlo_computation *c, size_t i) {
  return c && i < c->ninstrs ? c->instrs[i] : NULL;
}
const vmem_hlo_instruction *vmem_hlo_computation_root(const vmem_hlo_computation *c) { return c ? c->root : NULL; }
size_t vmem_hlo_computation_caller_count(const vmem_hlo_computation *c) { return c ? c->ncallers : 0; }
const vmem_hlo_instruction *vmem_hlo_computation_caller_at(const vmem_hlo_computation *c, size_t i) {
  return c && i < c->ncallers ? c->callers[i] : NULL;
}
bool vmem_hlo_computation_is_fusion(const vmem_hlo_computation *c) { return c && c->is_fusion; }

vmem_str vmem_hlo_instruction_name(const vmem_hlo_instruction *i) { return i ? i->name : (vmem_str){NULL, 0}; }
vmem_str vmem_hlo_instruction_opcode(const vmem_hlo_instruction *i) { return i ? *i->opcode : (vmem_str){NULL, 0}; }

bool vmem_hlo_instruction_defines_buffer(const vmem_hlo_instruction *i) {
  if (!i || i->parent->is_fusion || hlo_has(i, HLO_F_ALIAS))
    return false;
  return !(i->kind == HLO_KIND_PARAMETER && !i->parent->is_entry);
}
const vmem_shape *vmem_hlo_instruction_shape(const vmem_hlo_instruction *i) { return i ? i->shape : NULL; }
bool vmem_hlo_instruction_is_root(const vmem_hlo_instruction *i) { return i && i->parent->root == i; }
const vmem_hlo_computation *vmem_hlo_instruction_parent(const vmem_hlo_instruction *i) { return i ? i->parent : NULL; }
size_t vmem_hlo_instruction_offset(const vmem_hlo_instruction *i) {
  if (!i)
    return 0;
  return (size_t)(i->name.ptr - i->parent->module->text);
}
size_t vmem_hlo_instruction_id(const vmem_hlo_instruction *i) { return i ? i->id : 0; }
size_t vmem_hlo_instruction_operand_count(const vmem_hlo_instruction *i) { return i ? i->noperands : 0; }
const vmem_hlo_instruction *vmem_hlo_instruction_operand_at(const vmem_hlo_instruction *i, size_t k) {
  return i && k < i->noperands ? i->operands[k] : NULL;
}
size_t vmem_hlo_instruction_called_count(const vmem_hlo_instruction *i) { return i ? i->ncalled : 0; }
const vmem_hlo_computation *vmem_hlo_instruction_called_at(const vmem_hlo_instruction *i, size_t k) {
  return i && k < i->ncalled ? i->called[k] : NULL;
}
size_t vmem_hlo_instruction_attr_count(const vmem_hlo_instruction *i) { return i ? i->nattrs : 0; }
vmem_str vmem_hlo_instruction_attr_name(const vmem_hlo_instruction *i, size_t k) {
  if (!i)
    return (vmem_str){NULL, 0};
  return k < i->nattrs ? attr_name(&hlo_attrs(i)[k]) : empty;
}
vmem_str vmem_hlo_instruction_attr_value(const vmem_hlo_instruction *i, size_t k) {
  if (!i)
    return (vmem_str){NULL, 0};
  return k < i->nattrs ? attr_value(&hlo_attrs(i)[k]) : empty;
}
vmem_str vmem_hlo_instruction_attr(const vmem_hlo_instruction *i, const char *name) {
  if (!i)
    return (vmem_str){NULL, 0};
  return find_attr(hlo_attrs(i), i->nattrs, name);
}

vmem_str vmem_hlo_instruction_custom_call_target(const vmem_hlo_instruction *i) {
  if (!i)
    return (vmem_str){NULL, 0};
  return sv_unquote(find_attr(hlo_attrs(i), i->nattrs, "custom_call_target"));
}

/* metadata={op_type="..." op_name="..." ...}: the op_name string. */
vmem_str vmem_hlo_instruction_op_name(const vmem_hlo_instruction *i) {
  if (!i)
    return (vmem_str){NULL, 0};
  sv md = find_attr(hlo_attrs(i), i->nattrs, "metadata");
  for (size_t k = 0; k + 9 <= md.len; k++) {
    if (memcmp(md.ptr + k, "op_name=\"", 9) != 0 || (k > 0 && md.ptr[k - 1] != ' ' && md.ptr[k - 1] != '{'))
      continue;
    size_t b = k + 9, e = b;
    while (e < md.len && md.ptr[e] != '"')
      e += md.ptr[e] == '\\' ? 2 : 1;
    sv out = {md.ptr + b, (e < md.len ? e : md.len) - b};
    return out;
  }
  return empty;
}

vmem_str vmem_hlo_instruction_kernel_name(const vmem_hlo_instruction *i) {
  if (!i)
    return (vmem_str){NULL, 0};
  sv target = vmem_hlo_instruction_custom_call_target(i);
  if (!sv_eq(target, "tpu_custom_call", 15))
    return empty;
  sv n = i->name;
  size_t e = n.len;
  while (e > 0 && ch_is_digit(n.ptr[e - 1]))
    e--;
  if (e > 0 && e < n.len && n.ptr[e - 1] == '.')
    n.len = e - 1;
  return n;
}
