// A transformer-encoder block whose sequence length is polymorphic: `?`
// bounded by 64 (issue 13's encoder scenario). The same program as
// bench/poly_encoder.h's poly_encoder_text(-1), written out verbatim
// (tests/runtime/test_encoder_example.c checks that both print the same
// canonical text). Parameters: ids (n token ids, rows of emb), the embedding
// table emb (64 rows of width 32), layer_norm's gamma and beta, the
// projections wq, wk, wv, and the MLP weights w1 (32x64) and w2 (64x32).
// The computation: embedding gather -> layer_norm (epsilon 1e-5) -> q, k, v
// -> scores q k^T / sqrt(32) -> softmax over the keys -> attention ->
// residual -> relu MLP -> residual. The broadcasts' shapes come from
// get_dimension_size, as JAX's shape-polymorphic export writes them.
// Running it: examples/encoder/README.md.
func.func @main(%ids: tensor<?xi32, #stablehlo.bounds<64>>, %emb: tensor<64x32xf32>, %gamma: tensor<32xf32>, %beta: tensor<32xf32>, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>, %wv: tensor<32x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<64x32xf32>) -> tensor<?x32xf32, #stablehlo.bounds<64, ?>> {
  %x = "stablehlo.gather"(%emb, %ids) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 32>}> : (tensor<64x32xf32>, tensor<?xi32, #stablehlo.bounds<64>>) -> tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x32xf32, #stablehlo.bounds<64, ?>>) -> tensor<i32>
  %sh1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %cD = stablehlo.constant dense<32> : tensor<1xi32>
  %cF = stablehlo.constant dense<64> : tensor<1xi32>
  %shD = stablehlo.concatenate %sh1, %cD, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %shS = stablehlo.concatenate %sh1, %sh1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %shF = stablehlo.concatenate %sh1, %cF, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %invd = stablehlo.constant dense<3.125000e-02> : tensor<f32>
  %eps = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
  %scale = stablehlo.constant dense<0.176776692> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x32xf32, #stablehlo.bounds<64, ?>>, tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<64>>
  %invdb = stablehlo.dynamic_broadcast_in_dim %invd, %sh1, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32, #stablehlo.bounds<64>>
  %mean = stablehlo.multiply %s, %invdb : tensor<?xf32, #stablehlo.bounds<64>>
  %meanb = stablehlo.dynamic_broadcast_in_dim %mean, %shD, dims = [0] : (tensor<?xf32, #stablehlo.bounds<64>>, tensor<2xi32>) -> tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %xc = stablehlo.subtract %x, %meanb : tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %sq = stablehlo.multiply %xc, %xc : tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %vs = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x32xf32, #stablehlo.bounds<64, ?>>, tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<64>>
  %var = stablehlo.multiply %vs, %invdb : tensor<?xf32, #stablehlo.bounds<64>>
  %epsb = stablehlo.dynamic_broadcast_in_dim %eps, %sh1, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32, #stablehlo.bounds<64>>
  %ve = stablehlo.add %var, %epsb : tensor<?xf32, #stablehlo.bounds<64>>
  %rs = stablehlo.rsqrt %ve : tensor<?xf32, #stablehlo.bounds<64>>
  %rsb = stablehlo.dynamic_broadcast_in_dim %rs, %shD, dims = [0] : (tensor<?xf32, #stablehlo.bounds<64>>, tensor<2xi32>) -> tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %xn = stablehlo.multiply %xc, %rsb : tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %gb = stablehlo.dynamic_broadcast_in_dim %gamma, %shD, dims = [1] : (tensor<32xf32>, tensor<2xi32>) -> tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %bb = stablehlo.dynamic_broadcast_in_dim %beta, %shD, dims = [1] : (tensor<32xf32>, tensor<2xi32>) -> tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %h0 = stablehlo.multiply %xn, %gb : tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %h = stablehlo.add %h0, %bb : tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %q = stablehlo.dot_general %h, %wq, contracting_dims = [1] x [0] : (tensor<?x32xf32, #stablehlo.bounds<64, ?>>, tensor<32x32xf32>) -> tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %k = stablehlo.dot_general %h, %wk, contracting_dims = [1] x [0] : (tensor<?x32xf32, #stablehlo.bounds<64, ?>>, tensor<32x32xf32>) -> tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %v = stablehlo.dot_general %h, %wv, contracting_dims = [1] x [0] : (tensor<?x32xf32, #stablehlo.bounds<64, ?>>, tensor<32x32xf32>) -> tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %sc = stablehlo.dot_general %q, %k, contracting_dims = [1] x [1] : (tensor<?x32xf32, #stablehlo.bounds<64, ?>>, tensor<?x32xf32, #stablehlo.bounds<64, ?>>) -> tensor<?x?xf32, #stablehlo.bounds<64, 64>>
  %scaleb = stablehlo.dynamic_broadcast_in_dim %scale, %shS, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x?xf32, #stablehlo.bounds<64, 64>>
  %scs = stablehlo.multiply %sc, %scaleb : tensor<?x?xf32, #stablehlo.bounds<64, 64>>
  %mx = stablehlo.reduce(%scs init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<?x?xf32, #stablehlo.bounds<64, 64>>, tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<64>>
  %mxb = stablehlo.dynamic_broadcast_in_dim %mx, %shS, dims = [0] : (tensor<?xf32, #stablehlo.bounds<64>>, tensor<2xi32>) -> tensor<?x?xf32, #stablehlo.bounds<64, 64>>
  %e0 = stablehlo.subtract %scs, %mxb : tensor<?x?xf32, #stablehlo.bounds<64, 64>>
  %e = stablehlo.exponential %e0 : tensor<?x?xf32, #stablehlo.bounds<64, 64>>
  %es = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32, #stablehlo.bounds<64, 64>>, tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<64>>
  %esb = stablehlo.dynamic_broadcast_in_dim %es, %shS, dims = [0] : (tensor<?xf32, #stablehlo.bounds<64>>, tensor<2xi32>) -> tensor<?x?xf32, #stablehlo.bounds<64, 64>>
  %p = stablehlo.divide %e, %esb : tensor<?x?xf32, #stablehlo.bounds<64, 64>>
  %att = stablehlo.dot_general %p, %v, contracting_dims = [1] x [0] : (tensor<?x?xf32, #stablehlo.bounds<64, 64>>, tensor<?x32xf32, #stablehlo.bounds<64, ?>>) -> tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %r1 = stablehlo.add %h, %att : tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %m1 = stablehlo.dot_general %r1, %w1, contracting_dims = [1] x [0] : (tensor<?x32xf32, #stablehlo.bounds<64, ?>>, tensor<32x64xf32>) -> tensor<?x64xf32, #stablehlo.bounds<64, ?>>
  %zf = stablehlo.dynamic_broadcast_in_dim %zero, %shF, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x64xf32, #stablehlo.bounds<64, ?>>
  %m1r = stablehlo.maximum %m1, %zf : tensor<?x64xf32, #stablehlo.bounds<64, ?>>
  %m2 = stablehlo.dot_general %m1r, %w2, contracting_dims = [1] x [0] : (tensor<?x64xf32, #stablehlo.bounds<64, ?>>, tensor<64x32xf32>) -> tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  %out = stablehlo.add %r1, %m2 : tensor<?x32xf32, #stablehlo.bounds<64, ?>>
  return %out : tensor<?x32xf32, #stablehlo.bounds<64, ?>>
}
