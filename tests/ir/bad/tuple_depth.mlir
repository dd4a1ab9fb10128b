// expect-error: 2:213: tuple types nest deeper than 32 levels
func.func @main(%a: tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>) {
  return
}
