// expect-error: 7:1: expected end of input after the module, found 'func.func'
module {
  func.func @f() {
    return
  }
}
func.func @g() {
  return
}
