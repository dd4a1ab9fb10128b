// expect-error: 2:23: unterminated attribute value (missing closing bracket)
module @m attributes {a = [1, 2 {
}
