"""The kind of a compiler error, from its text: one classification for the
records (record.py) and for vmemscope's own compile held to them
(compile_check.py). Needs no JAX."""


def error_kind(text):
    if "E1001" in text or "while allocating on stack" in text:
        return "scoped_vmem_oom"
    if "Ran out of memory in memory space vmem" in text or (
            "would exceed memory" in text and "space=vmem" in text):
        return "vmem_capacity"
    if "Ran out of memory" in text or "RESOURCE_EXHAUSTED" in text:
        return "other_oom"
    return "other_error"
