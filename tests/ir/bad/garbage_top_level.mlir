// expect-error: 2:1: expected 'func.func', found 'hello'
hello world
