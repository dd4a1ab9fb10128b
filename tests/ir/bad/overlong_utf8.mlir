// expect-error: 2:4: invalid UTF-8 sequence
// À¯slash
func.func @f() {
  return
}
