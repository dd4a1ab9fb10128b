/* Planted faults that are the correct result of other inputs: the fault
 * file defines FAULT_EXECUTE and fault_edit_inputs() before including
 * fault_common.h and then this header. The inner (reference) backend gets
 * deep copies of the inputs, which fault_edit_inputs may change, as the
 * faulty kernel would read them; the caller's inputs are left alone (the
 * runner checks that). fault_edit_inputs returns false to run unchanged. */
#ifndef PLUMB_TESTS_FAULT_INPUTS_H
#define PLUMB_TESTS_FAULT_INPUTS_H

static bool fault_edit_inputs(const char *text, plumb_backend_buffer *in, size_t n_in);

static plumb_backend_error *fault_execute(plumb_backend_execute_args *a)
{
    fault_exec *fx = (fault_exec *)a->executable;
    plumb_backend_execute_args ia = *a;
    ia.executable = fx->inner;
    size_t n = a->n_inputs;
    plumb_backend_buffer *cp = n ? calloc(n, sizeof *cp) : NULL;
    void **data = n ? calloc(n, sizeof *data) : NULL;
    bool ok = n == 0 || (cp && data);
    for (size_t i = 0; ok && i < n; i++) {
        cp[i] = a->inputs[i];
        if (a->inputs[i].byte_size == 0) continue;
        data[i] = malloc(a->inputs[i].byte_size);
        if (!data[i]) { ok = false; break; }
        memcpy(data[i], a->inputs[i].data, a->inputs[i].byte_size);
        cp[i].data = data[i];
    }
    plumb_backend_error *e = NULL;
    if (!ok) e = conf_bk_error(PLUMB_BACKEND_ERR_RESOURCE, "out of memory");
    else {
        if (n && fault_edit_inputs(fx->text, cp, n)) ia.inputs = cp;
        e = fault_inner()->execute(&ia);
        a->outputs = ia.outputs;
    }
    for (size_t i = 0; data && i < n; i++) free(data[i]);
    free(data);
    free(cp);
    return e;
}

#endif
