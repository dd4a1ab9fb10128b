/* Control flow and structure: optimization_barrier, while, if and case,
 * map, chlo.scan, composite, tuple and get_tuple_element (conformance/gen.c is the plan and the driver,
 * conformance/gen_family.h what the families share). */
#include "gen_family.h"

/* optimization_barrier over two operands: x of the case's type and shape,
 * and an i32 vector of 5 beside it (so that result j must come from operand
 * j, not from operand 0), both returned; the results are the operands' bits. */
bool conf_gen_barrier(gen *g)
{
    shp s = conf_gen_ew_shape(g->shape);
    int64_t five = 5;
    conf_gen_param(g, "x", g->t, s.rank, s.dims, g->value, 0, 0);
    conf_gen_param(g, "y", PLUMB_I32, 1, &five, "uniform", 0, 0);
    const char *X = conf_gen_tys(g, g->t, s.rank, s.dims), *Y = conf_gen_tys(g, PLUMB_I32, 1, &five);
    plumb_buf_printf(&g->body, "  %%r:2 = stablehlo.optimization_barrier %%x, %%y : %s, %s\n", X, Y);
    conf_gen_set_ret_types2(g, X, Y);
    return conf_gen_push_case(g, "%r#0, %r#1");
}

/* while: a counter i from 0 to the trip count and acc, starting at x, to
 * which each iteration adds x (captured from the function); both returned.
 * "nested": 3 outer iterations, each adding x twice in an inner loop, so
 * acc = x + 6 additions of x in the order the loops run them. */
bool conf_gen_while(gen *g)
{
    int64_t dims[2] = {7, 13};
    conf_gen_param(g, "x", g->t, 2, dims, g->value, 0, 0);
    const char *X = conf_gen_tys(g, g->t, 2, dims);
    bool nested = !strcmp(g->shape, "nested");
    int trips = nested ? 3 : !strcmp(g->shape, "trip0") ? 0 : !strcmp(g->shape, "trip1") ? 1 : 5;
    plumb_buf *b = &g->body;
    plumb_buf_printf(b, "  %%z = stablehlo.constant dense<0> : tensor<i32>\n"
                        "  %%one = stablehlo.constant dense<1> : tensor<i32>\n"
                        "  %%n = stablehlo.constant dense<%d> : tensor<i32>\n"
                        "  %%two = stablehlo.constant dense<2> : tensor<i32>\n"
                        "  %%r:2 = stablehlo.while(%%i = %%z, %%acc = %%x) : tensor<i32>, %s\n"
                        "  cond {\n"
                        "    %%c = stablehlo.compare LT, %%i, %%n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
                        "    stablehlo.return %%c : tensor<i1>\n"
                        "  } do {\n"
                        "    %%i1 = stablehlo.add %%i, %%one : tensor<i32>\n",
                     trips, X);
    if (nested)
        plumb_buf_printf(b, "    %%w:2 = stablehlo.while(%%j = %%z, %%b = %%acc) : tensor<i32>, %s\n"
                            "    cond {\n"
                            "      %%c2 = stablehlo.compare LT, %%j, %%two : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
                            "      stablehlo.return %%c2 : tensor<i1>\n"
                            "    } do {\n"
                            "      %%j1 = stablehlo.add %%j, %%one : tensor<i32>\n"
                            "      %%b1 = stablehlo.add %%b, %%x : %s\n"
                            "      stablehlo.return %%j1, %%b1 : tensor<i32>, %s\n"
                            "    }\n"
                            "    stablehlo.return %%i1, %%w#1 : tensor<i32>, %s\n",
                         X, X, X, X);
    else
        plumb_buf_printf(b, "    %%a1 = stablehlo.add %%acc, %%x : %s\n"
                            "    stablehlo.return %%i1, %%a1 : tensor<i32>, %s\n",
                         X, X);
    plumb_buf_puts(b, "  }\n");
    const char *I = "tensor<i32>";
    conf_gen_set_ret_types2(g, I, X);
    return conf_gen_push_case(g, "%r#0, %r#1");
}

void conf_gen_case3_text(plumb_buf *b, const char *index, const char *X)
{
    plumb_buf_printf(b, "  %%k = stablehlo.constant dense<%s> : tensor<i32>\n"
                        "  %%r = \"stablehlo.case\"(%%k) ({\n"
                        "    stablehlo.return %%x : %s\n"
                        "  }, {\n"
                        "    %%a = stablehlo.add %%x, %%x : %s\n"
                        "    stablehlo.return %%a : %s\n"
                        "  }, {\n"
                        "    %%c = stablehlo.add %%x, %%x : %s\n"
                        "    %%c2 = stablehlo.add %%c, %%x : %s\n"
                        "    stablehlo.return %%c2 : %s\n"
                        "  }) : (tensor<i32>) -> %s\n",
                     index, X, X, X, X, X, X, X);
}

/* if and case over x (7x13 of the case's type and value class), the
 * selector a constant: branch k returns x with k additions of x to it
 * (branch 0 returns x itself), so every branch gives its own result; a
 * nested if runs another if in its taken branch. */
bool conf_gen_branches(gen *g)
{
    int64_t dims[2] = {7, 13};
    conf_gen_param(g, "x", g->t, 2, dims, g->value, 0, 0);
    const char *X = conf_gen_tys(g, g->t, 2, dims);
    plumb_buf *b = &g->body;
    if (g->op == PLUMB_OP_IF) {
        bool nested = !strcmp(g->shape, "nested");
        bool pred = strcmp(g->shape, "taken_false") != 0;
        plumb_buf_printf(b, "  %%p = stablehlo.constant dense<%s> : tensor<i1>\n"
                            "  %%r = \"stablehlo.if\"(%%p) ({\n", pred ? "true" : "false");
        if (nested)
            plumb_buf_printf(b, "    %%q = stablehlo.constant dense<false> : tensor<i1>\n"
                                "    %%n = \"stablehlo.if\"(%%q) ({\n"
                                "      stablehlo.return %%x : %s\n"
                                "    }, {\n"
                                "      %%d = stablehlo.add %%x, %%x : %s\n"
                                "      stablehlo.return %%d : %s\n"
                                "    }) : (tensor<i1>) -> %s\n"
                                "    stablehlo.return %%n : %s\n",
                             X, X, X, X, X);
        else
            plumb_buf_printf(b, "    stablehlo.return %%x : %s\n", X);
        plumb_buf_printf(b, "  }, {\n"
                            "    %%s = stablehlo.add %%x, %%x : %s\n"
                            "    %%s2 = stablehlo.add %%s, %%x : %s\n"
                            "    stablehlo.return %%s2 : %s\n"
                            "  }) : (tensor<i1>) -> %s\n",
                         X, X, X, X);
    } else {
        const char *index = !strcmp(g->shape, "branch0") ? "0" : !strcmp(g->shape, "branch1") ? "1"
                          : !strcmp(g->shape, "branch2") ? "2" : "-1";
        conf_gen_case3_text(b, index, X);
    }
    g->ret_types = X;
    return conf_gen_push_case(g, "%r");
}

/* map (SH_MAP) over x and y of the case's type and shape: the body
 * computes select(x < y, (x + y) + x, y) (add and compare exist on every
 * element type, i1 included), so results depend on both arguments and
 * their order; "captured" adds a scalar parameter c of the function
 * instead of x, which sends the runtime to its per-element path. */
bool conf_gen_map(gen *g)
{
    bool cap = !strcmp(g->shape, "captured");
    shp s = conf_gen_ew_shape(cap ? "odd" : g->shape);
    plumb_dtype t = g->t;
    conf_gen_param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
    conf_gen_param(g, "y", t, s.rank, s.dims, g->value, 0, 0);
    if (cap)
        conf_gen_param(g, "c", t, 0, NULL, g->value, 0, 0);
    const char *X = conf_gen_tys(g, t, s.rank, s.dims), *E = conf_gen_tys(g, t, 0, NULL);
    plumb_buf *b = &g->body;
    plumb_buf_printf(b, "  %%r = \"stablehlo.map\"(%%x, %%y) ({\n"
                        "  ^bb0(%%a: %s, %%b: %s):\n"
                        "    %%s = stablehlo.add %%a, %%b : %s\n"
                        "    %%t = stablehlo.add %%s, %%%s : %s\n"
                        "    %%p = stablehlo.compare LT, %%a, %%b : (%s, %s) -> tensor<i1>\n"
                        "    %%o = stablehlo.select %%p, %%t, %%b : tensor<i1>, %s\n"
                        "    stablehlo.return %%o : %s\n"
                        "  }) {dimensions = array<i64",
                     E, E, E, cap ? "c" : "a", E, E, E, E, E);
    for (uint32_t i = 0; i < s.rank; i++)
        plumb_buf_printf(b, "%s %u", i ? "," : ":", i);
    plumb_buf_printf(b, ">} : (%s, %s) -> %s\n", X, X, X);
    g->ret_types = X;
    return conf_gen_push_case(g, "%r");
}

/* composite (SH_COMPOSITE) over x and y of the case's type and shape: the
 * decomposition @decomp, a private function after @main, returns y and x
 * reversed along its first dimension (data movement, which every element
 * type plumb has runs), so each result comes from its own operand in its
 * own order; name, composite_attributes and version are written and must
 * change nothing. */
bool conf_gen_composite(gen *g)
{
    shp s = conf_gen_ew_shape(g->shape);
    plumb_dtype t = g->t;
    conf_gen_param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
    conf_gen_param(g, "y", t, s.rank, s.dims, g->value, 0, 0);
    const char *X = conf_gen_tys(g, t, s.rank, s.dims);
    plumb_buf_printf(&g->body, "  %%r:2 = stablehlo.composite \"plumb.swap_reverse\" %%x, %%y {composite_attributes = "
                               "{axis = 0 : i64}, decomposition = @decomp, version = 1 : i32} : (%s, %s) -> (%s, %s)\n",
                     X, X, X, X);
    plumb_buf post;
    plumb_buf_init(&post);
    plumb_buf_printf(&post, "func.func private @decomp(%%a: %s, %%b: %s) -> (%s, %s) {\n", X, X, X, X);
    if (s.rank)
        plumb_buf_printf(&post, "  %%v = stablehlo.reverse %%a, dims = [0] : %s\n  return %%b, %%v : %s, %s\n}\n", X, X, X);
    else
        plumb_buf_printf(&post, "  return %%b, %%a : %s, %s\n}\n", X, X);
    g->post = post.failed || !post.data ? NULL : plumb_arena_strndup(g->out->arena, post.data, post.len);
    if (!g->post)
        g->failed = true;
    plumb_buf_free(&post);
    conf_gen_set_ret_types2(g, X, X);
    return conf_gen_push_case(g, "%r#0, %r#1");
}

/* tuple and get_tuple_element (SH_TUPLE, docs/spec/tuple.md) over x and y
 * of the case's type and shape: t = (x, (y, x, ())) passes an
 * optimization_barrier as one value, and the results are element 1's
 * element 0 (y) and element 0 (x), so each result comes from its own
 * operand through a nested tuple and the empty one. The get_tuple_element
 * family writes the generic form (index as an attribute). Data movement:
 * every element type, exact. */
bool conf_gen_tuple(gen *g)
{
    shp s = conf_gen_ew_shape(g->shape);
    plumb_dtype t = g->t;
    conf_gen_param(g, "x", t, s.rank, s.dims, g->value, 0, 0);
    conf_gen_param(g, "y", t, s.rank, s.dims, g->value, 0, 0);
    const char *X = conf_gen_tys(g, t, s.rank, s.dims);
    plumb_buf_printf(&g->body,
                     "  %%e = stablehlo.tuple : tuple<>\n"
                     "  %%i = stablehlo.tuple %%y, %%x, %%e : tuple<%s, %s, tuple<>>\n"
                     "  %%t = stablehlo.tuple %%x, %%i : tuple<%s, tuple<%s, %s, tuple<>>>\n"
                     "  %%b = stablehlo.optimization_barrier %%t : tuple<%s, tuple<%s, %s, tuple<>>>\n",
                     X, X, X, X, X, X, X, X);
    if (g->op == PLUMB_OP_GET_TUPLE_ELEMENT)
        plumb_buf_printf(&g->body,
                         "  %%p = \"stablehlo.get_tuple_element\"(%%b) {index = 1 : i32} : (tuple<%s, tuple<%s, %s, tuple<>>>) -> tuple<%s, %s, tuple<>>\n"
                         "  %%r0 = \"stablehlo.get_tuple_element\"(%%p) {index = 0 : i32} : (tuple<%s, %s, tuple<>>) -> %s\n"
                         "  %%r1 = \"stablehlo.get_tuple_element\"(%%b) {index = 0 : i32} : (tuple<%s, tuple<%s, %s, tuple<>>>) -> %s\n",
                         X, X, X, X, X, X, X, X, X, X, X, X);
    else
        plumb_buf_printf(&g->body,
                         "  %%p = stablehlo.get_tuple_element %%b[1] : (tuple<%s, tuple<%s, %s, tuple<>>>) -> tuple<%s, %s, tuple<>>\n"
                         "  %%r0 = stablehlo.get_tuple_element %%p[0] : (tuple<%s, %s, tuple<>>) -> %s\n"
                         "  %%r1 = stablehlo.get_tuple_element %%b[0] : (tuple<%s, tuple<%s, %s, tuple<>>>) -> %s\n",
                         X, X, X, X, X, X, X, X, X, X, X, X);
    conf_gen_set_ret_types2(g, X, X);
    return conf_gen_push_case(g, "%r0, %r1");
}

/* chlo.scan (SH_SCAN, docs/spec/control.md "scan") over x of the case's
 * type and value class with an init c of the same class: the body adds
 * the carry and the slice (the new carry) and outputs select(x < c, c + x,
 * x), so each output depends on the slice, the carry and their order, and
 * the carry on every earlier step. "dim0" scans 7x13 along 0, "dim1" along
 * 1, "reverse" along 0 from the end (a backend that ignores is_reverse
 * differs), "empty" a 0x5 input (outputs empty, carry = init); "multi"
 * (the generic form) scans x and y of 3x4x5 along 1 with two carries c and
 * d: outputs select(x < y, c + x, d + y) and d before the step (an
 * exclusive scan), carries c + x and d + y. add, compare and select exist
 * on every element type (i1 included). */
bool conf_gen_scan(gen *g)
{
    plumb_dtype t = g->t;
    plumb_buf *b = &g->body;
    if (!strcmp(g->shape, "multi")) {
        int64_t dims[3] = {3, 4, 5}, cd[2] = {3, 5};
        conf_gen_param(g, "x", t, 3, dims, g->value, 0, 0);
        conf_gen_param(g, "y", t, 3, dims, g->value, 0, 0);
        conf_gen_param(g, "c", t, 2, cd, g->value, 0, 0);
        conf_gen_param(g, "d", t, 2, cd, g->value, 0, 0);
        const char *X = conf_gen_tys(g, t, 3, dims), *C = conf_gen_tys(g, t, 2, cd);
        const char *P = conf_gen_tys(g, PLUMB_I1, 2, cd);
        plumb_buf_printf(b, "  %%r:4 = \"chlo.scan\"(%%x, %%y, %%c, %%d) <{dimension = 1 : i64, "
                            "operandSegmentSizes = array<i32: 2, 2>, resultSegmentSizes = array<i32: 2, 2>}> ({\n"
                            "  ^bb0(%%a: %s, %%e: %s, %%u: %s, %%v: %s):\n"
                            "    %%s = stablehlo.add %%u, %%a : %s\n"
                            "    %%w = stablehlo.add %%v, %%e : %s\n"
                            "    %%p = stablehlo.compare LT, %%a, %%e : (%s, %s) -> %s\n"
                            "    %%o = stablehlo.select %%p, %%s, %%w : %s, %s\n"
                            "    stablehlo.return %%o, %%v, %%s, %%w : %s, %s, %s, %s\n"
                            "  }) : (%s, %s, %s, %s) -> (%s, %s, %s, %s)\n",
                         C, C, C, C, C, C, C, C, P, P, C, C, C, C, C, X, X, C, C, X, X, C, C);
        char *rt = plumb_arena_array(g->out->arena, 2 * strlen(X) + 2 * strlen(C) + 7, 1);
        if (!rt)
            return g->failed = true, false;
        sprintf(rt, "%s, %s, %s, %s", X, X, C, C);
        g->ret_types = rt;
        return conf_gen_push_case(g, "%r#0, %r#1, %r#2, %r#3");
    }
    bool empty = !strcmp(g->shape, "empty"), dim1 = !strcmp(g->shape, "dim1");
    bool rev = !strcmp(g->shape, "reverse");
    int64_t dims[2] = {empty ? 0 : 7, empty ? 5 : 13}, cd[1] = {dim1 ? dims[0] : dims[1]};
    conf_gen_param(g, "x", t, 2, dims, g->value, 0, 0);
    conf_gen_param(g, "c", t, 1, cd, g->value, 0, 0);
    const char *X = conf_gen_tys(g, t, 2, dims), *C = conf_gen_tys(g, t, 1, cd), *P = conf_gen_tys(g, PLUMB_I1, 1, cd);
    plumb_buf_printf(b, "  %%r:2 = chlo.scan(%%x) inits(%%c) dimension=%d%s {\n"
                        "  ^bb0(%%a: %s, %%u: %s):\n"
                        "    %%s = stablehlo.add %%u, %%a : %s\n"
                        "    %%p = stablehlo.compare LT, %%a, %%u : (%s, %s) -> %s\n"
                        "    %%o = stablehlo.select %%p, %%s, %%a : %s, %s\n"
                        "    stablehlo.return %%o, %%s : %s, %s\n"
                        "  } : (%s, %s) -> (%s, %s)\n",
                     dim1 ? 1 : 0, rev ? " attributes {is_reverse = true}" : "", C, C, C, C, C, P, P, C, C, C, X, C,
                     X, C);
    conf_gen_set_ret_types2(g, X, C);
    return conf_gen_push_case(g, "%r#0, %r#1");
}
