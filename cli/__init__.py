"""The `tacocat` command-line application (click).  Commands only parse,
call the `solver` API and format."""
