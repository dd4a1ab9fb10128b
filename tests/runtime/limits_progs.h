/* Programs for the limit tests of both backends (tests/ref/test_limits.c,
 * tests/runtime/test_limits.c): every kind of nested region doing work that
 * takes minutes without a deadline, so a test that asserts the timeout error
 * cannot pass by finishing early.
 *
 * LIMITS_HEAVY(V) is region code that computes %w from the f32 scalar %V
 * through two generic reduces nested in each other over 4000 elements each:
 * 16 million body evaluations per use. The inner bodies are not a lone add,
 * so no backend recognises them and every evaluation is interpreted. Used
 * once per region evaluation of 4096 outer elements, a program does about
 * 6.6e10 evaluations. Each kernel's own loop is under 4096 iterations, so a
 * per-kernel poll counter that restarts on entry never fires (the bug this
 * guards against). */
#ifndef PLUMB_TESTS_LIMITS_PROGS_H
#define PLUMB_TESTS_LIMITS_PROGS_H

#define LIMITS_HEAVY(V)                                                                                      \
    "    %hb = stablehlo.broadcast_in_dim %" V ", dims = [] : (tensor<f32>) -> tensor<4000xf32>\n"            \
    "    %hz = stablehlo.constant dense<0.0> : tensor<f32>\n"                                                \
    "    %w = stablehlo.reduce(%hb init: %hz) across dimensions = [0] : (tensor<4000xf32>, tensor<f32>) -> "  \
    "tensor<f32>\n"                                                                                          \
    "     reducer(%hc: tensor<f32>, %he: tensor<f32>) {\n"                                                    \
    "      %hcc = stablehlo.broadcast_in_dim %he, dims = [] : (tensor<f32>) -> tensor<4000xf32>\n"            \
    "      %hz3 = stablehlo.constant dense<0.0> : tensor<f32>\n"                                             \
    "      %hin = stablehlo.reduce(%hcc init: %hz3) across dimensions = [0] : (tensor<4000xf32>, tensor<f32>) " \
    "-> tensor<f32>\n"                                                                                       \
    "       reducer(%hg: tensor<f32>, %hh: tensor<f32>) {\n"                                                  \
    "        %hs = stablehlo.add %hg, %hh : tensor<f32>\n"                                                   \
    "        %ht = stablehlo.maximum %hs, %hg : tensor<f32>\n"                                               \
    "        stablehlo.return %ht : tensor<f32>\n"                                                           \
    "      }\n"                                                                                              \
    "      %hs2 = stablehlo.add %hc, %hin : tensor<f32>\n"                                                   \
    "      stablehlo.return %hs2 : tensor<f32>\n"                                                            \
    "    }\n"

/* A reduce whose body runs the nested reduces. */
static const char limits_prog_reduce[] =
    "func.func @main() -> tensor<f32> {\n"
    "  %x = stablehlo.iota dim = 0 : tensor<4096xf32>\n"
    "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "  %r = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>\n"
    "   reducer(%a: tensor<f32>, %b: tensor<f32>) {\n"
    LIMITS_HEAVY("b")
    "    %s = stablehlo.add %a, %w : tensor<f32>\n"
    "    stablehlo.return %s : tensor<f32>\n"
    "  }\n"
    "  return %r : tensor<f32>\n"
    "}\n";

/* A sort whose comparator runs them. */
static const char limits_prog_sort[] =
    "func.func @main() -> tensor<4096xf32> {\n"
    "  %x = stablehlo.iota dim = 0 : tensor<4096xf32>\n"
    "  %s = \"stablehlo.sort\"(%x) <{dimension = 0 : i64}> ({\n"
    "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
    LIMITS_HEAVY("a")
    "    %lt = stablehlo.compare  LT, %w, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    stablehlo.return %lt : tensor<i1>\n"
    "  }) : (tensor<4096xf32>) -> tensor<4096xf32>\n"
    "  return %s : tensor<4096xf32>\n"
    "}\n";

/* A scatter whose update region runs them. */
static const char limits_prog_scatter[] =
    "func.func @main() -> tensor<4096xf32> {\n"
    "  %x = stablehlo.constant dense<0.0> : tensor<4096xf32>\n"
    "  %i = stablehlo.iota dim = 0 : tensor<4096x1xi32>\n"
    "  %u = stablehlo.iota dim = 0 : tensor<4096xf32>\n"
    "  %s = \"stablehlo.scatter\"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims "
    "= [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
    "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
    LIMITS_HEAVY("b")
    "    %r = stablehlo.add %a, %w : tensor<f32>\n"
    "    stablehlo.return %r : tensor<f32>\n"
    "  }) : (tensor<4096xf32>, tensor<4096x1xi32>, tensor<4096xf32>) -> tensor<4096xf32>\n"
    "  return %s : tensor<4096xf32>\n"
    "}\n";

/* A reduce whose body calls a function that runs them. */
static const char limits_prog_call[] =
    "func.func @heavy(%v: tensor<f32>) -> tensor<f32> {\n"
    LIMITS_HEAVY("v")
    "  return %w : tensor<f32>\n"
    "}\n"
    "func.func @main() -> tensor<f32> {\n"
    "  %x = stablehlo.iota dim = 0 : tensor<4096xf32>\n"
    "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "  %r = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>\n"
    "   reducer(%a: tensor<f32>, %b: tensor<f32>) {\n"
    "    %c = func.call @heavy(%b) : (tensor<f32>) -> tensor<f32>\n"
    "    %s = stablehlo.add %a, %c : tensor<f32>\n"
    "    stablehlo.return %s : tensor<f32>\n"
    "  }\n"
    "  return %r : tensor<f32>\n"
    "}\n";

static const char *const limits_progs[] = {limits_prog_reduce, limits_prog_sort, limits_prog_scatter,
                                           limits_prog_call};
static const char *const limits_prog_names[] = {"reduce body", "sort comparator", "scatter update",
                                                "func.call in a reduce body"};
#define LIMITS_N_PROGS 4

#endif
