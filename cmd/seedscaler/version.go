package main

// version is the version of the binary, stamped at build time with
// -ldflags "-X main.version=...". (`make build` and `make image` stamp `git describe`.)
var version = "dev"
